package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"myclaw/tools"
	"myclaw/tools/walk"

	"github.com/bmatcuk/doublestar/v4"
)

//go:embed glob_list.md
var globListDescription string

// Limits of glob_list (and of the walk grep_search shares).
const (
	globDefaultLimit = 200
	globMaxLimit     = 1000
	// globMaxEntries bounds one walk of the tree, so a huge workspace
	// answers quickly with a partial count instead of timing out.
	globMaxEntries  = 100_000
	globMaxSegments = 64
)

const globListSchema = `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Glob pattern relative to path: ** for any folders, * and ? within a name, [abc] and [!abc] sets, {a,b} alternatives. E.g. \"**/*.go\", \"**/*.{go,md}\"."},
    "path": {"type": "string", "description": "Folder to search in, relative to the workspace. Default: the workspace root. A folder that .gitignore excludes is listed when named here."},
    "include_ignored": {"type": "boolean", "description": "Also list what .gitignore, .ignore and .myclawignore exclude (node_modules, build output...). Default false."},
    "offset": {"type": "integer", "minimum": 0, "description": "Matches to skip, for the next page. Default 0."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Most matches to return. Default 200."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`

type globListArgs struct {
	Pattern        string `json:"pattern"`
	Path           string `json:"path"`
	IncludeIgnored bool   `json:"include_ignored"`
	Offset         int    `json:"offset"`
	Limit          int    `json:"limit"`
}

// globListOutput is what glob_list tells the model besides the paths.
type globListOutput struct {
	// Matches go in the fenced body, one a line: a name is chosen by
	// whoever made the file and may read as an instruction.
	Matches        []string `json:"-"`
	Total          int      `json:"total"`
	Offset         int      `json:"offset"`
	Returned       int      `json:"returned"`
	SkippedIgnored int      `json:"skipped_ignored"`
	Note           string   `json:"note,omitempty"`
}

type globListTool struct {
	ws       *Workspace
	excludes func() []string // the user's global ignore patterns
}

// NewGlobList returns the glob_list tool: paths of the workspace matching
// a glob pattern, sorted and paginated, without what ignore files exclude.
func NewGlobList(ws *Workspace) tools.Tool { return &globListTool{ws: ws, excludes: walk.UserExcludes} }

// Meta implements Tool.
func (t *globListTool) Meta() tools.Meta {
	return tools.Meta{
		Name:             "glob_list",
		Description:      globListDescription,
		Schema:           json.RawMessage(globListSchema),
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

// Execute implements Tool.
func (t *globListTool) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	res, err := t.list(ctx, args)
	return fsResult(ctx, res, err)
}

func (t *globListTool) list(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	var a globListArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, "Send {\"pattern\": \"**/*.go\"} with optional path, include_ignored, offset and limit.", "arguments for glob_list are not valid: %v", err)
	}
	if a.Limit == 0 {
		a.Limit = globDefaultLimit
	}
	if a.Offset < 0 || a.Limit < 1 || a.Limit > globMaxLimit {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, "offset must be 0 or more and limit between 1 and 1000.", "offset %d or limit %d is out of range", a.Offset, a.Limit)
	}
	pat, e := globParse(a.Pattern)
	if e != nil {
		return tools.Result{}, e
	}
	base, e := globBase(t.ws, a.Path)
	if e != nil {
		return tools.Result{}, e
	}
	var matches []string
	walked, err := globWalk(ctx, t.ws, base, t.walkOptions(a.IncludeIgnored), pat.mayContain, func(p string, d fs.DirEntry) {
		if pat.match(globRelPath(base, p)) {
			if d.IsDir() {
				p += "/"
			}
			matches = append(matches, p)
		}
	})
	if err != nil {
		return tools.Result{}, err
	}
	sort.Strings(matches)
	out := globListOutput{Total: len(matches), Offset: a.Offset, Matches: []string{}, SkippedIgnored: walked.Ignored()}
	if a.Offset < len(matches) {
		out.Matches = matches[a.Offset:min(len(matches), a.Offset+a.Limit)]
	}
	out.Returned = len(out.Matches)
	var notes []string
	switch {
	case out.Total == 0:
		notes = append(notes, fmt.Sprintf("no paths under %s match %q", globShowBase(base), a.Pattern))
	case out.Returned == 0:
		notes = append(notes, fmt.Sprintf("offset %d is past the end (%d matches); call again with a smaller offset", a.Offset, out.Total))
	case a.Offset+out.Returned < out.Total:
		notes = append(notes, fmt.Sprintf("shown %d-%d of %d; call again with offset=%d or narrow the pattern", a.Offset+1, a.Offset+out.Returned, out.Total, a.Offset+out.Returned))
	}
	if walked.Stopped {
		notes = append(notes, fmt.Sprintf("the listing stopped after %d entries, so total counts only those; narrow path or pattern", globMaxEntries))
	}
	if walked.Unreadable > 0 {
		notes = append(notes, fmt.Sprintf("skipped %s that could not be read", fsCount(walked.Unreadable, "folder")))
	}
	if n := globIgnoredNote(walked); n != "" {
		notes = append(notes, n)
	}
	out.Note = strings.Join(notes, "; ")
	var body strings.Builder
	for _, m := range out.Matches {
		body.WriteString(tools.ShowPath(m))
		body.WriteByte('\n')
	}
	body.WriteString(globIgnoredSample(walked))
	return tools.Result{
		Output:     out,
		Body:       body.String(),
		Source:     "glob:" + path.Join(base, a.Pattern),
		Summary:    fmt.Sprintf("List %s under %s (%s)", a.Pattern, globShowBase(base), fsCount(out.Total, "match")),
		Capability: "fs:read:" + base,
	}, nil
}

func globShowBase(base string) string {
	if base == "." {
		return "the workspace"
	}
	return base + "/"
}

// globBase resolves the optional folder argument of glob_list.
func globBase(ws *Workspace, p string) (string, *tools.Error) {
	base, e := globTarget(ws, p)
	if e != nil {
		return "", e
	}
	fi, err := ws.root.Stat(base)
	if err != nil {
		return "", ws.osError(base, err)
	}
	if !fi.IsDir() {
		return "", tools.Errorf(tools.KindInvalidArgs, "path must be a folder; to look at one file use fs_read.", "%s is not a folder", base).With("path", base)
	}
	return base, nil
}

// globTarget turns the optional path argument into a clean relative path.
func globTarget(ws *Workspace, p string) (string, *tools.Error) {
	if p == "" {
		return ".", nil
	}
	return ws.Rel(p)
}

// globPattern is a parsed glob in doublestar's syntax: "**" matches any
// number of folders, * and ? stay within a name, [abc], [!a] and [a-z]
// sets, {a,b} alternatives, and a backslash escapes.
type globPattern struct {
	pat  string
	segs []string // the pattern split at its slashes, when no {…} holds one
}

// globParse checks a pattern: relative, no "..", valid syntax.
func globParse(pattern string) (globPattern, *tools.Error) {
	hint := "Write a pattern relative to path, like \"**/*.go\", \"src/*\" or \"**/*.{go,md}\"; use path to choose the folder."
	switch {
	case pattern == "":
		return globPattern{}, tools.Errorf(tools.KindInvalidArgs, hint, "pattern is empty")
	case strings.IndexByte(pattern, 0) >= 0:
		return globPattern{}, tools.Errorf(tools.KindInvalidArgs, hint, "pattern contains a NUL byte")
	case strings.HasPrefix(pattern, "/"):
		return globPattern{}, tools.Errorf(tools.KindInvalidArgs, hint, "pattern %q is absolute; patterns are relative to path", pattern)
	}
	var segs []string
	for _, s := range strings.Split(pattern, "/") {
		switch {
		case s == "" || s == ".":
			continue
		case s == "..":
			return globPattern{}, tools.Errorf(tools.KindInvalidArgs, hint, "pattern %q goes up with \"..\"; patterns stay inside path", pattern)
		case s == "**" && len(segs) > 0 && segs[len(segs)-1] == "**":
			continue
		}
		segs = append(segs, s)
	}
	if len(segs) == 0 {
		return globPattern{}, tools.Errorf(tools.KindInvalidArgs, hint, "pattern %q matches nothing but the folder itself", pattern)
	}
	if len(segs) > globMaxSegments {
		return globPattern{}, tools.Errorf(tools.KindInvalidArgs, hint, "pattern has more than %d segments", globMaxSegments)
	}
	g := globPattern{pat: strings.Join(segs, "/"), segs: segs}
	if !doublestar.ValidatePattern(g.pat) {
		return globPattern{}, tools.Errorf(tools.KindInvalidArgs, hint+" Close every [ with ] and every { with }, and escape special characters with a backslash.", "pattern %q is malformed", pattern)
	}
	for _, s := range segs {
		if !doublestar.ValidatePattern(s) {
			g.segs = nil // a {…} holds a slash: no folder can be ruled out
			break
		}
	}
	return g, nil
}

// match reports whether the slash path rel matches the pattern.
func (g globPattern) match(rel string) bool {
	ok, _ := doublestar.Match(g.pat, rel)
	return ok
}

// mayContain reports whether something below the folder dir (segments
// relative to the walk's base) could match, so that the walk can skip the
// folders that cannot.
func (g globPattern) mayContain(dir []string) bool {
	segs := g.segs
	if segs == nil {
		return true
	}
	for _, d := range dir {
		if len(segs) == 0 {
			return false
		}
		if strings.Contains(segs[0], "**") {
			return true
		}
		if ok, _ := doublestar.Match(segs[0], d); !ok {
			return false
		}
		segs = segs[1:]
	}
	return len(segs) > 0
}

// fileFilter is how grep_search's glob chooses files below base: a
// pattern without a slash matches file names at any depth, one with a
// slash the path below base. enter rules out folders.
func (g globPattern) fileFilter(base string) (filter func(p, name string) bool, enter func([]string) bool) {
	if len(g.segs) == 1 {
		return func(_, name string) bool { ok, _ := doublestar.Match(g.pat, name); return ok },
			func([]string) bool { return true }
	}
	return func(p, _ string) bool { return g.match(globRelPath(base, p)) }, g.mayContain
}

func (t *globListTool) walkOptions(includeIgnored bool) walk.Options {
	return walk.Options{IncludeIgnored: includeIgnored, Excludes: t.excludes()}
}

// globWalk visits the entries below the folder base in lexical order,
// with their workspace paths, leaving out .git, myclaw's own state and
// config, and what the ignore rules of opts exclude (walk.Walk). It does
// not follow symbolic links, reads only folders that enter accepts (given
// their segments relative to base; called from several goroutines), and
// stops after globMaxEntries entries. It goes through the workspace root,
// so nothing outside is listed.
func globWalk(ctx context.Context, ws *Workspace, base string, opts walk.Options, enter func(rel []string) bool, visit func(p string, d fs.DirEntry)) (walk.Stats, error) {
	opts.Base = base
	if !opts.IncludeIgnored && opts.Repo == nil {
		// The repository's index, info/exclude and the ignore files of
		// the folders above the workspace, as git sees them.
		opts.Repo = walk.OpenRepo(ws.dir, opts.Excludes)
	}
	opts.Descend = func(p string) bool { return !ws.isProtected(p) && enter(globRel(base, p)) }
	opts.MaxEntries = globMaxEntries
	st, err := walk.Walk(ctx, ws.root.FS(), opts, func(p string, d fs.DirEntry) error {
		if ws.isProtected(p) {
			// myclaw's own state or config: not listed, not searched.
			return nil
		}
		visit(p, d)
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return st, ctx.Err()
		}
		var te *tools.Error
		if errors.As(err, &te) {
			return st, te
		}
		return st, ws.osError(base, err)
	}
	return st, nil
}

// globRel splits the workspace path p into its segments below base.
func globRel(base, p string) []string {
	return strings.Split(globRelPath(base, p), "/")
}

// globRelPath is the workspace path p relative to base.
func globRelPath(base, p string) string {
	if base != "." {
		return p[len(base)+1:]
	}
	return p
}

// globIgnoredNote tells the model what ignore rules left out, and how to
// see it anyway.
func globIgnoredNote(st walk.Stats) string {
	cut := ""
	if len(st.CutIgnoreFiles) > 0 {
		cut = "; an ignore file is too long to read whole: its last rules were not applied"
		if n := len(st.CutIgnoreFiles); n > 1 {
			cut = fmt.Sprintf("; %d ignore files are too long to read whole: their last rules were not applied", n)
		}
	}
	if st.Ignored() == 0 {
		return strings.TrimPrefix(cut, "; ")
	}
	var parts []string
	if st.IgnoredDirs > 0 {
		parts = append(parts, fsCount(st.IgnoredDirs, "folder"))
	}
	if st.IgnoredFiles > 0 {
		parts = append(parts, fsCount(st.IgnoredFiles, "file"))
	}
	return fmt.Sprintf("left out %s that .gitignore or .ignore files exclude (a folder counts once; the last line of the result names the first few); pass include_ignored=true, or a path inside them, to look there",
		strings.Join(parts, " and ")) + cut
}

// globIgnoredSample is the last line of a listing or search that ignore
// rules cut: the first paths they left out. Names go in the fenced body,
// never in the note.
func globIgnoredSample(st walk.Stats) string {
	if st.Ignored() == 0 {
		return ""
	}
	sample := make([]string, len(st.IgnoredSample))
	for i, p := range st.IgnoredSample {
		sample[i] = tools.ShowPath(p)
	}
	if st.Ignored() > len(sample) {
		sample = append(sample, "…")
	}
	return "(left out by ignore rules: " + strings.Join(sample, ", ") + ")\n"
}
