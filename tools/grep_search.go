package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	// grepBatch is how many files are searched in parallel before their
	// results are merged in order; it bounds the memory held for them.
	grepBatch = 256
)

const grepSearchSchema = `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "RE2 regular expression (Go regexp syntax), matched against each line."},
    "path": {"type": "string", "description": "Folder or file to search, relative to the workspace. Default: the workspace root."},
    "glob": {"type": "string", "description": "Only search files matching this glob: without '/' it matches file names (\"*.go\"), with '/' paths relative to path (\"src/**/*.ts\")."},
    "ignore_case": {"type": "boolean", "description": "Match letters regardless of case. Default false."},
    "max_results": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Most matching lines to return. Default 100."},
    "offset": {"type": "integer", "minimum": 0, "description": "Matching lines to skip, for the next page. Default 0."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`

type grepSearchArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	IgnoreCase bool   `json:"ignore_case"`
	MaxResults int    `json:"max_results"`
	Offset     int    `json:"offset"`
}

// grepSearchOutput is what grep_search tells the model besides the lines.
type grepSearchOutput struct {
	Pattern       string `json:"pattern"`
	Path          string `json:"path"`
	Total         int    `json:"total"`
	Offset        int    `json:"offset"`
	Returned      int    `json:"returned"`
	FilesSearched int    `json:"files_searched"`
	FilesMatched  int    `json:"files_matched"`
	SkippedBinary int    `json:"skipped_binary"`
	SkippedLarge  int    `json:"skipped_large"`
	Note          string `json:"note,omitempty"`
}

type grepSearchTool struct{ ws *Workspace }

// NewGrepSearch returns the grep_search tool: lines of the workspace's text
// files matching a regular expression, paginated.
func NewGrepSearch(ws *Workspace) Tool { return &grepSearchTool{ws: ws} }

// Meta implements Tool.
func (t *grepSearchTool) Meta() Meta {
	return Meta{
		Name:             "grep_search",
		Description:      grepSearchDescription,
		Schema:           json.RawMessage(grepSearchSchema),
		ReadOnly:         true,
		Risk:             RiskLow,
		ReturnsUntrusted: true,
		Idempotent:       true,
		SupportsDryRun:   true,
		Capability:       "fs:read",
		Timeout:          fsToolTimeout,
		Source:           SourceBuiltin,
	}
}

// DryRun implements Tool; searching has no effect, so it searches.
func (t *grepSearchTool) DryRun(ctx context.Context, args json.RawMessage) (Result, error) {
	return t.Execute(ctx, args)
}

// grepFile is what searching one file found.
type grepFile struct {
	lines   []grepLine
	skipped int // 0, or grepSkipBinary / grepSkipLarge
	read    bool
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
func (t *grepSearchTool) Execute(ctx context.Context, args json.RawMessage) (Result, error) {
	res, err := t.search(ctx, args)
	return fsResult(ctx, res, err)
}

func (t *grepSearchTool) search(ctx context.Context, args json.RawMessage) (Result, error) {
	var a grepSearchArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return Result{}, Errorf(KindInvalidArgs, "Send {\"pattern\": \"...\"} with optional path, glob, ignore_case, max_results and offset.", "arguments for grep_search are not valid: %v", err)
	}
	if a.MaxResults == 0 {
		a.MaxResults = grepDefaultResults
	}
	if a.Offset < 0 || a.MaxResults < 1 || a.MaxResults > grepMaxResults {
		return Result{}, Errorf(KindInvalidArgs, "offset must be 0 or more and max_results between 1 and 1000.", "offset %d or max_results %d is out of range", a.Offset, a.MaxResults)
	}
	if a.Pattern == "" {
		return Result{}, Errorf(KindInvalidArgs, "Give a regular expression to look for, for example \"func main\".", "pattern is empty")
	}
	expr := a.Pattern
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return Result{}, Errorf(KindInvalidArgs, "grep_search uses RE2 (Go regexp) syntax: escape ( ) [ ] { } . * + ? | \\ with a backslash to match them literally; lookarounds and backreferences are not supported.", "invalid regular expression %q: %v", a.Pattern, err).With("pattern", a.Pattern)
	}
	var filter func(rel []string) bool
	enter := func([]string) bool { return true }
	if a.Glob != "" {
		g, e := globParse(a.Glob)
		if e != nil {
			e.Message = "glob: " + e.Message
			return Result{}, e
		}
		if len(g.segs) == 1 {
			filter = func(rel []string) bool { ok, _ := path.Match(g.segs[0], rel[len(rel)-1]); return ok }
		} else {
			filter, enter = g.match, g.mayContain
		}
	}
	target, e := globTarget(t.ws, a.Path)
	if e != nil {
		return Result{}, e
	}
	fi, err := t.ws.root.Stat(target)
	if err != nil {
		return Result{}, t.ws.osError(target, err)
	}
	var files []string
	var walk globWalkStats
	switch {
	case fi.Mode().IsRegular():
		files = []string{target}
	case fi.IsDir():
		walk, err = globWalk(ctx, t.ws, target, enter, func(p string, rel []string, d fs.DirEntry) {
			if d.Type().IsRegular() && (filter == nil || filter(rel)) {
				files = append(files, p)
			}
		})
		if err != nil {
			return Result{}, err
		}
	default:
		return Result{}, Errorf(KindUnsupported, "Search a folder or a regular file.", "%s is %s", target, fsKindName(fi.Mode())).With("path", target)
	}

	out := grepSearchOutput{Pattern: a.Pattern, Path: target, Offset: a.Offset}
	var body strings.Builder
	capped := false
	for start := 0; start < len(files) && !capped; start += grepBatch {
		batch := files[start:min(len(files), start+grepBatch)]
		found := grepFiles(ctx, t.ws, re, batch)
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		for i, f := range found {
			switch f.skipped {
			case grepSkipBinary:
				out.SkippedBinary++
			case grepSkipLarge:
				out.SkippedLarge++
			}
			if f.read {
				out.FilesSearched++
			}
			if len(f.lines) > 0 {
				out.FilesMatched++
			}
			for _, l := range f.lines {
				if out.Total >= grepMaxCount {
					capped = true
					break
				}
				if out.Total >= a.Offset && out.Returned < a.MaxResults {
					fmt.Fprintf(&body, "%s:%d: %s\n", grepShowPath(batch[i]), l.no, l.text)
					out.Returned++
				}
				out.Total++
			}
		}
	}

	var notes []string
	switch {
	case out.Total == 0:
		notes = append(notes, "no matches")
	case out.Returned == 0:
		notes = append(notes, fmt.Sprintf("offset %d is past the end (%d matches); call again with a smaller offset", a.Offset, out.Total))
	case a.Offset+out.Returned < out.Total:
		notes = append(notes, fmt.Sprintf("shown %d-%d of %d; call again with offset=%d, or narrow with path or glob", a.Offset+1, a.Offset+out.Returned, out.Total, a.Offset+out.Returned))
	}
	if capped {
		notes = append(notes, fmt.Sprintf("counting stopped at %d matching lines; narrow the search", grepMaxCount))
	}
	if walk.stopped {
		notes = append(notes, fmt.Sprintf("the search stopped after %d entries; narrow path or glob", globMaxEntries))
	}
	if out.SkippedBinary > 0 || out.SkippedLarge > 0 {
		notes = append(notes, fmt.Sprintf("skipped %s and %s over %s", fsCount(out.SkippedBinary, "binary file"), fsCount(out.SkippedLarge, "file"), HumanSize(grepMaxFileBytes)))
	}
	out.Note = strings.Join(notes, "; ")
	where := target
	if fi.IsDir() {
		where = globShowBase(target)
	}
	return Result{
		Output:     out,
		Body:       body.String(),
		Source:     "grep:" + a.Pattern,
		Summary:    fmt.Sprintf("Search %q in %s (%s in %s)", a.Pattern, where, fsCount(out.Total, "match"), fsCount(out.FilesMatched, "file")),
		Capability: "fs:read:" + target,
	}, nil
}

// grepShowPath quotes a path that holds control characters, so that a file
// name cannot pose as more result lines.
func grepShowPath(p string) string {
	if strings.IndexFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return strconv.Quote(p)
	}
	return p
}

// grepFiles searches files in parallel and returns their results in order.
func grepFiles(ctx context.Context, ws *Workspace, re *regexp.Regexp, files []string) []grepFile {
	found := make([]grepFile, len(files))
	workers := min(runtime.GOMAXPROCS(0), 8, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(files) || ctx.Err() != nil {
					return
				}
				found[i] = grepOne(ctx, ws, re, files[i])
			}
		})
	}
	wg.Wait()
	return found
}

// grepOne searches one file. Files that cannot be read as regular files
// (gone, replaced by a FIFO, unreadable) are passed over silently, like
// grep -s; so is the file being read when ctx ends, which the caller sees.
func grepOne(ctx context.Context, ws *Workspace, re *regexp.Regexp, p string) grepFile {
	data, _, err := fsReadRegular(ctx, ws, p, nil, grepMaxFileBytes)
	var te *Error
	switch {
	case err == nil:
	case errors.As(err, &te) && te.Kind == KindQuotaExceeded:
		// A read never runs out of disk space: this is the size limit.
		return grepFile{skipped: grepSkipLarge}
	default:
		return grepFile{}
	}
	if fsLooksBinary(data) {
		return grepFile{skipped: grepSkipBinary}
	}
	return grepFile{read: true, lines: grepMatchLines(re, data)}
}

// grepMatchLines returns the lines of data that re matches.
func grepMatchLines(re *regexp.Regexp, data []byte) []grepLine {
	// A literal prefix that every match must contain rules most files out
	// without running the regexp line by line.
	if lit, _ := re.LiteralPrefix(); lit != "" && !bytes.Contains(data, []byte(lit)) {
		return nil
	}
	var found []grepLine
	for no := 1; len(data) > 0; no++ {
		var line []byte
		line, data = grepNextLine(data)
		if re.Match(line) {
			found = append(found, grepLine{no, grepCut(line)})
		}
	}
	return found
}

// grepNextLine splits the first line off data, without its line ending.
func grepNextLine(data []byte) (line, rest []byte) {
	line, rest = data, nil
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		line, rest = data[:i], data[i+1:]
	}
	return bytes.TrimSuffix(line, []byte{'\r'}), rest
}

// grepCut renders a matching line: valid UTF-8, cut at grepMaxLineBytes on
// a character boundary.
func grepCut(line []byte) string {
	text, shown := cutText(line, grepMaxLineBytes)
	if shown == len(line) {
		return text
	}
	return text + fmt.Sprintf(" … [%d more bytes]", len(line)-shown)
}
