package ui

import (
	"bufio"
	"context"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
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

// buildIndex walks fsys in a Cmd.
func buildIndex(base context.Context, fsys fs.FS) tea.Cmd {
	if fsys == nil {
		return nil
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(base, indexTimeout)
		defer cancel()
		paths, partial := walkWorkspace(ctx, fsys, indexMaxEntries)
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
// trailing "/"), sorted, leaving out .git and what .gitignore files
// exclude. It stops after max entries (partial is then true).
//
// The .gitignore support is deliberately simple: patterns with *, ? and
// [..] per name, a leading / or an inner / anchoring to the file's folder,
// a trailing / for folders only, **/ and /** around, and ! to re-include.
func walkWorkspace(ctx context.Context, fsys fs.FS, max int) (paths []string, partial bool) {
	var walk func(dir string, rules []ignoreRule)
	walk = func(dir string, rules []ignoreRule) {
		if partial || ctx.Err() != nil {
			return
		}
		rules = append(rules[:len(rules):len(rules)], readIgnore(fsys, dir)...)
		entries, err := fs.ReadDir(fsys, dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			name := e.Name()
			rel := name
			if dir != "." {
				rel = dir + "/" + name
			}
			isDir := e.IsDir()
			if name == ".git" || ignored(rules, rel, isDir) {
				continue
			}
			if len(paths) >= max {
				partial = true
				return
			}
			if isDir {
				paths = append(paths, rel+"/")
				walk(rel, rules)
			} else {
				paths = append(paths, rel)
			}
		}
	}
	walk(".", nil)
	sort.Strings(paths)
	return paths, partial
}

// ignoreRule is one .gitignore line, relative to the folder holding it.
type ignoreRule struct {
	dir      string // "." or the folder of the .gitignore
	pattern  string
	anchored bool
	dirOnly  bool
	negate   bool
}

func readIgnore(fsys fs.FS, dir string) []ignoreRule {
	f, err := fsys.Open(path.Join(dir, ".gitignore"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []ignoreRule
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimRight(sc.Text(), " \r")
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		r := ignoreRule{dir: dir}
		if strings.HasPrefix(l, "!") {
			r.negate, l = true, l[1:]
		}
		l = strings.TrimPrefix(l, `\`)
		if strings.HasSuffix(l, "/") {
			r.dirOnly, l = true, strings.TrimSuffix(l, "/")
		}
		if strings.HasPrefix(l, "**/") {
			l = l[3:]
		} else if strings.Contains(l, "/") {
			r.anchored, l = true, strings.TrimPrefix(l, "/")
		}
		if l == "" {
			continue
		}
		r.pattern = l
		out = append(out, r)
	}
	return out
}

// ignored applies the rules, the last matching one deciding.
func ignored(rules []ignoreRule, rel string, isDir bool) bool {
	out := false
	for _, r := range rules {
		if r.dirOnly && !isDir {
			continue
		}
		sub := rel
		if r.dir != "." {
			if !strings.HasPrefix(rel, r.dir+"/") {
				continue
			}
			sub = rel[len(r.dir)+1:]
		}
		if r.matches(sub) {
			out = !r.negate
		}
	}
	return out
}

func (r ignoreRule) matches(sub string) bool {
	if !r.anchored {
		ok, _ := path.Match(r.pattern, path.Base(sub))
		return ok
	}
	if strings.HasSuffix(r.pattern, "/**") {
		prefix := strings.TrimSuffix(r.pattern, "/**")
		ok, _ := path.Match(prefix, firstSegments(sub, strings.Count(prefix, "/")+1))
		return ok && strings.Count(sub, "/") > strings.Count(prefix, "/")
	}
	ok, _ := path.Match(r.pattern, sub)
	return ok
}

// firstSegments is the first n slash-separated segments of p.
func firstSegments(p string, n int) string {
	i := 0
	for k := 0; k < n; k++ {
		j := strings.IndexByte(p[i:], '/')
		if j < 0 {
			return p
		}
		i += j + 1
	}
	return p[:i-1]
}
