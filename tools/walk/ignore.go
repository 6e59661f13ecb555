package walk

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// IgnoreFiles are the per-folder files whose patterns exclude entries, in
// rising priority: .ignore and .myclawignore hide what git tracks but a
// search should not show, and may re-include with "!" what .gitignore
// excludes.
var IgnoreFiles = []string{".gitignore", ".ignore", ".myclawignore"}

// maxIgnoreBytes bounds how much of one ignore file is read.
const maxIgnoreBytes = 1 << 20

// rule is one ignore pattern and the folder it belongs to.
//
// go-git's Pattern.Match answers "does the pattern match this path or one
// of its parents". Git matches a pattern without a slash against the last
// name only, so such a rule is given the last name alone; a rule with a
// slash is given the path below its folder, and is dropped (rules.enter)
// once the walk is inside a folder it matched, so that a parent the walk
// entered anyway (re-included, or named as the base) does not exclude
// everything in it.
type rule struct {
	domain []string // the folder's path, in names from the walk's root
	pat    gitignore.Pattern
	slash  bool
}

// rules are the patterns in force in one folder, in rising priority. A
// slice is never changed once built: children share their parent's.
type rules []rule

// parseIgnore turns the text of an ignore file into rules for the folder
// domain. Comments, blank lines and malformed patterns are left out.
func parseIgnore(data []byte, domain []string) rules {
	var out rules
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		if r, ok := parseLine(strings.TrimSuffix(string(line), "\r"), domain); ok {
			out = append(out, r)
		}
	}
	return out
}

func parseLine(line string, domain []string) (rule, bool) {
	if line == "" || line[0] == '#' || strings.TrimSpace(line) == "" {
		return rule{}, false
	}
	// The same steps as gitignore.ParsePattern, to learn whether the
	// pattern has a slash before the trailing one.
	s := strings.TrimPrefix(line, "!")
	if !strings.HasSuffix(s, `\ `) {
		s = strings.TrimRight(s, " ")
	}
	s = strings.TrimSuffix(s, "/")
	if s == "" {
		return rule{}, false
	}
	for _, seg := range strings.Split(s, "/") {
		if seg == "**" {
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return rule{}, false
		}
	}
	return rule{domain: domain, pat: gitignore.ParsePattern(line, nil), slash: strings.Contains(s, "/")}, true
}

// excludes reports whether the entry at names (from the walk's root) is
// ignored: the last rule that matches it decides.
func (rs rules) excludes(names []string, isDir bool) bool {
	for i := len(rs) - 1; i >= 0; i-- {
		r := &rs[i]
		below, ok := r.below(names)
		if !ok {
			continue
		}
		if !r.slash {
			below = below[len(below)-1:]
		}
		if m := r.pat.Match(below, isDir); m != gitignore.NoMatch {
			return m == gitignore.Exclude
		}
	}
	return false
}

// below returns names relative to the rule's folder, if inside it.
func (r *rule) below(names []string) ([]string, bool) {
	if len(names) <= len(r.domain) {
		return nil, false
	}
	for i, d := range r.domain {
		if names[i] != d {
			return nil, false
		}
	}
	return names[len(r.domain):], true
}

// enter returns the rules for the inside of the folder at names: those
// with a slash that match the folder itself are about it, not its content.
func (rs rules) enter(names []string) rules {
	var out rules
	for i := range rs {
		r := &rs[i]
		drop := false
		if below, ok := r.below(names); ok && r.slash {
			drop = r.pat.Match(below, true) != gitignore.NoMatch
		}
		switch {
		case drop && out == nil:
			out = append(make(rules, 0, len(rs)), rs[:i]...)
		case !drop && out != nil:
			out = append(out, *r)
		}
	}
	if out == nil {
		return rs
	}
	return out
}

// with returns rs followed by more, without changing rs.
func (rs rules) with(more rules) rules {
	if len(more) == 0 {
		return rs
	}
	return append(rs[:len(rs):len(rs)], more...)
}

// readIgnore reads an ignore file of fsys, at most maxIgnoreBytes of it.
// A file that is missing or cannot be read excludes nothing.
func readIgnore(fsys fs.FS, name string) []byte {
	f, err := fsys.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	data, _ := io.ReadAll(io.LimitReader(f, maxIgnoreBytes))
	return data
}

// UserExcludes returns the lines of the user's global excludes file, the
// one git's core.excludesFile names in $XDG_CONFIG_HOME/git/config or
// ~/.gitconfig (the latter winning, as in git), by default
// $XDG_CONFIG_HOME/git/ignore. Pass them as Options.Excludes. A missing
// or unreadable file gives none. A repository's own .git/config is not
// consulted: a cloned repository must not choose which file is read.
func UserExcludes() []string {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var file string
	var cfgs []string
	if xdg != "" {
		file = filepath.Join(xdg, "git", "ignore")
		cfgs = append(cfgs, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		cfgs = append(cfgs, filepath.Join(home, ".gitconfig"))
	}
	for _, cfg := range cfgs {
		if v, ok := configExcludes(cfg); ok {
			file = v
		}
	}
	if strings.HasPrefix(file, "~/") && home != "" {
		file = filepath.Join(home, file[2:])
	}
	if file == "" || !filepath.IsAbs(file) {
		return nil
	}
	data, err := readLimited(file)
	if err != nil {
		return nil
	}
	return strings.Split(string(data), "\n")
}

// configExcludes reads core.excludesFile from a git configuration file.
func configExcludes(name string) (string, bool) {
	data, err := readLimited(name)
	if err != nil {
		return "", false
	}
	cfg := config.New()
	if err := config.NewDecoder(bytes.NewReader(data)).Decode(cfg); err != nil {
		return "", false
	}
	if !cfg.HasSection("core") {
		return "", false
	}
	opts := cfg.Section("core").Options
	if !opts.Has("excludesfile") {
		return "", false
	}
	return opts.Get("excludesfile"), true
}

func readLimited(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxIgnoreBytes))
}
