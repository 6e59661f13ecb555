// Package walk lists a folder tree the way git sees it, as
// `git ls-files --cached --others --exclude-standard` would: entries that
// the .gitignore files, .git/info/exclude or the excludes file
// (core.excludesFile, by default ~/.config/git/ignore) exclude are left
// out unless git tracks them, a nested repository has its own rules, and
// .git is never entered. The .ignore and .myclawignore files exclude
// more. Patterns mean what they mean to git (see wildmatch). Ignore files
// and nested repositories are read from the walked tree itself, so
// confinement is the caller's fs.FS; what lies above its root comes from
// Options.Repo.
//
// Walk reads folders on several goroutines ahead of the caller, but calls
// the caller's function from one goroutine, in lexical depth-first order,
// so that every run lists the same entries in the same order. Every
// goroutine it starts has ended when it returns.
package walk

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// Options choose what Walk visits.
type Options struct {
	// Base is the folder to walk, a slash path relative to the file
	// system's root ("" or "." for the root). Ignore files of its parents
	// apply below it, but Base itself is walked even if they exclude it:
	// naming an ignored folder explicitly is asking for it.
	Base string
	// IncludeIgnored visits ignored entries too; .git is skipped anyway.
	IncludeIgnored bool
	// Excludes are the lines of the user's excludes file (UserExcludes),
	// of lower priority than every ignore file. A repository whose config
	// names core.excludesFile reads that file instead, as git does.
	Excludes []string
	// Repo is the repository holding the root when its git directory is
	// outside the tree (OpenRepo); it then stands for Excludes.
	Repo *Repo
	// Descend, when set, says whether to read the folder at path (its own
	// entry is visited regardless). It is called from several goroutines.
	Descend func(path string) bool
	// MaxEntries stops the walk after that many visited entries; Stats
	// says so. 0 means no limit.
	MaxEntries int
}

// Stats say what a walk did.
type Stats struct {
	Entries      int  // entries passed to the function
	IgnoredFiles int  // files (and links) left out by ignore rules
	IgnoredDirs  int  // folders left out by ignore rules, each counted once whatever it holds
	Unreadable   int  // folders that could not be listed
	Stopped      bool // MaxEntries was reached
	// IgnoredSample names the first few ignored paths, folders with a
	// trailing slash, so that a caller can say what it left out.
	IgnoredSample []string
	// CutIgnoreFiles names the ignore files longer than the walk reads:
	// their rules past that point were not applied.
	CutIgnoreFiles []string
}

// Ignored is the number of entries ignore rules left out.
func (s Stats) Ignored() int { return s.IgnoredFiles + s.IgnoredDirs }

const (
	sampleSize = 5
	// readAhead bounds how many entries the goroutines list before the
	// caller reaches them, so a walk stopped early has not read the tree.
	readAhead = 20_000
)

// Walk calls fn for each entry below opts.Base (not for Base itself) with
// its slash path from the root of fsys, in lexical depth-first order,
// leaving out .git and what ignore rules exclude. Symbolic links are
// visited but never followed. fn returning fs.SkipDir on a folder skips
// its content, on another entry the rest of its folder; fs.SkipAll ends
// the walk without error; any other error ends it and is returned. A
// folder below Base that cannot be listed is counted in Stats.Unreadable;
// Base itself failing is returned as the error. ctx ends the walk too.
func Walk(ctx context.Context, fsys fs.FS, opts Options, fn func(path string, d fs.DirEntry) error) (Stats, error) {
	base := path.Clean("/" + opts.Base)[1:]
	if base == "" {
		base = "."
	}
	w := &walker{fsys: fsys, opts: opts}
	w.cond = sync.NewCond(&w.mu)
	root := w.start(base)
	workers := min(max(runtime.GOMAXPROCS(0), 2), 8)
	for range workers {
		w.wg.Go(w.work)
	}
	defer w.close()
	w.load(root)
	var st Stats
	if root.err != nil {
		return st, root.err
	}
	err := w.visit(ctx, root, &st, fn)
	if errors.Is(err, errStop) {
		err = nil
	}
	w.mu.Lock()
	st.CutIgnoreFiles = w.cut
	w.mu.Unlock()
	return st, err
}

// Files is Walk restricted to regular files: fn sees neither folders nor
// links, and the walk enters every folder that Descend allows.
func Files(ctx context.Context, fsys fs.FS, opts Options, fn func(path string, d fs.DirEntry) error) (Stats, error) {
	return Walk(ctx, fsys, opts, func(p string, d fs.DirEntry) error {
		if !d.Type().IsRegular() {
			return nil
		}
		return fn(p, d)
	})
}

// errStop ends a walk early without error.
var errStop = errors.New("walk stopped")

// node is one folder to list. Whoever claims it first (a worker reading
// ahead, or the visiting goroutine when it gets there first) lists it
// and closes done.
type node struct {
	path    string
	inherit rules // the rules of the folder holding this one
	repo    *repo // the repository of the folder holding this one
	root    bool  // the walk's root, where Options.Repo holds
	// only is set for a folder the rules exclude but that holds tracked
	// paths: it is entered for those alone, as git lists them.
	only    bool
	claimed atomic.Bool
	done    chan struct{}

	ents []entry // set by load
	err  error
}

type entry struct {
	d       fs.DirEntry
	path    string
	ignored bool
	child   *node // the folder to descend into, if any
}

type walker struct {
	fsys fs.FS
	opts Options
	wg   sync.WaitGroup

	mu      sync.Mutex
	cond    *sync.Cond
	stack   []*node // folders to read ahead, the next on top
	stopped bool
	listed  int // entries listed so far
	visited int // of which the visiting goroutine has reached
	cut     []string
}

// start makes the node of base: the root, or a folder below it that
// inherits what each folder above holds, entered even if excluded.
func (w *walker) start(base string) *node {
	n := &node{path: ".", root: true, done: make(chan struct{})}
	if !w.opts.IncludeIgnored {
		n.inherit = parseIgnore([]byte(strings.Join(w.opts.Excludes, "\n")), "", "")
	}
	if base == "." {
		return n
	}
	for part := range strings.SplitSeq(base, "/") {
		rs, rp := w.inside(n, nil)
		n = &node{path: joinPath(n.path, part), inherit: rs, repo: rp, done: make(chan struct{})}
	}
	return n
}

// inside returns the rules and the repository that hold inside the
// folder n: a folder holding a repository starts afresh with that
// repository's rules (a nested one does not get its parent's), and its
// ignore files come last. ents, when known, saves trying files that are
// not there.
func (w *walker) inside(n *node, ents []fs.DirEntry) (rules, *repo) {
	if w.opts.IncludeIgnored {
		return nil, nil
	}
	rs, rp := n.inherit, n.repo
	if n.only {
		// Everything untracked below is excluded with the folder.
		return rs, rp
	}
	has := func(name string, dir bool) bool {
		if ents == nil {
			return true
		}
		i, ok := findEntry(ents, name)
		return ok && (!dir || ents[i].IsDir())
	}
	switch {
	case n.root && w.opts.Repo != nil:
		rp = &w.opts.Repo.r
		rs = rp.rules
	case has(".git", false):
		if r, ok := nestedRepo(w.fsys, n.path, w.opts.Excludes); ok {
			rp, rs = r, r.rules
		}
	}
	base := ""
	if n.path != "." {
		base = n.path + "/"
	}
	for _, f := range IgnoreFiles {
		if !has(f, false) {
			continue
		}
		data, cut := readIgnore(w.fsys, base+f)
		if cut {
			w.mu.Lock()
			w.cut = append(w.cut, base+f)
			w.mu.Unlock()
		}
		rs = rs.with(parseIgnore(data, base, ""))
	}
	return rs, rp
}

// findEntry finds name in entries sorted by name.
func findEntry(ents []fs.DirEntry, name string) (int, bool) {
	lo, hi := 0, len(ents)
	for lo < hi {
		m := (lo + hi) / 2
		if ents[m].Name() < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(ents) && ents[lo].Name() == name
}

// load lists n if nobody has claimed it yet, or waits for whoever did.
// It then queues n's subfolders for reading ahead.
func (w *walker) load(n *node) {
	if !n.claimed.CompareAndSwap(false, true) {
		<-n.done
		return
	}
	defer close(n.done)
	ents, err := fs.ReadDir(w.fsys, n.path)
	if err != nil && len(ents) == 0 {
		n.err = err
		return
	}
	rs, rp := w.inside(n, ents)
	n.ents = make([]entry, 0, len(ents))
	var children []*node
	for _, d := range ents {
		name := d.Name()
		if name == ".git" {
			continue
		}
		p := joinPath(n.path, name)
		isDir := d.IsDir()
		e := entry{d: d, path: p}
		only := false
		switch {
		case w.opts.IncludeIgnored:
		case n.only || rs.excludes(p, name, isDir):
			// git lists what it tracks whatever the rules say.
			switch {
			case rp.isTracked(p):
			case isDir && rp.holdsTracked(p):
				only = true
			default:
				e.ignored = true
			}
		}
		if isDir && !e.ignored {
			if w.opts.Descend == nil || w.opts.Descend(p) {
				e.child = &node{path: p, inherit: rs, repo: rp, only: only, done: make(chan struct{})}
				children = append(children, e.child)
			}
		}
		n.ents = append(n.ents, e)
	}
	w.queue(children, len(n.ents))
}

func joinPath(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// queue offers the subfolders of a folder just listed to the workers,
// first one on top, while the read-ahead budget lasts.
func (w *walker) queue(children []*node, listed int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.listed += listed
	if w.stopped || w.listed-w.visited > readAhead || len(children) == 0 {
		return
	}
	for i := len(children) - 1; i >= 0; i-- {
		w.stack = append(w.stack, children[i])
	}
	w.cond.Broadcast()
}

// work reads folders ahead until the walk ends.
func (w *walker) work() {
	for {
		w.mu.Lock()
		for len(w.stack) == 0 && !w.stopped {
			w.cond.Wait()
		}
		if w.stopped {
			w.mu.Unlock()
			return
		}
		n := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		w.mu.Unlock()
		if !n.claimed.Load() {
			w.load(n)
		}
	}
}

// close stops the workers and waits for them.
func (w *walker) close() {
	w.mu.Lock()
	w.stopped = true
	w.stack = nil
	w.cond.Broadcast()
	w.mu.Unlock()
	w.wg.Wait()
}

// visit calls fn for the entries of n and, depth first, of its
// subfolders.
func (w *walker) visit(ctx context.Context, n *node, st *Stats, fn func(string, fs.DirEntry) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ents := n.ents
	n.ents = nil // what has been visited can be freed
	w.mu.Lock()
	w.visited += len(ents)
	w.mu.Unlock()
	for _, e := range ents {
		p := e.path
		if e.ignored {
			if e.d.IsDir() {
				st.IgnoredDirs++
				p += "/"
			} else {
				st.IgnoredFiles++
			}
			if len(st.IgnoredSample) < sampleSize {
				st.IgnoredSample = append(st.IgnoredSample, p)
			}
			continue
		}
		st.Entries++
		if w.opts.MaxEntries > 0 && st.Entries > w.opts.MaxEntries {
			st.Entries--
			st.Stopped = true
			return errStop
		}
		if st.Entries%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		switch err := fn(p, e.d); {
		case err == nil:
		case errors.Is(err, fs.SkipDir):
			if e.d.IsDir() {
				continue
			}
			return nil
		case errors.Is(err, fs.SkipAll):
			return errStop
		default:
			return err
		}
		if e.child != nil {
			w.load(e.child)
			if e.child.err != nil {
				st.Unreadable++
				continue
			}
			if err := w.visit(ctx, e.child, st, fn); err != nil {
				return err
			}
		}
	}
	return nil
}
