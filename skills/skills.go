package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"sync"

	"myclaw/tools"
	"myclaw/tools/termtext"
)

// ProjectDirs are the workspace folders searched for skills, in order:
// myclaw's own, then the names other agents read.
var ProjectDirs = []string{".myclaw/skills", ".agents/skills", ".claude/skills"}

// Bounds on what is read: a SKILL.md, a file beside it, and how many
// skills one folder may hold.
const (
	MaxSkillBytes = 256 << 10
	MaxFileBytes  = 256 << 10
	maxPerFolder  = 200
)

// Skill is one skill found, loadable or not.
type Skill struct {
	Frontmatter
	// Origin names the folder it came from for people: a workspace path
	// (".claude/skills/pdf") or the user's folder, absolute.
	Origin string
	// Project is set for the workspace's skills.
	Project bool
	// Why says why the model cannot load it (untrusted folder, shadowed);
	// "" when it can.
	Why string

	fsys fs.FS  // the skills folder
	dir  string // the skill's folder in fsys
}

// Loadable reports whether the model may load the skill.
func (sk Skill) Loadable() bool { return sk.Why == "" }

// Options says where skills are.
type Options struct {
	// Root is the workspace; its folders are read through it, so a
	// symlink out of the workspace is refused. nil for none.
	Root *os.Root
	// UserDir is the user's skills folder ($XDG_CONFIG_HOME/myclaw/skills);
	// "" for none.
	UserDir string
	// Trusted says whether the workspace is trusted: only then are its
	// skills loadable.
	Trusted bool
}

// Set is the skills of a session. It is safe for concurrent use.
type Set struct {
	opts Options

	mu     sync.Mutex
	skills []Skill
	errs   []error
}

// Discover finds the skills. A skill that cannot be read or parsed is
// left out and reported in Errors.
func Discover(o Options) *Set {
	s := &Set{opts: o}
	s.load()
	return s
}

// SetTrusted reloads the workspace's skills trusted or not.
func (s *Set) SetTrusted(t bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.opts.Trusted = t
	s.mu.Unlock()
	s.load()
}

func (s *Set) load() {
	s.mu.Lock()
	o := s.opts
	s.mu.Unlock()
	var found []Skill
	var errs []error
	// The user's own skills come first: a project cannot shadow them.
	if o.UserDir != "" {
		if fi, err := os.Stat(o.UserDir); err == nil && fi.IsDir() {
			f, e := scan(os.DirFS(o.UserDir), ".", func(dir string) string { return path.Join(o.UserDir, dir) }, false)
			found, errs = append(found, f...), append(errs, e...)
		}
	}
	if o.Root != nil {
		for _, d := range ProjectDirs {
			fi, err := o.Root.Stat(d)
			if err != nil || !fi.IsDir() {
				continue
			}
			f, e := scan(o.Root.FS(), d, func(dir string) string { return dir }, true)
			for i := range f {
				if !o.Trusted {
					f[i].Why = "this folder is not trusted: review the skill, then /trust (or myclaw --trust) to load it"
				}
			}
			found, errs = append(found, f...), append(errs, e...)
		}
	}
	seen := map[string]string{}
	for i, sk := range found {
		if first, ok := seen[sk.Name]; ok {
			if sk.Why == "" {
				found[i].Why = "shadowed by the skill of the same name in " + first
			}
			continue
		}
		if sk.Why == "" {
			seen[sk.Name] = sk.Origin
		}
	}
	s.mu.Lock()
	s.skills, s.errs = found, errs
	s.mu.Unlock()
}

// scan reads each subfolder of dir in fsys that holds a SKILL.md.
func scan(fsys fs.FS, dir string, origin func(string) string, project bool) ([]Skill, []error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, []error{fmt.Errorf("read %s: %w", origin(dir), err)}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var out []Skill
	var errs []error
	for _, e := range entries {
		if len(out) >= maxPerFolder {
			errs = append(errs, fmt.Errorf("%s: more than %d skills; the rest are left out", origin(dir), maxPerFolder))
			break
		}
		sub := path.Join(dir, e.Name())
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if fi, err := fs.Stat(fsys, sub); err != nil || !fi.IsDir() {
			continue
		}
		src, err := readBounded(fsys, path.Join(sub, "SKILL.md"), MaxSkillBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("skill %s: %w", origin(sub), err))
			continue
		}
		fm, _, err := Parse(src)
		if err != nil {
			errs = append(errs, fmt.Errorf("skill %s: SKILL.md: %w", origin(sub), err))
			continue
		}
		out = append(out, Skill{Frontmatter: fm, Origin: origin(sub), Project: project, fsys: fsys, dir: sub})
	}
	return out, errs
}

// All lists every skill found, loadable or not, in the order they are
// looked for.
func (s *Set) All() []Skill {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Skill(nil), s.skills...)
}

// Errors are the skills that could not be read, one error each.
func (s *Set) Errors() []error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]error(nil), s.errs...)
}

// Lookup finds a skill by name; a skill that is not loadable is returned
// with ok set, so the caller can say why.
func (s *Set) Lookup(name string) (Skill, bool) {
	var fallback *Skill
	for _, sk := range s.All() {
		if sk.Name != name {
			continue
		}
		if sk.Loadable() {
			return sk, true
		}
		if fallback == nil {
			fallback = &sk
		}
	}
	if fallback != nil {
		return *fallback, true
	}
	return Skill{}, false
}

// Section is the part of the system prompt that lists the loadable
// skills by name and description; "" when there are none. It changes only
// when the set does, so the request prefix stays the same turn to turn.
func (s *Set) Section() string {
	var b strings.Builder
	for _, sk := range s.All() {
		if !sk.Loadable() {
			continue
		}
		fmt.Fprintf(&b, "- %s: %s\n", sk.Name, oneLine(sk.Description))
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n# Skills\nThese skills hold instructions for particular tasks. When a task matches a skill's description, call the skill tool with its name first and follow the instructions it returns; read the files it mentions with the skill tool's file argument.\n\n" + b.String()
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(termtext.Strip(s)), " ")
}

// Body returns the skill's instructions, read again from its SKILL.md.
func (sk Skill) Body() (string, error) {
	src, err := readBounded(sk.fsys, path.Join(sk.dir, "SKILL.md"), MaxSkillBytes)
	if err != nil {
		return "", err
	}
	_, body, err := Parse(src)
	return body, err
}

// Files lists the files beside SKILL.md, relative to the skill's folder,
// at most limit of them.
func (sk Skill) Files(limit int) ([]string, bool) {
	var out []string
	more := false
	_ = fs.WalkDir(sk.fsys, sk.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != sk.dir && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		rel := strings.TrimPrefix(p, sk.dir+"/")
		if rel == "SKILL.md" || !d.Type().IsRegular() {
			return nil
		}
		if len(out) >= limit {
			more = true
			return fs.SkipAll
		}
		out = append(out, rel)
		return nil
	})
	return out, more
}

// ReadFile reads a file of the skill's folder (rel: a relative,
// slash-separated path that stays inside it).
func (sk Skill) ReadFile(rel string) ([]byte, bool, error) {
	clean := path.Clean(strings.ReplaceAll(rel, `\`, "/"))
	if rel == "" || path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") || !fs.ValidPath(clean) {
		return nil, false, fmt.Errorf("%q is not a path inside the skill's folder", rel)
	}
	f, err := sk.fsys.Open(path.Join(sk.dir, clean))
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%s is not a regular file", clean)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, false, err
	}
	if len(b) > MaxFileBytes {
		return tools.CutUTF8(b, MaxFileBytes), true, nil
	}
	return b, false, nil
}

func readBounded(fsys fs.FS, name string, limit int) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New(name + " is not a regular file")
	}
	if fi.Size() > int64(limit) {
		return nil, fmt.Errorf("%s is %s; a SKILL.md may be at most %s", path.Base(name), tools.HumanSize(fi.Size()), tools.HumanSize(int64(limit)))
	}
	return io.ReadAll(io.LimitReader(f, int64(limit)))
}
