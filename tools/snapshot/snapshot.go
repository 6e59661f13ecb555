// Package snapshot finds what a command changed in a directory tree, and
// keeps the prior contents of the files it changed.
//
// A Tracker walks the tree and records each regular file's stat tuple (size,
// modification time, mode, inode and change time where the OS has them) and
// the SHA-256 of its content, copied into a content cache. A file whose
// tuple is unchanged since the last capture is not read again, as git's
// index does (unless it was changed just before that capture: see
// racySlack), so a capture of an unchanged tree costs a walk and a stat per
// file. Comparing the captures taken before and after a command gives every
// file it created, modified, deleted, renamed or chmodded, with the prior
// content already in the cache.
//
// The walk is its own, not tools/walk's: a command may change or delete
// files git ignores (.env, build output, caches), and undo must restore
// them, so every file is captured but what Options.Exclude leaves out.
//
// The cache is not durable (no fsync): it serves the capture that follows.
// What an undo needs later must be copied into a durable store by the caller.
//
// A Tracker is safe for concurrent use; captures are serialised.
package snapshot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Defaults for Options.
const (
	DefaultMaxFileBytes  = 8 << 20
	DefaultMaxTotalBytes = 1 << 30
	DefaultMaxFiles      = 200_000
)

// Options configures a Tracker.
type Options struct {
	// Root is the absolute directory tracked.
	Root string
	// CacheDir holds the content cache (created on demand).
	CacheDir string
	// MaxFileBytes: a larger file is tracked by its stat tuple only, and a
	// change to it is reported as not covered.
	MaxFileBytes int64
	// MaxTotalBytes bounds what one capture copies into the cache; past it,
	// new contents are not kept (and their changes are not covered).
	MaxTotalBytes int64
	// MaxFiles bounds the number of entries one capture records.
	MaxFiles int
	// Exclude reports whether a directory (rel is slash-separated, relative
	// to Root) is left out of the capture, and why ("" keeps it). The
	// excluded directories found are listed in the Snapshot.
	Exclude func(rel string) string
}

// File is one regular file as a capture saw it.
type File struct {
	Size    int64
	ModTime int64 // nanoseconds
	Mode    fs.FileMode
	Ino     uint64
	Dev     uint64 // the device holding Ino; not compared (see sameStat)
	Ctime   int64
	// SHA256 names the content in the cache; empty when it was not kept,
	// with the reason in Why.
	SHA256 string
	Why    string
}

func (f File) sameStat(g File) bool {
	return f.Size == g.Size && f.ModTime == g.ModTime && f.Mode == g.Mode && f.Ino == g.Ino && f.Ctime == g.Ctime
}

// Snapshot is one capture of the tree.
type Snapshot struct {
	Files map[string]File
	Dirs  map[string]fs.FileMode // permission bits
	// Other holds symbolic links and special files.
	Other map[string]Special
	// Excluded lists the directories left out, as "rel/ (why)", sorted.
	Excluded []string
	// Truncated says the capture stopped at MaxFiles.
	Truncated bool
}

// Special is a symbolic link or a special file (named pipe, socket,
// device) as a capture saw it: enough for undo to tell that what is at its
// path is still the very entry a command left there.
type Special struct {
	Mode   fs.FileMode // type and permission bits
	Target string      // a link's target
	// Dev and Ino identify a special file (not a link: a link is told by
	// its target, which a command can only set by making it again).
	Dev, Ino uint64
}

// same reports whether s and o are the same entry for undo: the same
// type, and the same target for a link or the same inode otherwise.
func (s Special) same(o Special) bool {
	if s.Mode.Type() != o.Mode.Type() {
		return false
	}
	if s.Mode&fs.ModeSymlink != 0 {
		return s.Target == o.Target
	}
	return s.Dev == o.Dev && s.Ino == o.Ino
}

// Tracker captures a tree repeatedly, reusing what it read before.
type Tracker struct {
	opts Options
	mu   sync.Mutex
	last map[string]File
	// refs counts the files of last that hold each cached content; garbage
	// is what the last capture stopped referring to. It is dropped at the
	// start of the next capture, so the contents a caller reads between two
	// captures (the state before a command) stay until then.
	refs    map[string]int
	garbage []string

	// The cache is one pack file that contents are appended to: a first
	// capture of many small files then costs a read of each, not a file
	// created for each. Dead bytes are reclaimed by rewriting the pack.
	pack  *os.File
	spans map[string]span
	end   int64
	dead  int64

	// lastAt is when the last capture began; racy is how close to it a
	// file's change may be for its stat tuple still to be trusted.
	lastAt time.Time
	racy   time.Duration
	reads  int // files read into the cache, for the tests
}

// racySlack: a file changed this close to a capture may change again
// with the same stat tuple, as git's index knows ("racily clean"): the
// kernel stamps changes from a clock that ticks every few milliseconds,
// and some filesystems keep whole seconds. Such a file is read again at
// the next capture, whatever its tuple says.
const racySlack = 3 * time.Second

// trusted reports whether a file's stat tuple, as the last capture saw
// it, vouches for its content: it was last changed well before that
// capture began, so any later change has a later stamp.
func (t *Tracker) trusted(f File) bool {
	return max(f.Ctime, f.ModTime) < t.lastAt.Add(-t.racy).UnixNano()
}

type span struct{ off, n int64 }

// New returns a Tracker with the defaults filled in.
func New(opts Options) *Tracker {
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = DefaultMaxFileBytes
	}
	if opts.MaxTotalBytes <= 0 {
		opts.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = DefaultMaxFiles
	}
	return &Tracker{opts: opts, last: map[string]File{}, refs: map[string]int{}, spans: map[string]span{}, racy: racySlack}
}

// Options returns the tracker's options with defaults filled in.
func (t *Tracker) Options() Options { return t.opts }

// Close removes the content cache.
func (t *Tracker) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.last, t.refs, t.garbage, t.spans, t.end, t.dead = map[string]File{}, map[string]int{}, nil, map[string]span{}, 0, 0
	if t.pack != nil {
		t.pack.Close()
		t.pack = nil
	}
	return os.RemoveAll(t.opts.CacheDir)
}

// Capture walks the tree and returns what is there now. Files whose stat
// tuple changed since the last capture are read and their content cached.
//
// Every file is stat'ed at every capture: a write into a file changes its
// own stamps only, never its folder's, so no folder stamp can vouch for
// the files in it. What a capture saves is the rest: a file whose tuple is
// unchanged is not read, and the walk itself does no more than a listing
// per folder and an fstatat per entry (see walk.go).
func (t *Tracker) Capture(ctx context.Context) (*Snapshot, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.openPack(); err != nil {
		return nil, err
	}
	for _, sum := range t.garbage {
		if sp, ok := t.spans[sum]; ok && t.refs[sum] == 0 {
			delete(t.spans, sum)
			t.dead += sp.n
		}
	}
	t.garbage = nil
	if err := t.compact(); err != nil {
		return nil, err
	}
	root := t.opts.Root
	if _, err := os.Lstat(root); err != nil {
		return nil, err
	}
	start := time.Now()
	s, toKeep, err := t.walk(ctx)
	if err != nil {
		return nil, err
	}
	// Contents are kept after the walk, one at a time: the pack is appended
	// to in order and the budget is spent deterministically.
	sort.Strings(toKeep)
	budget := t.opts.MaxTotalBytes
	for _, rel := range toKeep {
		f := s.Files[rel]
		switch {
		case f.Size > budget:
			f.Why = "over the capture budget"
		default:
			sum, n, err := t.keep(filepath.Join(root, filepath.FromSlash(rel)))
			if err != nil {
				f.Why = "unreadable: " + err.Error()
			} else {
				f.SHA256 = sum
				budget -= n
			}
		}
		s.Files[rel] = f
	}
	sort.Strings(s.Excluded)
	t.swap(s.Files)
	t.lastAt = start
	return s, nil
}

// swap makes files the last capture and collects the contents no file
// refers to any more.
func (t *Tracker) swap(files map[string]File) {
	refs := make(map[string]int, len(files))
	for _, f := range files {
		if f.SHA256 != "" {
			refs[f.SHA256]++
		}
	}
	for sum := range t.refs {
		if refs[sum] == 0 {
			t.garbage = append(t.garbage, sum)
		}
	}
	t.last, t.refs = files, refs
}

func (t *Tracker) openPack() error {
	if t.pack != nil {
		return nil
	}
	if err := os.MkdirAll(t.opts.CacheDir, 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(t.opts.CacheDir, "pack"), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	t.pack, t.spans, t.end, t.dead = f, map[string]span{}, 0, 0
	return nil
}

// compact rewrites the pack without its dead bytes once they outweigh the
// live ones.
func (t *Tracker) compact() error {
	if t.dead < 64<<20 || t.dead < t.end-t.dead {
		now := time.Now()
		_ = os.Chtimes(t.opts.CacheDir, now, now) // tells pruning it is in use
		return nil
	}
	next, err := os.CreateTemp(t.opts.CacheDir, "pack-*")
	if err != nil {
		return err
	}
	var off int64
	spans := make(map[string]span, len(t.spans))
	for sum, sp := range t.spans {
		if _, err := io.Copy(io.NewOffsetWriter(next, off), io.NewSectionReader(t.pack, sp.off, sp.n)); err != nil {
			next.Close()
			os.Remove(next.Name())
			return err
		}
		spans[sum] = span{off, sp.n}
		off += sp.n
	}
	if err := os.Rename(next.Name(), filepath.Join(t.opts.CacheDir, "pack")); err != nil {
		next.Close()
		os.Remove(next.Name())
		return err
	}
	t.pack.Close()
	t.pack, t.spans, t.end, t.dead = next, spans, off, 0
	return nil
}

// keep appends the file at p to the pack, hashing it on the way, and
// returns its SHA-256 and size. Content already in the pack is not kept
// twice: the next append overwrites the bytes just written.
func (t *Tracker) keep(p string) (string, int64, error) {
	src, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer src.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(io.NewOffsetWriter(t.pack, t.end), h), io.LimitReader(src, t.opts.MaxFileBytes+1))
	if err != nil {
		return "", 0, err
	}
	if n > t.opts.MaxFileBytes {
		return "", 0, fmt.Errorf("grew past the %s cap while read", humanSize(t.opts.MaxFileBytes))
	}
	t.reads++
	sum := hex.EncodeToString(h.Sum(nil))
	if _, ok := t.spans[sum]; !ok {
		t.spans[sum] = span{t.end, n}
		t.end += n
	}
	return sum, n, nil
}

// Content returns the cached content named by sum, checked against it.
func (t *Tracker) Content(sum string) ([]byte, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	sp, ok := t.spans[sum]
	if !ok || t.pack == nil {
		return nil, fmt.Errorf("content %.12s is not in the cache", sum)
	}
	data := make([]byte, sp.n)
	if _, err := t.pack.ReadAt(data, sp.off); err != nil {
		return nil, fmt.Errorf("cached content %.12s: %w", sum, err)
	}
	h := sha256.Sum256(data)
	if hex.EncodeToString(h[:]) != sum {
		return nil, fmt.Errorf("cached content %.12s changed on disk", sum)
	}
	return data, nil
}

// Change is one path that differs between two captures. Before or After is
// nil where the file did not exist.
type Change struct {
	Path          string
	Before, After *File
}

// Covered reports whether the prior and new contents are both known, so
// the change can be undone and redone.
func (c Change) Covered() bool {
	return (c.Before == nil || c.Before.SHA256 != "") && (c.After == nil || c.After.SHA256 != "")
}

// Delta is what changed between two captures.
type Delta struct {
	Files []Change // sorted by path
	// CreatedDirs and RemovedDirs are sorted parents first.
	CreatedDirs []string
	RemovedDirs []string
	// DirModes holds the permission bits of the removed folders.
	DirModes map[string]fs.FileMode
	// Other lists the symbolic links and special files that appeared,
	// disappeared or were replaced, sorted by path.
	Other []OtherChange
}

// OtherChange is one link or special file that changed. Before or After
// is nil where there was none (perhaps a regular file or a folder, which
// Files and the folder lists name).
type OtherChange struct {
	Path          string
	Before, After *Special
}

// Empty reports whether nothing changed.
func (d Delta) Empty() bool {
	return len(d.Files) == 0 && len(d.CreatedDirs) == 0 && len(d.RemovedDirs) == 0 && len(d.Other) == 0
}

// Diff compares two captures of the same tree.
func Diff(before, after *Snapshot) Delta {
	var d Delta
	for p, a := range after.Files {
		a := a
		b, ok := before.Files[p]
		switch {
		case !ok:
			d.Files = append(d.Files, Change{Path: p, After: &a})
		// Contents known on both sides are compared even under the same
		// tuple: a racily clean file is read again for that.
		case !b.sameStat(a) && (b.SHA256 == "" || a.SHA256 == "" || b.SHA256 != a.SHA256 || b.Mode != a.Mode),
			b.SHA256 != "" && a.SHA256 != "" && b.SHA256 != a.SHA256:
			b := b
			d.Files = append(d.Files, Change{Path: p, Before: &b, After: &a})
		}
	}
	for p, b := range before.Files {
		if _, ok := after.Files[p]; !ok {
			b := b
			d.Files = append(d.Files, Change{Path: p, Before: &b})
		}
	}
	sort.Slice(d.Files, func(i, j int) bool { return d.Files[i].Path < d.Files[j].Path })
	for p := range after.Dirs {
		if _, ok := before.Dirs[p]; !ok {
			d.CreatedDirs = append(d.CreatedDirs, p)
		}
	}
	for p, m := range before.Dirs {
		if _, ok := after.Dirs[p]; !ok {
			d.RemovedDirs = append(d.RemovedDirs, p)
			if d.DirModes == nil {
				d.DirModes = map[string]fs.FileMode{}
			}
			d.DirModes[p] = m
		}
	}
	sortParentsFirst(d.CreatedDirs)
	sortParentsFirst(d.RemovedDirs)
	for p, a := range after.Other {
		a := a
		switch b, ok := before.Other[p]; {
		case !ok:
			d.Other = append(d.Other, OtherChange{Path: p, After: &a})
		case !b.same(a):
			d.Other = append(d.Other, OtherChange{Path: p, Before: &b, After: &a})
		}
	}
	for p, b := range before.Other {
		if _, ok := after.Other[p]; !ok {
			b := b
			d.Other = append(d.Other, OtherChange{Path: p, Before: &b})
		}
	}
	sort.Slice(d.Other, func(i, j int) bool { return d.Other[i].Path < d.Other[j].Path })
	return d
}

// sortParentsFirst orders slash paths so that a folder comes before what it
// holds.
func sortParentsFirst(ps []string) {
	sort.Slice(ps, func(i, j int) bool {
		di, dj := strings.Count(ps[i], "/"), strings.Count(ps[j], "/")
		if di != dj {
			return di < dj
		}
		return ps[i] < ps[j]
	})
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%d GB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
