package tools

import (
	"bufio"
	"bytes"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
)

// core.hooksPath moves a repository's hooks out of .git to a folder of the
// working tree (.husky, .githooks): git then runs the programs there as
// it would .git/hooks, so that folder decides what git runs just as much.
// These functions read the setting without running git (git would obey
// the config it reads), from every file git would: the repository's
// config, config.worktree and its common directory's config, the files
// they include, and the user's global and system configs.
//
// What is read conservatively, since a miss plants a hook:
//   - every value counts, not only the last one, and every include is
//     followed whatever its includeIf condition says;
//   - a config the parser cannot read is scanned line by line for any
//     hooksPath, and the usual folders (.husky, .githooks) count as named.

// HookNames are the hooks git runs, by their file names in a hooks folder.
var HookNames = []string{"applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
	"prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge", "pre-push",
	"pre-receive", "update", "proc-receive", "post-receive", "post-update", "reference-transaction",
	"push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate", "fsmonitor-watchman",
	"p4-changelist", "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit", "post-index-change"}

// fallbackHooks are the folders a config that cannot be parsed is taken
// to name.
var fallbackHooks = []string{".husky", ".githooks"}

// HooksDirs returns the folders core.hooksPath names for the repository
// whose git directory is gitDir and whose hooks run in root (its working
// tree's top folder; gitDir itself for a bare repository), as absolute
// clean paths. A relative value is taken relative to root, as git does
// (and relative to core.worktree too when the config sets one). Nil when
// nothing sets core.hooksPath.
func HooksDirs(gitDir, root string) []string {
	return hooksDirs(gitDir, root, os.Getenv)
}

func hooksDirs(gitDir, root string, getenv func(string) string) []string {
	files := []string{filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree")}
	if c := commonDir(gitDir); c != "" && c != gitDir {
		files = append(files, filepath.Join(c, "config"))
	}
	var r gitValues
	for _, f := range files {
		r.read(f, 0)
	}
	r.global(getenv)
	roots := []string{root}
	for _, w := range r.worktree {
		if w = expandUser(w); w != "" {
			if !filepath.IsAbs(w) {
				w = filepath.Join(gitDir, w)
			}
			roots = append(roots, filepath.Clean(w))
		}
	}
	vals := r.hooks
	if r.unsure {
		vals = append(vals, fallbackHooks...)
	}
	var out []string
	for _, v := range vals {
		if strings.HasPrefix(v, "%(prefix)") {
			continue // git's install prefix: never in a workspace
		}
		v = expandUser(strings.TrimSpace(v))
		if v == "" {
			continue // git treats an empty value as unset
		}
		for _, rt := range roots {
			p := v
			if !filepath.IsAbs(p) {
				p = filepath.Join(rt, p)
			}
			if p = filepath.Clean(p); !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// gitValues gathers what the config files say of core.hooksPath and
// core.worktree.
type gitValues struct {
	hooks, worktree []string
	// unsure: a config could not be parsed.
	unsure bool
	seen   []string
}

// read reads a config file and the files it includes; a missing file
// says nothing (git skips it too).
func (r *gitValues) read(file string, depth int) {
	if depth > 10 || slices.Contains(r.seen, file) {
		return
	}
	r.seen = append(r.seen, file)
	data, err := os.ReadFile(file)
	if err != nil {
		if !os.IsNotExist(err) && !isNotDir(err) {
			r.unsure = true // there, but unreadable to us: git may read it
		}
		return
	}
	cfg := gitconfig.New()
	if gitconfig.NewDecoder(bytes.NewReader(data)).Decode(cfg) != nil {
		r.unsure = true
		r.hooks = append(r.hooks, scanHooksPath(data)...)
		return
	}
	var includes []string
	for _, sec := range cfg.Sections {
		switch strings.ToLower(sec.Name) {
		case "core":
			for _, o := range sec.Options {
				switch strings.ToLower(o.Key) {
				case "hookspath":
					r.hooks = append(r.hooks, o.Value)
				case "worktree":
					r.worktree = append(r.worktree, o.Value)
				}
			}
		case "include":
			includes = append(includes, optionValues(sec.Options, "path")...)
		case "includeif":
			for _, ss := range sec.Subsections {
				includes = append(includes, optionValues(ss.Options, "path")...)
			}
		}
	}
	for _, p := range includes {
		if p = expandUser(p); p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(file), p)
		}
		r.read(filepath.Clean(p), depth+1)
	}
}

func optionValues(opts gitconfig.Options, key string) []string {
	var out []string
	for _, o := range opts {
		if strings.EqualFold(o.Key, key) {
			out = append(out, o.Value)
		}
	}
	return out
}

func isNotDir(err error) bool {
	return strings.Contains(err.Error(), "not a directory")
}

// global reads the user's and the system's configs and the
// GIT_CONFIG_KEY_n settings of the environment, which every repository
// obeys.
func (r *gitValues) global(getenv func(string) string) {
	if f := getenv("GIT_CONFIG_GLOBAL"); f != "" {
		r.read(expandUser(f), 0)
	} else {
		if home := homeDir(getenv); home != "" {
			r.read(filepath.Join(home, ".gitconfig"), 0)
		}
		if d := xdgDir(getenv, "XDG_CONFIG_HOME", ".config"); d != "" {
			r.read(filepath.Join(d, "git", "config"), 0)
		}
	}
	if getenv("GIT_CONFIG_NOSYSTEM") == "" {
		if f := getenv("GIT_CONFIG_SYSTEM"); f != "" {
			r.read(f, 0)
		} else {
			for _, f := range []string{"/etc/gitconfig", "/usr/local/etc/gitconfig", "/opt/homebrew/etc/gitconfig"} {
				r.read(f, 0)
			}
		}
	}
	n, _ := strconv.Atoi(getenv("GIT_CONFIG_COUNT"))
	for i := range min(n, 1000) {
		if strings.EqualFold(getenv("GIT_CONFIG_KEY_"+strconv.Itoa(i)), "core.hooksPath") {
			r.hooks = append(r.hooks, getenv("GIT_CONFIG_VALUE_"+strconv.Itoa(i)))
		}
	}
}

// hooksLine is a hooksPath line of a config the parser could not read.
var hooksLine = regexp.MustCompile(`(?i)^\s*hookspath\s*=\s*(.*)$`)

// scanHooksPath finds every hooksPath value in a config, in any section.
func scanHooksPath(data []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		m := hooksLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		v := strings.TrimSpace(m[1])
		if strings.HasPrefix(v, `"`) {
			if end := strings.Index(v[1:], `"`); end >= 0 {
				v = v[1 : end+1]
			}
		} else if i := strings.IndexAny(v, "#;"); i >= 0 {
			v = strings.TrimSpace(v[:i])
		}
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// commonDir is the common directory gitDir's commondir file names, or "".
func commonDir(gitDir string) string {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	if line = strings.TrimSpace(line); line == "" {
		return ""
	}
	if !filepath.IsAbs(line) {
		line = filepath.Join(gitDir, line)
	}
	return filepath.Clean(line)
}

// expandUser expands git's "~/" and "~user/"; "" when it cannot.
func expandUser(p string) string {
	if !strings.HasPrefix(p, "~") {
		return p
	}
	name, rest, _ := strings.Cut(p[1:], "/")
	var home string
	if name == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		home = h
	} else {
		u, err := user.Lookup(name)
		if err != nil {
			return ""
		}
		home = u.HomeDir
	}
	return filepath.Join(home, rest)
}

func homeDir(getenv func(string) string) string {
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// xdgDir is $name when it is absolute (the XDG spec ignores a relative
// one), else def under the home folder.
func xdgDir(getenv func(string) string, name, def string) string {
	if v := getenv(name); filepath.IsAbs(v) {
		return filepath.Clean(v)
	}
	if home := homeDir(getenv); home != "" {
		return filepath.Join(home, def)
	}
	return ""
}
