package snapshot

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

// walkers is how many folders are read at once.
var walkers = max(2, runtime.NumCPU())

// entry is one name a folder listed, as stat'ed.
type entry struct {
	rel    string
	file   File
	target string // a link's
}

// listing is what the walk found in one folder.
type listing struct {
	entries  []entry
	excluded []string
}

// walker is one capture's walk. Folders are read concurrently, up to
// walkers at a time; each reader keeps what it found to itself and hands
// it over once per folder, so the readers share no lock per file. The
// snapshot is assembled after, by one goroutine.
type walker struct {
	t     *Tracker
	ctx   context.Context
	sem   chan struct{}
	wg    sync.WaitGroup
	count atomic.Int64 // entries found, to stop descending past MaxFiles

	mu       sync.Mutex
	listings []listing
	err      error
}

// walk reads the tree and compares it with the last capture. It returns
// the snapshot and the files whose contents must be read.
func (t *Tracker) walk(ctx context.Context) (*Snapshot, []string, error) {
	w := &walker{t: t, ctx: ctx, sem: make(chan struct{}, walkers)}
	w.wg.Add(1)
	w.dir(t.opts.Root, "")
	w.wg.Wait()
	if w.err != nil {
		return nil, nil, w.err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	n := 0
	for _, l := range w.listings {
		n += len(l.entries)
	}
	n = min(n, t.opts.MaxFiles)
	s := &Snapshot{Files: make(map[string]File, n), Dirs: map[string]fs.FileMode{}, Other: map[string]Special{}}
	var toKeep []string
	count := 0
	for _, l := range w.listings {
		s.Excluded = append(s.Excluded, l.excluded...)
		for _, e := range l.entries {
			if count++; count > t.opts.MaxFiles {
				s.Truncated = true
				break
			}
			cur := e.file
			switch {
			case cur.Mode.IsDir():
				s.Dirs[e.rel] = cur.Mode.Perm()
				continue
			case !cur.Mode.IsRegular():
				s.Other[e.rel] = Special{Mode: cur.Mode, Target: e.target, Dev: cur.Dev, Ino: cur.Ino}
				continue
			}
			if prev, ok := t.last[e.rel]; ok && prev.sameStat(cur) && prev.SHA256 != "" && t.trusted(prev) {
				s.Files[e.rel] = prev
				continue
			}
			if cur.Size > t.opts.MaxFileBytes {
				cur.Why = fmt.Sprintf("over the %s cap", humanSize(t.opts.MaxFileBytes))
			} else {
				toKeep = append(toKeep, e.rel)
			}
			s.Files[e.rel] = cur
		}
	}
	if w.count.Load() > int64(t.opts.MaxFiles) {
		s.Truncated = true
	}
	return s, toKeep, nil
}

func (w *walker) dir(abs, rel string) {
	defer w.wg.Done()
	w.sem <- struct{}{}
	// Names only, unsorted (the captures are maps), each stat'ed relative
	// to the open folder, not by its whole path: the stat gives the type,
	// so a folder costs no extra lstat.
	d, err := os.Open(abs)
	var names []string
	if err == nil {
		names, err = d.Readdirnames(-1)
	}
	if err != nil {
		if d != nil {
			d.Close()
		}
		<-w.sem
		if rel == "" {
			w.fail(err)
		}
		// A folder that vanished or cannot be read is simply not there
		// for this capture.
		return
	}
	l := listing{entries: make([]entry, 0, len(names))}
	var subdirs []entry
	limit := int64(w.t.opts.MaxFiles)
	for _, name := range names {
		if w.ctx.Err() != nil || w.count.Load() > limit {
			break
		}
		f, err := statAt(d, name)
		if err != nil {
			continue // gone since the listing
		}
		r := name
		if rel != "" {
			r = rel + "/" + name
		}
		if f.Mode.IsDir() && w.t.opts.Exclude != nil {
			if why := w.t.opts.Exclude(r); why != "" {
				l.excluded = append(l.excluded, r+"/ ("+why+")")
				continue
			}
		}
		w.count.Add(1)
		e := entry{rel: r, file: f}
		if f.Mode&fs.ModeSymlink != 0 {
			if e.target, err = readlinkAt(d, name); err != nil {
				continue // gone since the stat
			}
		}
		l.entries = append(l.entries, e)
		if f.Mode.IsDir() {
			subdirs = append(subdirs, e)
		}
	}
	d.Close()
	<-w.sem
	w.mu.Lock()
	w.listings = append(w.listings, l)
	w.mu.Unlock()
	for _, sub := range subdirs {
		if w.ctx.Err() != nil {
			return
		}
		w.wg.Add(1)
		go w.dir(filepath.Join(abs, filepath.Base(filepath.FromSlash(sub.rel))), sub.rel)
	}
}

func (w *walker) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
}
