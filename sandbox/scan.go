package sandbox

import (
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The scan for repositories (dotGits) runs before and after every confined
// command, and reading every folder of a big tree costs far more than the
// command's start. treeCache keeps, per folder, the few things the scan
// looks at in it (its sub-folders, a `.git` entry, whether it is a git
// directory), and reads a folder again only when it may have changed.
//
// Why a folder's stamp is enough: adding, removing or renaming an entry in
// a folder sets the folder's ctime (and mtime) to the current time, which
// no command can set back or choose; a folder removed and another made at
// the same path (or with the same inode number) gets a new ctime too. So
// if a folder's (device, inode, ctime, mtime, size, links) is what it was
// when it was stat'ed just before being read, nothing was added to it or
// taken from it since, and its entries are the ones kept. Every folder the
// scan reaches is stat'ed each time: a stamp checked at the top of the tree
// only would miss a `.git` made deep inside it.
//
// Where this fails, the cache is not used (fail closed, as the scan was):
//   - a change within the clock tick of the stat leaves the ctime as it
//     was: a folder whose ctime is within racySlack of its read is never
//     trusted, and is read again every time;
//   - file systems whose times this kernel does not set at each change
//     (network and FUSE file systems, whose server sets them; and any type
//     not on localFS's list) are read every time;
//   - the clock going back (an NTP step, a date set by hand) could give a
//     change an old ctime: a scan that sees the clock before the last one
//     empties the cache.
//
// Only the user's own namespace is trusted to mount things in the tree;
// a confined command's mounts stay in its private namespace.
//
// Not by name instead: Landlock and bind mounts protect paths known
// beforehand and cannot deny `.git` wherever it appears, and guarding
// only the git myclaw runs would leave the git the user runs in that
// folder; so the protection stays the list this scan makes.
type treeCache struct {
	mu sync.Mutex
	// dirs is what each folder held when read, by path.
	dirs map[string]*dirInfo
	// last is when the last scan began.
	last time.Time
	// now is the clock (tests move it).
	now func() time.Time
	// reads counts the folders read (not taken from the cache), for tests.
	reads int
}

// racySlack: a folder changed this close to its read is not trusted. It
// covers the coarse clock the kernel stamps times with (a few ms) and the
// one-second times of older ext3/ext4 inodes, with room to spare.
const racySlack = 3 * time.Second

// stamp is what a folder's stat says of its identity and its last change.
type stamp struct {
	dev, ino     uint64
	ctime, mtime int64 // ns since the epoch
	size         int64
	nlink        uint64
}

// dirInfo is what the scan needs of one folder.
type dirInfo struct {
	st      stamp
	trusted bool
	// subdirs are the names of its sub-folders (not links), sorted.
	subdirs []string
	// dotGit: it has an entry named .git (of any kind).
	dotGit bool
	// gitDir: it holds a HEAD, and refs or a commondir (bareGitDir).
	gitDir bool
}

// dotGits returns every `.git` (folder, link or gitdir file) in root's
// tree, and every folder git itself would take for a git directory (a bare
// repository), root's own first, within walkLimit folders. c may be nil:
// then every folder is read.
//
// A folder changed since made (its ctime, which no command can set back,
// at or after it; zero is never) does not count against the bound: a
// command cannot hide a repository it made behind folders it made.
func (c *treeCache) dotGits(root string, made time.Time) []string {
	var next map[string]*dirInfo
	start := time.Now()
	if c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.now != nil {
			start = c.now()
		}
		if start.Before(c.last) {
			c.dirs = nil // the clock went back: no stamp can be trusted
		}
		c.last = start
		next = map[string]*dirInfo{}
	}
	var out []string
	queue, seen := []string{root}, 0
	for len(queue) > 0 && seen < walkLimit {
		dir := queue[0]
		queue = queue[1:]
		d, st, ok := c.read(dir, start)
		if made.IsZero() || !changed(dir, st, ok, made) {
			seen++
		}
		if d == nil {
			continue
		}
		if next != nil && d.trusted {
			next[dir] = d
		}
		if d.gitDir {
			out = append(out, dir)
		}
		if d.dotGit {
			out = append(out, filepath.Join(dir, ".git"))
		}
		for _, name := range d.subdirs {
			if !skipDirs[name] {
				queue = append(queue, filepath.Join(dir, name))
			}
		}
	}
	if c != nil {
		// Folders not reached this time are forgotten.
		c.dirs = next
	}
	return out
}

// changed reports whether dir changed at or after made, by its stamp
// when there is one.
func changed(dir string, st stamp, ok bool, made time.Time) bool {
	if !ok {
		return changedSince(dir, made)
	}
	return st.ctime >= made.UnixNano()
}

// read returns what dir holds (nil when it cannot be read) and its stamp
// (ok false when there is none): the cached one when its stamp is the
// same and was trusted, else read now.
func (c *treeCache) read(dir string, start time.Time) (*dirInfo, stamp, bool) {
	st, ok := dirStamp(dir)
	if c != nil && ok {
		if old := c.dirs[dir]; old != nil && old.st == st {
			return old, st, true
		}
	}
	// The stat comes before the read: a change after it, even one the
	// read saw, makes the next stamp differ.
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, st, ok
	}
	if c != nil {
		c.reads++
	}
	d := &dirInfo{st: st}
	var head, refs bool
	for _, e := range entries {
		name := e.Name()
		switch name {
		case ".git":
			d.dotGit = true
			continue // never entered: what it holds is gitDirOf's
		case "HEAD":
			head = true
		case "refs", "commondir":
			refs = true
		}
		if e.IsDir() { // a link is not a dir here
			d.subdirs = append(d.subdirs, name)
		}
	}
	d.gitDir = head && refs
	d.trusted = ok && st.ctime < start.Add(-racySlack).UnixNano() && localFS(dir)
	return d, st, ok
}
