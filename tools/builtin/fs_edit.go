package builtin

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"myclaw/tools"
	"strings"
)

//go:embed fs_edit.md
var fsEditDescription string

// fsEditMaxListed bounds how many match lines an ambiguity error lists.
const fsEditMaxListed = 20

const fsEditSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to edit, relative to the workspace."},
    "old_string": {"type": "string", "description": "Exact text to replace, byte for byte, including whitespace; must occur once unless replace_all is true."},
    "new_string": {"type": "string", "description": "Text to put in its place."},
    "replace_all": {"type": "boolean", "description": "Replace every occurrence instead of exactly one. Default false."}
  },
  "required": ["path", "old_string", "new_string"],
  "additionalProperties": false
}`

type fsEditArgs struct {
	Path       string  `json:"path"`
	OldString  *string `json:"old_string"`
	NewString  *string `json:"new_string"`
	ReplaceAll bool    `json:"replace_all"`
}

// fsEditOutput is what fs_edit tells the model.
type fsEditOutput struct {
	Path         string `json:"path"`
	Replacements int    `json:"replacements"`
	SizeBytes    int    `json:"size_bytes"`
	LinesAdded   int    `json:"lines_added"`
	LinesRemoved int    `json:"lines_removed"`
}

type fsEditTool struct {
	ws    *Workspace
	blobs tools.BlobStore
}

// NewFsEdit returns the fs_edit tool, which replaces exact text in a file
// of the workspace. It implements Reverter like fs_write.
func NewFsEdit(ws *Workspace, blobs tools.BlobStore) tools.Tool {
	return &fsEditTool{ws: ws, blobs: blobs}
}

// Meta implements Tool.
func (t *fsEditTool) Meta() tools.Meta {
	return tools.Meta{
		Name:           "fs_edit",
		Description:    fsEditDescription,
		Schema:         json.RawMessage(fsEditSchema),
		Risk:           tools.RiskMedium,
		SupportsDryRun: true,
		Capability:     "fs:write",
		Timeout:        fsToolTimeout,
		Source:         tools.SourceBuiltin,
	}
}

func (t *fsEditTool) plan(ctx context.Context, args json.RawMessage) (*fsPlan, int, error) {
	var a fsEditArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, 0, tools.Errorf(tools.KindInvalidArgs, "Send {\"path\": \"...\", \"old_string\": \"...\", \"new_string\": \"...\"}.", "arguments for fs_edit are not valid: %v", err)
	}
	if a.OldString == nil || a.NewString == nil {
		return nil, 0, tools.Errorf(tools.KindInvalidArgs, "Send both old_string (the exact text to replace) and new_string (its replacement).", "old_string and new_string are both required")
	}
	old, repl := *a.OldString, *a.NewString
	if old == "" {
		return nil, 0, tools.Errorf(tools.KindInvalidArgs, "Copy the exact text to replace into old_string; to create a file or replace all of it, use fs_write.", "old_string is empty")
	}
	if old == repl {
		return nil, 0, tools.Errorf(tools.KindInvalidArgs, "new_string must differ from old_string; if the file is already as wanted, nothing needs to be done.", "old_string and new_string are identical")
	}
	rel, e := t.ws.Rel(a.Path)
	if e != nil {
		return nil, 0, e
	}
	content, info, _, err := fsInspectTarget(ctx, t.ws, rel, fsMaxWriteBytes)
	if err != nil {
		return nil, 0, err
	}
	if info == nil {
		return nil, 0, tools.Errorf(tools.KindNotFound, "fs_edit changes existing files only: use fs_write to create one, or glob_list to find the right path.", "%s does not exist", rel).With("path", rel)
	}
	if tools.LooksBinary(content) {
		if bytes.IndexByte(tools.CutUTF8(content, fsSniffBytes), 0) < 0 {
			return nil, 0, tools.Errorf(tools.KindUnsupported, "fs_edit edits UTF-8 text only: convert the file first (iconv through shell_run), or ask the user.", "%s is not UTF-8 text", rel).With("path", rel)
		}
		return nil, 0, tools.Errorf(tools.KindUnsupported, "fs_edit edits text files only.", "%s is not a text file", rel).With("path", rel)
	}
	text := string(content)
	n := strings.Count(text, old)
	switch {
	case n == 0:
		return nil, 0, fsEditNotFound(rel, text, old)
	case n > 1 && !a.ReplaceAll:
		lines := fsEditMatchLines(text, old, fsEditMaxListed)
		where := fsEditJoinInts(lines)
		if n > len(lines) {
			where += ", …"
		}
		return nil, 0, tools.Errorf(tools.KindInvalidArgs, "Add surrounding lines to old_string so that it matches exactly once, or set replace_all to true to replace every occurrence.", "old_string occurs %d times in %s (lines %s); it must occur exactly once", n, rel, where).
			With("path", rel).With("matches", n).With("lines", lines)
	}
	limit := 1
	if a.ReplaceAll {
		limit = -1
	}
	edited := strings.Replace(text, old, repl, limit)
	if len(edited) > fsMaxWriteBytes {
		return nil, 0, tools.Errorf(tools.KindQuotaExceeded, "Make the edit smaller, or ask the user.", "the edited file would be %s, over the %s limit", tools.HumanSize(int64(len(edited))), tools.HumanSize(fsMaxWriteBytes)).With("path", rel)
	}
	p := fsNewPlan(rel, content, info, nil, []byte(edited))
	if limit == 1 {
		n = 1
	}
	return p, n, nil
}

// fsEditNotFound explains a missing match, pointing at the usual causes.
func fsEditNotFound(rel, text, old string) *tools.Error {
	hint := "Read the file again with fs_read and copy old_string exactly: whitespace, indentation and line breaks must match byte for byte."
	switch {
	case strings.Contains(text, "\r\n") && !strings.Contains(old, "\r\n") && strings.Contains(text, strings.ReplaceAll(old, "\n", "\r\n")):
		hint = "The file uses Windows line endings (\\r\\n): write old_string and new_string with \\r\\n line breaks."
	case strings.TrimSpace(old) != old && strings.TrimSpace(old) != "" && strings.Contains(text, strings.TrimSpace(old)):
		hint = "old_string matches only without its leading or trailing whitespace; " + hint
	}
	return tools.Errorf(tools.KindNotFound, hint, "old_string was not found in %s", rel).With("path", rel)
}

// fsEditMatchLines returns the 1-based line numbers where old starts, at
// most limit of them.
func fsEditMatchLines(text, old string, limit int) []int {
	var lines []int
	line, pos := 1, 0
	for len(lines) < limit {
		i := strings.Index(text[pos:], old)
		if i < 0 {
			break
		}
		line += strings.Count(text[pos:pos+i], "\n")
		lines = append(lines, line)
		// Count the newlines inside the match as well, and go on after it,
		// as strings.Count does.
		line += strings.Count(old, "\n")
		pos += i + len(old)
	}
	return lines
}

func fsEditJoinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

func fsEditSummary(p *fsPlan) string {
	return fmt.Sprintf("Edit %s (%s)", p.rel, fsLineDelta(p.diff))
}

// DryRun implements Tool: the summary, the diff and the undo data of the
// edit, without writing.
func (t *fsEditTool) DryRun(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	p, _, err := t.plan(ctx, args)
	if err != nil {
		return fsResult(ctx, tools.Result{}, err)
	}
	return fsPreviewResult(t.blobs, p, fsEditSummary(p))
}

// Execute implements Tool.
func (t *fsEditTool) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	p, n, err := t.plan(ctx, args)
	if err != nil {
		return fsResult(ctx, tools.Result{}, err)
	}
	res, err := fsExecuteResult(ctx, t.ws, t.blobs, p, fsEditSummary(p))
	if err != nil {
		return fsResult(ctx, tools.Result{}, err)
	}
	res.Output = fsEditOutput{
		Path:         p.rel,
		Replacements: n,
		SizeBytes:    len(p.data),
		LinesAdded:   p.diff.Added,
		LinesRemoved: p.diff.Removed,
	}
	return res, nil
}

// Revert implements Reverter.
func (t *fsEditTool) Revert(ctx context.Context, undo json.RawMessage, force bool) (json.RawMessage, error) {
	return fsRevert(ctx, t.ws, t.blobs, undo, force)
}
