package walk

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// A repository's own files are read in process, never by running git:
// git honours the repository's configuration (core.fsmonitor, hooks,
// filters…), so running it on a folder that arrived from elsewhere would
// run what that folder names.

// MaxIndexBytes bounds the index read into memory; a larger one is
// treated as undecodable.
const MaxIndexBytes = 512 << 20

// repo is one git repository met by a walk: what it tracks, and the
// rules that hold below its top before any .gitignore file.
type repo struct {
	tracked map[string]bool // tracked paths, from the walk's root
	dirs    map[string]bool // the folders holding them
	rules   rules           // excludes file, then info/exclude (then, for a Repo, the .gitignore files above the root)
}

func (r *repo) isTracked(p string) bool { return r != nil && r.tracked[p] }
func (r *repo) holdsTracked(p string) bool {
	return r != nil && r.dirs[p]
}

// Repo is the git repository holding a walk's root when its git
// directory is outside the walked tree (the root is below the work tree's
// top, or is a linked worktree or submodule whose .git is a file). Pass
// it as Options.Repo; a .git folder inside the tree is found by the walk.
type Repo struct{ r repo }

// OpenRepo finds the repository holding dir, as git's discovery does
// (walking up to the first .git folder or gitdir file), and reads its
// index, info/exclude, the core.excludesFile its config names and the
// .gitignore files of the folders from its top down to dir's parent.
// userExcludes (UserExcludes) stand when the config names no file. It
// returns nil outside a repository.
func OpenRepo(dir string, userExcludes []string) *Repo {
	gitDir, top, found := FindGitDir(dir)
	if !found || gitDir == "" {
		return nil
	}
	prefix := "."
	if rel, err := filepath.Rel(top, dir); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		prefix = filepath.ToSlash(rel)
	}
	up := ""
	if prefix != "." {
		up = prefix + "/"
	}
	// Each folder is read through an os.Root: a link inside it cannot
	// make the listing read a file elsewhere.
	gitRoot, err := os.OpenRoot(gitDir)
	if err != nil {
		return nil
	}
	defer gitRoot.Close()
	topRoot, err := os.OpenRoot(top)
	if err != nil {
		return nil
	}
	defer topRoot.Close()
	common := gitRoot
	if c := gitCommonDir(gitRoot.FS(), gitDir); c != gitDir {
		if common, err = os.OpenRoot(c); err != nil {
			return nil
		}
		defer common.Close()
	}
	r := readRepo(common.FS(), treeExcludes(topRoot.FS(), "."), userExcludes, up)
	r.tracked, _ = ReadIndexFile(filepath.Join(gitDir, "index"), prefix)
	r.dirs = trackedDirs(r.tracked)
	// The .gitignore files above dir, each for its own folder.
	if prefix != "." {
		parts := strings.Split(prefix, "/")
		for i := range parts {
			folder := strings.Join(parts[:i], "/")
			data, _ := readIgnore(topRoot.FS(), path.Join(folder, ".gitignore"))
			dirUp := strings.Join(parts[i:], "/") + "/"
			r.rules = r.rules.with(parseIgnore(data, "", dirUp))
		}
	}
	return &Repo{r: *r}
}

// gitCommonDir is the common directory of a git directory: the main
// repository's for a linked worktree, which keeps info/ and config there.
func gitCommonDir(gitFS fs.FS, gitDir string) string {
	data, _ := readIgnore(gitFS, "commondir")
	if data == nil {
		return gitDir
	}
	common := strings.TrimSpace(string(data))
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitDir, common)
	}
	return common
}

// treeExcludes reads the core.excludesFile a repository's own config
// names, when it is a file inside the work tree (fsys) below dir. git
// would read any file; a repository's config is the workspace's word,
// so a file outside (an absolute path, ~/…) is not read and the user's
// own excludes stand.
func treeExcludes(fsys fs.FS, dir string) func(string) ([]byte, bool) {
	return func(name string) ([]byte, bool) {
		name = filepath.ToSlash(name)
		if name == "" || path.IsAbs(name) || filepath.IsAbs(name) || strings.HasPrefix(name, "~") {
			return nil, false
		}
		p := path.Join(dir, name)
		if !fs.ValidPath(p) {
			return nil, false
		}
		data, _ := readIgnore(fsys, p)
		return data, true
	}
}

// readRepo reads a git directory's info/exclude and config from common
// (its common directory) and turns them into the rules at the top of its
// work tree: the excludes file the config names (or userExcludes), then
// info/exclude. readExcludes reads the file the config names.
func readRepo(common fs.FS, readExcludes func(string) ([]byte, bool), userExcludes []string, up string) *repo {
	excl := []byte(strings.Join(userExcludes, "\n"))
	if data, _ := readIgnore(common, "config"); data != nil {
		if name, ok := configExcludesFile(data); ok {
			if named, read := readExcludes(name); read {
				excl = named
			}
		}
	}
	info, _ := readIgnore(common, "info/exclude")
	rs := parseIgnore(excl, "", up).with(parseIgnore(info, "", up))
	return &repo{rules: rs}
}

// configExcludesFile reads core.excludesFile from the text of a git
// configuration file (include directives are not followed).
func configExcludesFile(data []byte) (string, bool) {
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

// trackedDirs lists every folder above a tracked path.
func trackedDirs(tracked map[string]bool) map[string]bool {
	dirs := map[string]bool{}
	for p := range tracked {
		for {
			i := strings.LastIndexByte(p, '/')
			if i < 0 {
				break
			}
			p = p[:i]
			if dirs[p] {
				break
			}
			dirs[p] = true
		}
	}
	return dirs
}

// nestedRepo reads the repository whose .git is in the folder dir of
// fsys (a folder, or a file pointing with "gitdir:" to one inside fsys).
// ok is false when that .git is not a repository git would take: then
// the folder is an ordinary one.
func nestedRepo(fsys fs.FS, dir string, userExcludes []string) (*repo, bool) {
	dotGit := path.Join(dir, ".git")
	fi, err := fs.Stat(fsys, dotGit)
	if err != nil {
		return nil, false
	}
	gitDir := dotGit
	if !fi.IsDir() {
		target := gitFileTarget(func() (io.ReadCloser, error) { return openRegular(fsys, dotGit) })
		if target == "" || path.IsAbs(target) {
			return nil, false
		}
		gitDir = path.Join(dir, target)
		if !fs.ValidPath(gitDir) {
			return nil, false
		}
	}
	if !isGitDir(func(name string) (fs.FileInfo, error) { return fs.Stat(fsys, path.Join(gitDir, name)) }) {
		return nil, false
	}
	common := gitDir
	if data, _ := readIgnore(fsys, path.Join(gitDir, "commondir")); data != nil {
		c := path.Join(gitDir, strings.TrimSpace(string(data)))
		if !fs.ValidPath(c) {
			return nil, false
		}
		common = c
	}
	sub := func(d string) fs.FS { s, _ := fs.Sub(fsys, d); return s }
	readExcludes := treeExcludes(fsys, dir)
	up := ""
	r := readRepo(sub(common), readExcludes, userExcludes, up)
	// The rules' folder is dir: the walk sees the repository's paths
	// below it.
	base := ""
	if dir != "." {
		base = dir + "/"
	}
	for i := range r.rules {
		r.rules[i].base = base
	}
	r.tracked = map[string]bool{}
	if f, err := openRegular(fsys, path.Join(gitDir, "index")); err == nil {
		names, _ := decodeIndex(f)
		f.Close()
		for _, n := range names {
			r.tracked[base+n] = true
		}
	}
	r.dirs = trackedDirs(r.tracked)
	return r, true
}

// FindGitDir walks up from dir to the first `.git`, as git's discovery
// does, and returns the git directory and the work tree's top. A `.git`
// file is followed as a plain `gitdir:` pointer (worktrees, submodules);
// nothing in the repository's configuration is consulted. found with an
// empty gitDir means a `.git` is there but does not lead to a readable
// git directory.
func FindGitDir(dir string) (gitDir, top string, found bool) {
	for p := dir; ; {
		dotGit := filepath.Join(p, ".git")
		if fi, err := os.Stat(dotGit); err == nil {
			switch {
			case fi.IsDir():
				if isGitDir(func(name string) (fs.FileInfo, error) { return os.Stat(filepath.Join(dotGit, name)) }) {
					return dotGit, p, true
				}
			case fi.Mode().IsRegular():
				return osGitFileTarget(dotGit), p, true
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", "", false
		}
		p = parent
	}
}

// isGitDir reports whether a folder looks like a git directory (git
// requires HEAD, objects and refs, or a commondir standing in for the
// last two); stat looks a name up in it.
func isGitDir(stat func(name string) (fs.FileInfo, error)) bool {
	if _, err := stat("HEAD"); err != nil {
		return false
	}
	if _, err := stat("commondir"); err == nil {
		return true
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := stat(sub); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// osGitFileTarget reads a `.git` file's `gitdir: PATH` line (PATH
// relative to the file's folder) and returns the directory, or "" when
// the file is not such a pointer or the directory is missing.
func osGitFileTarget(file string) string {
	target := gitFileTarget(func() (io.ReadCloser, error) { return openRegularOS(file) })
	if target == "" {
		return ""
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(file), target)
	}
	if fi, err := os.Stat(target); err != nil || !fi.IsDir() {
		return ""
	}
	return target
}

// gitFileTarget is the PATH of a `gitdir: PATH` file, as written.
func gitFileTarget(open func() (io.ReadCloser, error)) string {
	f, err := open()
	if err != nil {
		return ""
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	target, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "gitdir: ")
	if !ok {
		return ""
	}
	return target
}

// ReadIndexFile decodes a git index file and returns the tracked paths
// under prefix ("." for all), relative to it. A missing index (a
// repository with nothing added yet) tracks nothing; bad says one that
// cannot be read or decoded (an unknown format or extension such as a
// split or sparse index). Every search and every read asks, so the
// answer is kept until the index file changes (git replaces it by a
// rename); the map returned is shared and must not be changed.
func ReadIndexFile(file, prefix string) (files map[string]bool, bad bool) {
	key := indexKey{file, prefix}
	stamp := indexStampOf(file)
	indexCache.Lock()
	c, ok := indexCache.m[key]
	indexCache.Unlock()
	if ok && c.stamp == stamp {
		return c.files, c.bad
	}
	files, bad = readIndexFile(file, prefix)
	indexCache.Lock()
	if len(indexCache.m) >= maxCachedIndexes {
		clear(indexCache.m) // a handful of repositories at most
	}
	indexCache.m[key] = cachedIndex{stamp, files, bad}
	indexCache.Unlock()
	return files, bad
}

const maxCachedIndexes = 8

type indexKey struct{ file, prefix string }

// indexStamp tells one version of an index file from another: a rename
// gives a new inode, a rewrite in place a new size or time.
type indexStamp struct {
	exists bool
	size   int64
	mod    time.Time
	sys    string // inode and device where the system has them
}

func indexStampOf(file string) indexStamp {
	fi, err := os.Stat(file)
	if err != nil {
		return indexStamp{}
	}
	return indexStamp{true, fi.Size(), fi.ModTime(), fileIdentity(fi)}
}

type cachedIndex struct {
	stamp indexStamp
	files map[string]bool
	bad   bool
}

var indexCache = struct {
	sync.Mutex
	m map[indexKey]cachedIndex
}{m: map[indexKey]cachedIndex{}}

func readIndexFile(file, prefix string) (files map[string]bool, bad bool) {
	files = map[string]bool{}
	f, err := openRegularOS(file)
	if err != nil {
		return files, !os.IsNotExist(err)
	}
	defer f.Close()
	names, err := decodeIndex(f)
	if err != nil {
		return files, true
	}
	for _, name := range names {
		if prefix != "." {
			rest, ok := strings.CutPrefix(name, prefix+"/")
			if !ok {
				continue
			}
			name = rest
		}
		files[name] = true
	}
	return files, false
}

func decodeIndex(r io.Reader) ([]string, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxIndexBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxIndexBytes {
		return nil, errIndexTooBig
	}
	var idx index.Index
	if err := index.NewDecoder(bytes.NewReader(data)).Decode(&idx); err != nil {
		return nil, err
	}
	names := make([]string, len(idx.Entries))
	for i, e := range idx.Entries {
		names[i] = e.Name
	}
	return names, nil
}

var errIndexTooBig = errors.New("the index is too big to read")

// UserExcludes returns the lines of the user's global excludes file, the
// one git's core.excludesFile names in $XDG_CONFIG_HOME/git/config or
// ~/.gitconfig (the latter winning, as in git), by default
// $XDG_CONFIG_HOME/git/ignore. Pass them as Options.Excludes: a
// repository whose own config names core.excludesFile uses that file
// instead, as git does. A missing or unreadable file gives none.
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
		data, err := readOSFile(cfg)
		if err != nil {
			continue
		}
		if v, ok := configExcludesFile(data); ok {
			file = v
		}
	}
	file = expandHome(file)
	if file == "" || !filepath.IsAbs(file) {
		return nil
	}
	data, err := readOSFile(file)
	if err != nil {
		return nil
	}
	return strings.Split(string(bytes.TrimPrefix(data, bom)), "\n")
}

func expandHome(name string) string {
	if strings.HasPrefix(name, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, name[2:])
		}
	}
	return name
}

func readOSFile(name string) ([]byte, error) {
	f, err := openRegularOS(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, _ := readBounded(f)
	return data, nil
}
