package ui

import (
	"context"
	"io/fs"
	"sort"
	"strings"
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/tools/termtext"
	"myclaw/tools/walk"
)

// The @ completion lists the workspace's files from an index built in the
// background (a Cmd walks the tree and returns the list as a message) and
// built again when it is older than indexMaxAge as the popup opens.
const (
	indexMaxAge = 10 * time.Second
	// indexMaxEntries bounds one walk, so a huge tree answers with a
	// partial index instead of taking minutes.
	indexMaxEntries = 200_000
	// indexTimeout bounds one walk's time.
	indexTimeout = 20 * time.Second
)

// fileIndex is the list of workspace paths (folders end in "/") and their
// lowercase forms for matching. It belongs to the Bubble Tea goroutine.
type fileIndex struct {
	paths []string
	lower []string
	// masks say which characters each path holds (see charMask), so most
	// paths that cannot match are passed over with one AND.
	masks   []uint64
	built   time.Time
	pending bool // a walk is under way
	partial bool // the walk stopped at indexMaxEntries
}

// indexBuiltMsg brings a fresh index.
type indexBuiltMsg struct {
	paths   []string
	partial bool
	at      time.Time
}

// buildIndex walks fsys, the folder dir on disk ("" when it is not one),
// in a Cmd.
func buildIndex(base context.Context, fsys fs.FS, dir string) tea.Cmd {
	if fsys == nil {
		return nil
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(base, indexTimeout)
		defer cancel()
		paths, partial := walkWorkspace(ctx, fsys, dir, indexMaxEntries)
		return indexBuiltMsg{paths: paths, partial: partial, at: time.Now()}
	}
}

func (ix *fileIndex) set(msg indexBuiltMsg) {
	ix.paths, ix.built, ix.pending, ix.partial = msg.paths, msg.at, false, msg.partial
	ix.lower = make([]string, len(msg.paths))
	ix.masks = make([]uint64, len(msg.paths))
	for i, p := range msg.paths {
		ix.lower[i] = asciiLower(p)
		ix.masks[i] = charMask(ix.lower[i])
	}
}

// charMask has a bit per letter and digit, and one for every other byte.
func charMask(s string) uint64 {
	var m uint64
	for i := 0; i < len(s); i++ {
		m |= 1 << charBit(s[i])
	}
	return m
}

func charBit(c byte) uint {
	switch {
	case c >= 'a' && c <= 'z':
		return uint(c - 'a')
	case c >= '0' && c <= '9':
		return 26 + uint(c-'0')
	case c == '.':
		return 36
	case c == '_':
		return 37
	case c == '-':
		return 38
	case c == '/':
		return 39
	}
	return 40
}

// stale reports whether the index should be built again.
func (ix *fileIndex) stale(now time.Time) bool {
	return !ix.pending && now.Sub(ix.built) > indexMaxAge
}

func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// match ranks the paths against a fuzzy query (its characters in order,
// not necessarily together) and returns the best n, best first. Matches
// at the start of a name or word, runs of consecutive characters and
// matches in the file name itself rank higher; shorter paths win ties.
// An empty query lists the shortest paths.
func (ix *fileIndex) match(query string, n int) []string {
	q := asciiLower(query)
	type hit struct {
		i     int
		score int
	}
	top := make([]hit, 0, n+1)
	qm := charMask(q)
	for i, p := range ix.lower {
		if ix.masks[i]&qm != qm {
			continue
		}
		s, ok := fuzzyScore(p, q)
		if !ok {
			continue
		}
		if len(top) == n && !better(s, len(p), top[n-1].score, len(ix.lower[top[n-1].i])) {
			continue
		}
		// Insert in order: n is small.
		k := len(top)
		top = append(top, hit{i, s})
		for k > 0 && better(s, len(p), top[k-1].score, len(ix.lower[top[k-1].i])) {
			top[k] = top[k-1]
			k--
		}
		top[k] = hit{i, s}
		if len(top) > n {
			top = top[:n]
		}
	}
	out := make([]string, len(top))
	for k, h := range top {
		out[k] = ix.paths[h.i]
	}
	return out
}

// better orders hits: higher score, then the shorter path.
func better(s, l, s2, l2 int) bool {
	return s > s2 || s == s2 && l < l2
}

// fuzzyScore scores p (lowercase) against q (lowercase); ok is false when
// q's characters do not all occur in p in order.
func fuzzyScore(p, q string) (int, bool) {
	if q == "" {
		return 0, true
	}
	if !subseq(p, q) {
		return 0, false
	}
	name := strings.LastIndexByte(strings.TrimSuffix(p, "/"), '/') + 1
	score := 0
	// A contiguous match in the file name beats everything else; where it
	// starts a name or a word it ranks higher.
	if k := strings.Index(p[name:], q); k >= 0 {
		score = 200
		if k == 0 || strings.IndexByte("_-. ", p[name+k-1]) >= 0 {
			score += 50
		}
		return score + 4*len(q), true
	}
	if strings.Contains(p, q) {
		score += 40
	}
	// Greedy scan from the right place: prefer the file name when the
	// query fits there.
	start := 0
	if subseq(p[name:], q) {
		start = name
		score += 20
	}
	j, prev := 0, -2
	for i := start; i < len(p) && j < len(q); i++ {
		if p[i] != q[j] {
			continue
		}
		score++
		if i == 0 || strings.IndexByte("/_-. ", p[i-1]) >= 0 {
			score += 6
		}
		if prev == i-1 {
			score += 4
		}
		prev = i
		j++
	}
	return score, true
}

// subseq reports whether q's bytes occur in p in order.
func subseq(p, q string) bool {
	for j := 0; j < len(q); j++ {
		k := strings.IndexByte(p, q[j])
		if k < 0 {
			return false
		}
		p = p[k+1:]
	}
	return true
}

// walkWorkspace lists the files and folders of fsys (folders with a
// trailing "/"), sorted, as tools/walk lists them for glob_list and
// grep_search: what git would not list is left out, folders included. dir
// is fsys's folder on disk, for the repository around it ("" for none).
// It stops after limit entries (partial is then true).
func walkWorkspace(ctx context.Context, fsys fs.FS, dir string, limit int) (paths []string, partial bool) {
	opts := walk.Options{MaxEntries: limit, Excludes: walk.UserExcludes()}
	if dir != "" {
		opts.Repo = walk.OpenRepo(dir, opts.Excludes)
	}
	st, _ := walk.Walk(ctx, fsys, opts, func(p string, d fs.DirEntry) error {
		if !mentionable(p) {
			return nil
		}
		if d.IsDir() {
			p += "/"
		}
		paths = append(paths, p)
		return nil
	})
	sort.Strings(paths)
	return paths, st.Stopped
}

// mentionable reports whether an @mention can name p: a mention ends at
// the first blank, so a name holding one (a line break, a tab) or a
// character that does not show as itself would complete into a prompt
// that names something else, or type a raw line break into it.
func mentionable(p string) bool {
	return !strings.ContainsFunc(p, unicode.IsSpace) && !termtext.HasHidden(p)
}
