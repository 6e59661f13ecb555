package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"

	"myclaw/tools"
)

// Every file that decides what git runs in a repository of the workspace
// (its config, hooks, the pointers that lead to another git directory)
// is protected while a confined command runs, and a repository the
// command made is checked afterwards: git run later, unconfined, obeys
// these files.

// walkLimit bounds the folders searched for nested repositories; the
// walk skips the usual big generated folders and never follows links.
const walkLimit = 20000

// skipDirs are folders not searched for nested repositories.
var skipDirs = map[string]bool{"node_modules": true, ".venv": true, "venv": true, "__pycache__": true, ".tox": true,
	".mypy_cache": true, ".pytest_cache": true, ".gradle": true, ".terraform": true, "target": true, ".next": true}

// gitDirOf is the git directory a `.git` leads to: itself, or the target
// of its `gitdir:` line; "" when it leads nowhere.
func gitDirOf(dotGit string) string {
	if bareGitDir(dotGit) && filepath.Base(dotGit) != ".git" {
		return dotGit
	}
	// git follows a `.git` link, wherever it leads.
	link, err := os.Lstat(dotGit)
	if err != nil {
		return ""
	}
	fi, err := os.Stat(dotGit)
	if err != nil {
		return ""
	}
	if fi.IsDir() && link.Mode()&os.ModeSymlink != 0 {
		// The link's own target, not the fully resolved path: the
		// workspace's path may hold links too (/var on macOS), and the
		// command's writable roots are spelled as given.
		target, err := os.Readlink(dotGit)
		if err != nil {
			return ""
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(dotGit), target)
		}
		if fi, err := os.Lstat(target); err != nil || !fi.IsDir() {
			if target, err = filepath.EvalSymlinks(dotGit); err != nil {
				return ""
			}
		}
		return filepath.Clean(target)
	}
	if fi.IsDir() {
		return dotGit
	}
	if !fi.Mode().IsRegular() {
		return ""
	}
	return pointer(dotGit, "gitdir: ")
}

// bareGitDir reports whether git, run in dir, would take dir itself for a
// git directory: it holds a HEAD, and refs or a commondir (git asks for
// objects too; myclaw does not, to be on the safe side).
func bareGitDir(dir string) bool {
	if _, err := os.Lstat(filepath.Join(dir, "HEAD")); err != nil {
		return false
	}
	for _, f := range []string{"refs", "commondir"} {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}

// pointer reads a one-line file naming a directory (prefix, then a path
// relative to the file's folder) and returns that directory, or "".
func pointer(file, prefix string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(io.LimitReader(f, 4096)).ReadString('\n')
	target, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), prefix)
	if !ok || target == "" {
		return ""
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(file), target)
	}
	if fi, err := os.Stat(target); err != nil || !fi.IsDir() {
		return ""
	}
	return filepath.Clean(target)
}

// gitFiles are, for each git directory reachable from the workspace (its
// own, nested repositories', their submodules' and worktrees', and the
// common directories these point to), the files that name programs git
// runs. dirs are those git directories, infos what they were (a folder
// renamed away and replaced by a new one at the same path is another).
type gitFiles struct {
	paths []string
	dirs  map[string]bool
	infos []os.FileInfo
	// started is when the walk began, just before the command.
	started time.Time
}

// has reports whether d is one of g's git directories, the same folder
// and not merely the same path.
func (g *gitFiles) has(d string) bool {
	fi, err := os.Stat(d)
	if err != nil {
		return false
	}
	for _, k := range g.infos {
		if os.SameFile(k, fi) {
			return true
		}
	}
	return false
}

// findGitFiles looks for the repositories of the workspace ws, through
// the cache c (nil: none); made is when the command that may have made
// some began (zero: before one).
func findGitFiles(c *treeCache, ws string, made time.Time) gitFiles {
	g := gitFiles{dirs: map[string]bool{}, started: time.Now().Add(-time.Second)} // a file system's clock may lag
	if ws == "" {
		return g
	}
	for _, dg := range c.dotGits(ws, made) {
		g.paths = append(g.paths, dg) // a .git folder is bound (it cannot be renamed away), a file read-only
		if d := gitDirOf(dg); d != "" {
			g.gitDir(d, false)
			g.hooksDirs(d, dg, ws)
		}
	}
	// A repository holding the workspace, whose hooks folder may lie in it.
	for dir := filepath.Dir(ws); ; dir = filepath.Dir(dir) {
		if d := gitDirOf(filepath.Join(dir, ".git")); d != "" {
			g.hooksDirs(d, filepath.Join(dir, ".git"), ws)
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	return g
}

// hooksDirs adds the folders core.hooksPath names for git directory d,
// reached through dg (a .git in a working tree, or d itself when bare):
// git runs the programs there as it would .git/hooks'. A folder that is
// the workspace ws or holds it (hooksPath = ".") cannot be made read-only
// without the workspace: its files named as git's hooks are, instead.
func (g *gitFiles) hooksDirs(d, dg, ws string) {
	root := filepath.Dir(dg)
	if filepath.Base(dg) != ".git" {
		root = d
	}
	for _, h := range tools.HooksDirs(d, root) {
		paths := []string{h}
		if under(ws, []string{h}) {
			paths = nil
			for _, n := range tools.HookNames {
				paths = append(paths, filepath.Join(h, n))
			}
		}
		for _, p := range paths {
			if !slices.Contains(g.paths, p) {
				g.paths = append(g.paths, p)
			}
		}
	}
}

// pinnedDir is a protected path as it was before the command.
type pinnedDir struct {
	path string
	fi   os.FileInfo
}

// pinProtected notes which file or folder each existing protected path
// is, when g says the command writes the workspace. Each is read-only,
// but a folder above it in the workspace can be renamed away and another
// made in its place (a hooks folder's parent), or a link leading to it
// replaced (.git/hooks or .git/config as a link): finish checks them.
func pinProtected(g *gitFiles, existing []string) []pinnedDir {
	if g == nil {
		return nil
	}
	var out []pinnedDir
	for _, p := range existing {
		if fi, err := os.Stat(p); err == nil {
			out = append(out, pinnedDir{p, fi})
		}
	}
	return out
}

// checkPinned removes, after the command, what stands at a protected
// path when it is no longer what was there (git would obey it), and
// returns a note, or "".
func checkPinned(pinned []pinnedDir) string {
	var removed []string
	for _, p := range pinned {
		fi, err := os.Stat(p.path)
		if err != nil && os.IsNotExist(err) {
			if _, lerr := os.Lstat(p.path); lerr != nil {
				continue // gone: git runs no hook from it
			}
		}
		if err == nil && os.SameFile(fi, p.fi) {
			continue
		}
		os.RemoveAll(p.path)
		removed = append(removed, p.path)
	}
	if len(removed) == 0 {
		return ""
	}
	return "permission_denied: the command replaced " + strings.Join(removed, ", ") +
		", which is protected (it decides what git runs), through a folder or link above it; the sandbox removed what it put there (the original is wherever the command moved it)"
}

// gitDir adds git directory d; worktree says it is one of a repository's
// worktrees/NAME folders (which have no hooks of their own).
func (g *gitFiles) gitDir(d string, worktree bool) {
	if g.dirs[d] {
		return
	}
	g.dirs[d] = true
	if fi, err := os.Stat(d); err == nil {
		g.infos = append(g.infos, fi)
	}
	if worktree {
		g.paths = append(g.paths, filepath.Join(d, "config.worktree"), filepath.Join(d, "commondir"), filepath.Join(d, "gitdir"))
	} else {
		for _, f := range []string{"config", "hooks", "commondir", "config.worktree", "info"} {
			g.paths = append(g.paths, filepath.Join(d, f))
		}
	}
	for _, f := range []string{"config", "config.worktree"} {
		g.includes(filepath.Join(d, f), 0)
	}
	if c := pointer(filepath.Join(d, "commondir"), ""); c != "" {
		g.gitDir(c, false)
	}
	if entries, err := os.ReadDir(filepath.Join(d, "worktrees")); err == nil {
		for _, e := range entries {
			if e.IsDir() {
				g.gitDir(filepath.Join(d, "worktrees", e.Name()), true)
			}
		}
	}
	g.modules(filepath.Join(d, "modules"), 0)
}

// includes adds the files a config file includes (include.path,
// includeIf.*.path), and theirs.
func (g *gitFiles) includes(file string, depth int) {
	data, err := os.ReadFile(file)
	cfg := gitconfig.New()
	if err != nil || depth > 5 || gitconfig.NewDecoder(bytes.NewReader(data)).Decode(cfg) != nil {
		return
	}
	var paths []string
	for _, sec := range cfg.Sections {
		switch strings.ToLower(sec.Name) {
		case "include":
			paths = append(paths, sec.Options.GetAll("path")...)
		case "includeif":
			for _, ss := range sec.Subsections {
				paths = append(paths, ss.Options.GetAll("path")...)
			}
		}
	}
	for _, p := range paths {
		if p = expandHome(p); p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(file), p)
		}
		p = filepath.Clean(p)
		if !slices.Contains(g.paths, p) {
			g.paths = append(g.paths, p)
			g.includes(p, depth+1)
		}
	}
}

// modules adds the submodules' git directories below dir (a submodule's
// name may hold slashes, so they nest).
func (g *gitFiles) modules(dir string, depth int) {
	if depth > 8 {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if _, err := os.Stat(filepath.Join(p, "HEAD")); err == nil {
			g.gitDir(p, false)
		} else {
			g.modules(p, depth+1)
		}
	}
}

// inertKeys are the config keys a repository the command made may keep:
// none names a program or a file git would read more config from.
var inertKeys = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true, "core.logallrefupdates": true,
	"core.ignorecase": true, "core.precomposeunicode": true, "core.symlinks": true, "core.worktree": true,
	"extensions.objectformat": true, "extensions.worktreeconfig": true, "extensions.refstorage": true,
	"remote.*.url": true, "remote.*.fetch": true, "remote.*.pushurl": true,
	"branch.*.remote": true, "branch.*.merge": true,
	"user.name": true, "user.email": true, "init.defaultbranch": true,
	"submodule.*.url": true, "submodule.*.active": true,
}

// checkNewGitDir makes a git directory the confined command made inert:
// config keys outside inertKeys are dropped (the whole file when it
// cannot be parsed), and hooks other than git's *.sample examples are
// removed. It returns what it removed.
func checkNewGitDir(d string) []string {
	var removed []string
	for _, name := range []string{"config", "config.worktree"} {
		removed = append(removed, inertConfig(filepath.Join(d, name))...)
	}
	hooks := filepath.Join(d, "hooks")
	if fi, err := os.Lstat(hooks); err == nil && !fi.IsDir() {
		os.RemoveAll(hooks)
		removed = append(removed, hooks)
	}
	entries, _ := os.ReadDir(hooks)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".sample") {
			p := filepath.Join(hooks, e.Name())
			os.RemoveAll(p)
			removed = append(removed, p)
		}
	}
	return removed
}

// inertConfig rewrites the config file keeping only inertKeys, and says
// what it dropped.
func inertConfig(file string) []string {
	fi, err := os.Lstat(file)
	if err != nil {
		return nil
	}
	data, err := os.ReadFile(file)
	cfg := gitconfig.New()
	if err != nil || !fi.Mode().IsRegular() || gitconfig.NewDecoder(bytes.NewReader(data)).Decode(cfg) != nil {
		os.RemoveAll(file)
		return []string{file}
	}
	var dropped []string
	keep := gitconfig.New()
	add := func(sec, sub string, opts gitconfig.Options) {
		for _, o := range opts {
			key := strings.ToLower(sec) + "." + strings.ToLower(o.Key)
			if sub != "" {
				key = strings.ToLower(sec) + ".*." + strings.ToLower(o.Key)
			}
			if inertKeys[key] && !hasControl(o.Value) && !hasControl(sub) {
				keep.AddOption(sec, sub, o.Key, o.Value)
			} else if !slices.Contains(dropped, key) {
				dropped = append(dropped, key)
			}
		}
	}
	for _, s := range cfg.Sections {
		add(s.Name, "", s.Options)
		for _, ss := range s.Subsections {
			add(s.Name, ss.Name, ss.Options)
		}
	}
	if len(dropped) == 0 {
		return nil
	}
	var b bytes.Buffer
	if err := gitconfig.NewEncoder(&b).Encode(keep); err != nil || os.WriteFile(file, b.Bytes(), 0o644) != nil {
		os.RemoveAll(file)
		return []string{file}
	}
	return []string{fmt.Sprintf("%s (%s)", file, strings.Join(dropped, ", "))}
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// newGitDirs checks, after a confined command, the git directories in the
// workspace that were not there before it (a git init, a clone, a new
// worktree or submodule) and lie where the command could write, and
// returns a note on what was made inert, or "".
func newGitDirs(c *treeCache, ws string, before *gitFiles, roots []string) string {
	if ws == "" {
		return ""
	}
	after := findGitFiles(c, ws, before.started)
	var made, removed []string
	for d := range after.dirs {
		if before.has(d) || !under(d, roots) {
			continue
		}
		made = append(made, d)
		removed = append(removed, checkNewGitDir(d)...)
	}
	if len(made) == 0 {
		return ""
	}
	slices.Sort(made)
	note := "the command made git repositories or worktrees (" + strings.Join(made, ", ") + ")"
	if len(made) == 1 {
		note = "the command made a new git repository " + made[0]
	}
	if len(removed) == 0 {
		return note + "; its config and hooks name no program"
	}
	return note + "; myclaw made it inert, since git run later outside the sandbox would obey it, and removed: " + strings.Join(removed, "; ")
}
