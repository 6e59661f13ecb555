package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"strings"
	"sync"

	"myclaw/tools"
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
		return tools.Result{}, tools.Errorf(tools.KindUnsupported, "Search a folder or a regular file.", "%s is %s", target, tools.FileKind(fi.Mode())).With("path", target)
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
			s.binary = append(s.binary, tools.ShowPath(p))
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
			s.tails = append(s.tails, fmt.Sprintf(`%s from line %d ("\0" at byte %d)`, tools.ShowPath(p), f.tailLine, f.tailAt))
		}
	}
	if f.count == 0 {
		return
	}
	s.out.FilesMatched++
	for i, l := range f.lines {
		if s.out.Total+i >= s.offset && s.out.Returned < s.max {
			fmt.Fprintf(&s.body, "%s:%d: %s\n", tools.ShowPath(p), l.no, l.text)
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
