package builtin

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"

	"myclaw/tools"
	"myclaw/tools/termtext"
	"myclaw/tools/walk"
)

//go:embed grep_search.md
var grepSearchDescription string

// Limits of grep_search.
const (
	grepDefaultResults = 100
	grepMaxResults     = 1000
	grepMaxFileBytes   = 4 << 20
	grepMaxLineBytes   = 300
	// grepMaxCount bounds how many matching lines are counted for total.
	grepMaxCount = 100_000
	// grepWindow bounds how many files may be searched ahead of the one
	// whose results are next in order: the memory held for them.
	grepWindow = 256
	// grepNamed bounds how many binary files the result names.
	grepNamed = 5
)

const grepSearchSchema = `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "RE2 regular expression (Go regexp syntax), matched against each line."},
    "path": {"type": "string", "description": "Folder or file to search, relative to the workspace. Default: the workspace root. A folder or file that .gitignore excludes is searched when named here."},
    "glob": {"type": "string", "description": "Only search files matching this glob: without '/' it matches file names (\"*.go\"), with '/' paths relative to path (\"src/**/*.ts\")."},
    "ignore_case": {"type": "boolean", "description": "Match letters regardless of case. Default false."},
    "include_ignored": {"type": "boolean", "description": "Also search what .gitignore, .ignore and .myclawignore exclude (node_modules, build output...). Default false."},
    "max_results": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Most matching lines to return. Default 100."},
    "offset": {"type": "integer", "minimum": 0, "description": "Matching lines to skip, for the next page. Default 0."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`

type grepSearchArgs struct {
	Pattern        string `json:"pattern"`
	Path           string `json:"path"`
	Glob           string `json:"glob"`
	IgnoreCase     bool   `json:"ignore_case"`
	IncludeIgnored bool   `json:"include_ignored"`
	MaxResults     int    `json:"max_results"`
	Offset         int    `json:"offset"`
}

// grepSearchOutput is what grep_search tells the model besides the lines.
type grepSearchOutput struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
	Total   int    `json:"total"`
	// TotalAtLeast says the search stopped once the page was full, so
	// Total counts only the files searched until then.
	TotalAtLeast   bool   `json:"total_is_lower_bound,omitempty"`
	Offset         int    `json:"offset"`
	Returned       int    `json:"returned"`
	FilesSearched  int    `json:"files_searched"`
	FilesMatched   int    `json:"files_matched"`
	SkippedBinary  int    `json:"skipped_binary"`
	SkippedLarge   int    `json:"skipped_large"`
	SkippedIgnored int    `json:"skipped_ignored"`
	Note           string `json:"note,omitempty"`
	// BinaryTailMatched counts files searched up to a NUL byte past their
	// first fsSniffBytes, binary from there, that match past it: the
	// lines from there on are not shown.
	BinaryTailMatched int `json:"binary_tail_matched,omitempty"`
}

type grepSearchTool struct {
	ws       *Workspace
	excludes func() []string // the user's global ignore patterns
}

// NewGrepSearch returns the grep_search tool: lines of the workspace's text
// files matching a regular expression, paginated, leaving out what ignore
// files exclude.
func NewGrepSearch(ws *Workspace) tools.Tool {
	return &grepSearchTool{ws: ws, excludes: walk.UserExcludes}
}

// Meta implements Tool.
func (t *grepSearchTool) Meta() tools.Meta {
	return tools.Meta{
		Name:             "grep_search",
		Description:      grepSearchDescription,
		Schema:           json.RawMessage(grepSearchSchema),
		ReadOnly:         true,
		Risk:             tools.RiskLow,
		ReturnsUntrusted: true,
		Idempotent:       true,
		SupportsDryRun:   true,
		Capability:       "fs:read",
		Timeout:          fsToolTimeout,
		Source:           tools.SourceBuiltin,
	}
}

// grepFile is what searching one file found.
type grepFile struct {
	lines   []grepLine // the first matching lines, up to the page's end
	count   int        // all matching lines
	skipped int        // 0, or grepSkipBinary / grepSkipLarge
	read    bool
	// tailLine, when not 0, is the line where the file turns binary, at
	// the NUL byte at tailAt, with a match from there on.
	tailLine int
	tailAt   int64
}

type grepLine struct {
	no   int
	text string
}

const (
	grepSkipBinary = 1 + iota
	grepSkipLarge
)

// Execute implements Tool.
func (t *grepSearchTool) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	res, err := t.search(ctx, args)
	return fsResult(ctx, res, err)
}

func (t *grepSearchTool) search(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	var a grepSearchArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, "Send {\"pattern\": \"...\"} with optional path, glob, ignore_case, include_ignored, max_results and offset.", "arguments for grep_search are not valid: %v", err)
	}
	if a.MaxResults == 0 {
		a.MaxResults = grepDefaultResults
	}
	if a.Offset < 0 || a.MaxResults < 1 || a.MaxResults > grepMaxResults {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, "offset must be 0 or more and max_results between 1 and 1000.", "offset %d or max_results %d is out of range", a.Offset, a.MaxResults)
	}
	if a.Pattern == "" {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, "Give a regular expression to look for, for example \"func main\".", "pattern is empty")
	}
	expr := a.Pattern
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, "grep_search uses RE2 (Go regexp) syntax: escape ( ) [ ] { } . * + ? | \\ with a backslash to match them literally; lookarounds and backreferences are not supported.", "invalid regular expression %q: %v", a.Pattern, err).With("pattern", a.Pattern)
	}
	if grepWantsNewline(re) {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, "Search for one line of the text (the most distinctive), then read around the matches with fs_read.",
			"the pattern %q looks for a line break, and grep_search matches one line at a time: multiline patterns are not supported", a.Pattern).With("pattern", a.Pattern)
	}
	target, e := globTarget(t.ws, a.Path)
	if e != nil {
		return tools.Result{}, e
	}
	var filter func(p, name string) bool
	enter := func([]string) bool { return true }
	if a.Glob != "" {
		g, e := globParse(a.Glob)
		if e != nil {
			e.Message = "glob: " + e.Message
			return tools.Result{}, e
		}
		filter, enter = g.fileFilter(target)
	}
	fi, err := t.ws.root.Stat(target)
	if err != nil {
		return tools.Result{}, t.ws.osError(target, err)
	}
	s := &grepRun{ws: t.ws, m: newGrepMatcher(re), offset: a.Offset, max: a.MaxResults}
	s.out = grepSearchOutput{Pattern: a.Pattern, Path: target, Offset: a.Offset}
	var walked walk.Stats
	switch {
	case fi.Mode().IsRegular():
		// Named by the caller, the file is opened by its whole path: a
		// link to elsewhere in the workspace is followed.
		w := grepWorker{ws: t.ws, whole: true}
		s.take(target, s.file(ctx, target, &w))
	case fi.IsDir():
		walked, err = s.tree(ctx, target, walk.Options{IncludeIgnored: a.IncludeIgnored, Excludes: t.excludes()}, enter, filter)
		if err != nil {
			return tools.Result{}, err
		}
	default:
		return tools.Result{}, tools.Errorf(tools.KindUnsupported, "Search a folder or a regular file.", "%s is %s", target, fsKindName(fi.Mode())).With("path", target)
	}
	if err := ctx.Err(); err != nil {
		return tools.Result{}, err
	}
	out := s.out
	out.SkippedIgnored = walked.Ignored()
	atLeast := ""
	if out.TotalAtLeast {
		atLeast = "at least "
	}
	var notes []string
	switch {
	case out.Total == 0:
		notes = append(notes, "no matches")
	case out.Returned == 0:
		notes = append(notes, fmt.Sprintf("offset %d is past the end (%d matches); call again with a smaller offset", a.Offset, out.Total))
	case a.Offset+out.Returned < out.Total || out.TotalAtLeast:
		notes = append(notes, fmt.Sprintf("shown %d-%d of %s%d; call again with offset=%d, or narrow with path or glob", a.Offset+1, a.Offset+out.Returned, atLeast, out.Total, a.Offset+out.Returned))
	}
	if s.capped {
		notes = append(notes, fmt.Sprintf("counting stopped at %d matching lines; narrow the search", grepMaxCount))
	}
	if walked.Stopped {
		notes = append(notes, fmt.Sprintf("the search stopped after %d entries; narrow path or glob", globMaxEntries))
	}
	if out.SkippedBinary > 0 || out.SkippedLarge > 0 {
		named := ""
		if out.SkippedBinary > 0 {
			named = " (the end of the result names the first few)"
		}
		notes = append(notes, fmt.Sprintf("skipped %s and %s over %s%s", fsCount(out.SkippedBinary, "binary file"), fsCount(out.SkippedLarge, "file"), tools.HumanSize(grepMaxFileBytes), named))
	}
	if n := out.BinaryTailMatched; n > 0 {
		turn := "files turn binary at a NUL byte past their first 8 KB and match past it"
		if n == 1 {
			turn = "file turns binary at a NUL byte past its first 8 KB and matches past it"
		}
		notes = append(notes, fmt.Sprintf("%d %s: the lines from there are not shown (the end of the result names the first few)", n, turn))
	}
	if n := globIgnoredNote(walked); n != "" {
		notes = append(notes, n)
	}
	out.Note = strings.Join(notes, "; ")
	s.body.WriteString(grepNames("binary, not searched", s.binary, out.SkippedBinary))
	s.body.WriteString(grepNames("binary from a NUL byte on, and matching there, not shown", s.tails, out.BinaryTailMatched))
	s.body.WriteString(globIgnoredSample(walked))
	where := target
	if fi.IsDir() {
		where = globShowBase(target)
	}
	return tools.Result{
		Output:     out,
		Body:       s.body.String(),
		Source:     "grep:" + a.Pattern,
		Summary:    fmt.Sprintf("Search %q in %s (%s%s in %s)", a.Pattern, where, atLeast, fsCount(out.Total, "match"), fsCount(out.FilesMatched, "file")),
		Capability: "fs:read:" + target,
	}, nil
}

// grepNames is a line of the result naming the first of n files (names,
// already shown with fsShowPath), or "" if n is 0. Names go in the fenced
// body, never in the note.
func grepNames(what string, names []string, n int) string {
	if n == 0 {
		return ""
	}
	more := ""
	if n > len(names) {
		more = fmt.Sprintf(" and %d more", n-len(names))
	}
	return "(" + what + ": " + strings.Join(names, ", ") + more + ")\n"
}

// fsShowPath quotes a path that holds a control character, a character a
// reader may take for a line break (U+0085, U+2028, U+2029) or one that
// does not show as itself, so that a file name cannot pose as more result
// lines or hide what it is.
func fsShowPath(p string) string {
	if strings.ContainsAny(p, "\n\t") || termtext.HasHidden(p) {
		return strconv.Quote(p)
	}
	return p
}

// grepRun is one search: the page being filled, file after file in walk
// order.
type grepRun struct {
	ws          *Workspace
	m           *grepMatcher
	offset, max int

	out    grepSearchOutput
	body   strings.Builder
	capped bool // grepMaxCount reached
	// binary and tails name the first grepNamed binary files and files
	// matching past a NUL byte, for the end of the result.
	binary, tails []string
}

// full reports whether the search can stop: the page is full, or
// counting has reached its bound.
func (s *grepRun) full() bool {
	return s.capped || s.out.Returned == s.max
}

// take adds the results of the next file in order.
func (s *grepRun) take(p string, f grepFile) {
	switch f.skipped {
	case grepSkipBinary:
		s.out.SkippedBinary++
		if len(s.binary) < grepNamed {
			s.binary = append(s.binary, fsShowPath(p))
		}
	case grepSkipLarge:
		s.out.SkippedLarge++
	}
	if f.read {
		s.out.FilesSearched++
	}
	if f.tailLine > 0 {
		s.out.BinaryTailMatched++
		if len(s.tails) < grepNamed {
			s.tails = append(s.tails, fmt.Sprintf(`%s from line %d ("\0" at byte %d)`, fsShowPath(p), f.tailLine, f.tailAt))
		}
	}
	if f.count == 0 {
		return
	}
	s.out.FilesMatched++
	for i, l := range f.lines {
		if s.out.Total+i >= s.offset && s.out.Returned < s.max {
			fmt.Fprintf(&s.body, "%s:%d: %s\n", fsShowPath(p), l.no, l.text)
			s.out.Returned++
		}
	}
	s.out.Total += f.count
	if s.out.Total >= grepMaxCount {
		s.out.Total = grepMaxCount
		s.capped = true
	}
}

// tree searches the files below dir on all cores: the walk hands them
// out in order, workers search them, and their results are taken back in
// that order, so pages are stable from call to call. Once the page is
// full the rest is abandoned and the total becomes a lower bound; files
// already searched by then still count.
func (s *grepRun) tree(ctx context.Context, dir string, opts walk.Options, enter func([]string) bool, filter func(p, name string) bool) (walk.Stats, error) {
	type job struct {
		seq int
		p   string
	}
	type done struct {
		job
		f  grepFile
		ok bool // searched to the end, not abandoned
	}
	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan job)
	results := make(chan done, grepWindow)
	// A slot is held from a file's hand-out until its result is taken,
	// so at most grepWindow results wait for an earlier one.
	slots := make(chan struct{}, grepWindow)
	var walked walk.Stats
	var walkErr error
	handed, missed := 0, false // files handed out; some left out by the stop
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(jobs)
		walked, walkErr = globWalk(stop, s.ws, dir, opts, enter, func(p string, d fs.DirEntry) {
			if !d.Type().IsRegular() || (filter != nil && !filter(p, d.Name())) {
				return
			}
			if stop.Err() != nil {
				missed = true
				return
			}
			select {
			case slots <- struct{}{}:
			case <-stop.Done():
				missed = true
				return
			}
			jobs <- job{handed, p}
			handed++
		})
	})
	for range min(runtime.GOMAXPROCS(0)+2, 12) {
		wg.Go(func() {
			w := grepWorker{ws: s.ws}
			defer w.close()
			for j := range jobs {
				if stop.Err() != nil {
					results <- done{job: j}
					continue
				}
				f := s.file(stop, j.p, &w)
				results <- done{j, f, stop.Err() == nil}
			}
		})
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	pending := map[int]done{}
	next, stopped := 0, false
	for r := range results {
		pending[r.seq] = r
		for {
			d, ok := pending[next]
			if !ok || !d.ok {
				break
			}
			delete(pending, next)
			next++
			<-slots
			s.take(d.p, d.f) // after the stop, counted but not shown
			if s.full() && !stopped {
				stopped = true
				cancel()
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return walked, err
	}
	// handed and missed are safe to read: the walk ended before results
	// closed.
	s.out.TotalAtLeast = stopped && (next < handed || missed || walkErr != nil)
	if walkErr != nil && stop.Err() == nil {
		return walked, walkErr
	}
	return walked, nil
}

// grepWorker is what one searching goroutine keeps from file to file: its
// buffer, and the folder of its last file, open as an os.Root. Files of a
// folder come one after another, so opening the next one is a single
// openat below that folder instead of one per component of its path.
type grepWorker struct {
	ws    *Workspace
	buf   []byte
	dir   string
	root  *os.Root // nil, or dir opened below ws.root
	whole bool     // open by the whole path, from ws.root
}

// open opens the regular file at the workspace path p, without blocking
// on a FIFO that replaced it (as fsOpenRegular does).
func (w *grepWorker) open(p string) (*os.File, fs.FileInfo, bool) {
	if w.whole {
		f, fi, e := fsOpenRegular(w.ws, p, nil)
		return f, fi, e == nil
	}
	root := w.ws.root
	dir, name := path.Split(p)
	if dir != "" {
		if w.root == nil || w.dir != dir {
			w.close()
			r, err := w.ws.root.OpenRoot(dir)
			if err != nil {
				return nil, nil, false
			}
			w.root, w.dir = r, dir
		}
		root = w.root
	}
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, false
	}
	return f, fi, true
}

func (w *grepWorker) close() {
	if w.root != nil {
		w.root.Close()
		w.root = nil
	}
}

// file searches one file. Files that cannot be read as regular files
// (gone, replaced by a FIFO, unreadable) are passed over silently, like
// grep -s; so is the file being read when ctx ends, which the caller
// sees. Like ripgrep, a NUL byte tells binary data: a file with one in its
// first fsSniffBytes is binary and read no further; one with a NUL later
// is searched up to the line that holds it, and the rest is only looked
// at for a match, to say that the file matches there.
func (s *grepRun) file(ctx context.Context, p string, w *grepWorker) grepFile {
	f, fi, ok := w.open(p)
	if !ok {
		return grepFile{}
	}
	defer f.Close()
	size := fi.Size()
	if size > grepMaxFileBytes {
		return grepFile{skipped: grepSkipLarge}
	}
	if int64(cap(w.buf)) < size {
		w.buf = make([]byte, size)
	}
	data := w.buf[:size]
	r := fsCtxReader{ctx, f}
	head := min(len(data), fsSniffBytes)
	n, err := io.ReadFull(r, data[:head])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return grepFile{}
	}
	enc := grepEncodingOf(data[:n])
	if enc.utf16 == nil && bytes.IndexByte(data[:n], 0) >= 0 {
		return grepFile{skipped: grepSkipBinary}
	}
	if n == head {
		m, err := io.ReadFull(r, data[head:])
		if err != nil && err != io.ErrUnexpectedEOF {
			return grepFile{}
		}
		n += m // less than size if the file shrank: search what is there
	}
	text := data[enc.bom:n]
	if enc.utf16 != nil {
		if text, err = enc.utf16.NewDecoder().Bytes(text); err != nil {
			return grepFile{}
		}
	}
	g := grepFile{read: true}
	if nul := bytes.IndexByte(text, 0); nul >= 0 {
		if nul < fsSniffBytes {
			return grepFile{skipped: grepSkipBinary}
		}
		cut := bytes.LastIndexByte(text[:nul], '\n') + 1
		s.m.each(text[cut:], func(int, []byte) bool {
			g.tailLine = bytes.Count(text[:cut], []byte{'\n'}) + 1
			g.tailAt = enc.offset(text, nul)
			return false
		})
		text = text[:cut]
	}
	keep := s.offset + s.max
	s.m.each(text, func(no int, line []byte) bool {
		if len(g.lines) < keep {
			at := 0
			if len(line) > grepMaxLineBytes {
				if loc := s.m.re.FindIndex(line); loc != nil {
					at = loc[0]
				}
			}
			g.lines = append(g.lines, grepLine{no, grepCut(line, at)})
		}
		g.count++
		return g.count < grepMaxCount
	})
	return g
}

// grepEncoding is how a file's text is stored, told by its byte order
// mark as ripgrep tells it: UTF-16 is transcoded to UTF-8; anything else is
// searched as bytes, UTF-8 or not (Latin-1, say), after a UTF-8 mark.
type grepEncoding struct {
	bom   int               // length of the byte order mark
	utf16 encoding.Encoding // nil, or the UTF-16 to transcode from
}

func grepEncodingOf(head []byte) grepEncoding {
	switch {
	case bytes.HasPrefix(head, []byte{0xef, 0xbb, 0xbf}):
		return grepEncoding{bom: 3}
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}):
		return grepEncoding{2, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)}
	case bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		return grepEncoding{2, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)}
	}
	return grepEncoding{}
}

// offset returns where in the file the byte at i of its text lies. A
// transcoded character took 2 bytes of UTF-16, or 4 past U+FFFF (a bad
// code unit, transcoded as U+FFFD, also took 2).
func (e grepEncoding) offset(text []byte, i int) int64 {
	if e.utf16 == nil {
		return int64(e.bom + i)
	}
	at := int64(e.bom)
	for _, r := range string(text[:i]) {
		at += int64(utf16.RuneLen(r)) * 2
	}
	return at
}

// grepWantsNewline reports whether re holds a literal line break ("\n", or
// one typed as \n): lines are matched without their ending, so such a
// pattern would silently match nothing, or only through another branch.
func grepWantsNewline(re *regexp.Regexp) bool {
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return false
	}
	var walk func(*syntax.Regexp) bool
	walk = func(r *syntax.Regexp) bool {
		if r.Op == syntax.OpLiteral && slices.Contains(r.Rune, '\n') {
			return true
		}
		return slices.ContainsFunc(r.Sub, walk)
	}
	return walk(tree)
}

// grepCut renders a matching line whose match starts at byte at: valid
// UTF-8, with every control and invisible character shown as an escape
// and every byte that is not UTF-8 as \xHH (termtext.Visible: a bare
// '\r', VT, FF, U+0085, U+2028 or U+2029 would read as a line break, and
// the file could forge result lines for files that do not exist). A line
// over grepMaxLineBytes shows that many bytes on character boundaries:
// from its start, or, when the match lies past them, from a little before
// the match, saying how much was left out on each side.
func grepCut(line []byte, at int) string {
	start := 0
	if at+grepMaxLineBytes/2 > grepMaxLineBytes {
		start = at - grepMaxLineBytes/4
		for start < at && !utf8.RuneStart(line[start]) {
			start++
		}
	}
	cut := tools.CutUTF8(line[start:], grepMaxLineBytes)
	shown := len(cut)
	text := termtext.Visible(string(cut))
	if start > 0 {
		text = fmt.Sprintf("[%d bytes before] … ", start) + text
	}
	if rest := len(line) - start - shown; rest > 0 {
		text += fmt.Sprintf(" … [%d more bytes]", rest)
	}
	return text
}
