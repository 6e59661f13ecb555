package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"myclaw/tools"
	"strings"
)

//go:embed fs_write.md
var fsWriteDescription string

const fsWriteSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to create or replace, relative to the workspace."},
    "content": {"type": "string", "description": "The complete new content of the file."}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`

type fsWriteArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

// fsWriteOutput is what fs_write tells the model.
type fsWriteOutput struct {
	Path         string `json:"path"`
	SizeBytes    int    `json:"size_bytes"`
	Created      bool   `json:"created"`
	LinesAdded   int    `json:"lines_added"`
	LinesRemoved int    `json:"lines_removed"`
}

type fsWriteTool struct {
	ws    *Workspace
	blobs tools.BlobStore
}

// NewFsWrite returns the fs_write tool, which creates or replaces a file of
// the workspace. It implements Reverter: prior and new contents go to
// blobs. With a nil BlobStore the tool still writes but yields no undo data.
func NewFsWrite(ws *Workspace, blobs tools.BlobStore) tools.Tool {
	return &fsWriteTool{ws: ws, blobs: blobs}
}

// Meta implements Tool.
func (t *fsWriteTool) Meta() tools.Meta {
	return tools.Meta{
		Name:           "fs_write",
		Description:    fsWriteDescription,
		Schema:         json.RawMessage(fsWriteSchema),
		Risk:           tools.RiskMedium,
		Idempotent:     true,
		SupportsDryRun: true,
		Capability:     "fs:write",
		Timeout:        fsToolTimeout,
		Source:         tools.SourceBuiltin,
	}
}

func (t *fsWriteTool) plan(ctx context.Context, args json.RawMessage) (*fsPlan, error) {
	var a fsWriteArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, tools.Errorf(tools.KindInvalidArgs, "Send {\"path\": \"...\", \"content\": \"...\"}.", "arguments for fs_write are not valid: %v", err)
	}
	if a.Content == nil {
		return nil, tools.Errorf(tools.KindInvalidArgs, "Send the complete new content in \"content\" (an empty string makes an empty file).", "content is missing")
	}
	if strings.HasSuffix(a.Path, "/") {
		return nil, tools.Errorf(tools.KindInvalidArgs, "Name a file, for example \"notes/todo.md\"; folders are created as needed.", "path %q ends with '/', which names a folder", a.Path)
	}
	rel, e := t.ws.Rel(a.Path)
	if e != nil {
		return nil, e
	}
	if len(*a.Content) > fsMaxWriteBytes {
		return nil, tools.Errorf(tools.KindQuotaExceeded, "Write less at once: split the content into several files, or ask the user.", "content is %s, over the %s limit", tools.HumanSize(int64(len(*a.Content))), tools.HumanSize(fsMaxWriteBytes)).
			With("size_bytes", len(*a.Content)).With("limit_bytes", fsMaxWriteBytes)
	}
	return fsPlanChange(ctx, t.ws, rel, []byte(*a.Content))
}

func fsWriteSummary(p *fsPlan) string {
	switch {
	case p.unchanged():
		return fmt.Sprintf("No change to %s (content identical)", p.rel)
	case !p.exists:
		return fmt.Sprintf("Create %s (%s)", p.rel, tools.HumanSize(int64(len(p.data))))
	}
	return fmt.Sprintf("Overwrite %s (%s)", p.rel, fsLineDelta(p.diff))
}

// DryRun implements Tool: the summary, the diff and the undo data of the
// write, without writing.
func (t *fsWriteTool) DryRun(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	p, err := t.plan(ctx, args)
	if err != nil {
		return fsResult(ctx, tools.Result{}, err)
	}
	return fsPreviewResult(t.blobs, p, fsWriteSummary(p))
}

// Execute implements Tool.
func (t *fsWriteTool) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	p, err := t.plan(ctx, args)
	if err != nil {
		return fsResult(ctx, tools.Result{}, err)
	}
	res, err := fsExecuteResult(ctx, t.ws, t.blobs, p, fsWriteSummary(p))
	if err != nil {
		return fsResult(ctx, tools.Result{}, err)
	}
	res.Output = fsWriteOutput{
		Path:         p.rel,
		SizeBytes:    len(p.data),
		Created:      !p.exists,
		LinesAdded:   p.diff.Added,
		LinesRemoved: p.diff.Removed,
	}
	return res, nil
}

// Revert implements Reverter.
func (t *fsWriteTool) Revert(ctx context.Context, undo json.RawMessage, force bool) (json.RawMessage, error) {
	return fsRevert(ctx, t.ws, t.blobs, undo, force)
}

// fsResult passes a file tool's result on, but reports the context's own
// error when the call was cancelled or timed out, so that the caller can
// tell a timeout from a failure.
func fsResult(ctx context.Context, res tools.Result, err error) (tools.Result, error) {
	if err != nil && ctx.Err() != nil {
		return tools.Result{}, ctx.Err()
	}
	return res, err
}

// fsPreviewResult is the dry run of a planned change. The contents are
// already put in blobs: a journal may record the undo data before the call
// runs.
func fsPreviewResult(blobs tools.BlobStore, p *fsPlan, summary string) (tools.Result, error) {
	res := tools.Result{
		Summary:    summary,
		Preview:    p.diff.Text(),
		Capability: "fs:write:" + p.rel,
		Unchanged:  p.unchanged(),
	}
	if p.unchanged() {
		res.UndoPlan = fsUndoPlan(p, nil)
		return res, nil
	}
	if blobs == nil {
		return res, nil
	}
	before, after, err := fsKeep(blobs, p)
	if err != nil {
		return tools.Result{}, err
	}
	res.Undo, err = json.Marshal(tools.FileUndo{Path: p.rel, Before: before, After: after, CreatedDirs: p.missing})
	res.UndoPlan = fsUndoPlan(p, p.missing)
	return res, err
}

// fsExecuteResult makes the planned change (nothing when the content is
// unchanged) and returns the result with its undo data.
func fsExecuteResult(ctx context.Context, ws *Workspace, blobs tools.BlobStore, p *fsPlan, summary string) (tools.Result, error) {
	if p.unchanged() {
		// Nothing to do, so nothing for the journal to keep.
		return tools.Result{Summary: summary, Capability: "fs:write:" + p.rel, Unchanged: true, UndoPlan: fsUndoPlan(p, nil)}, nil
	}
	var before, after tools.FileState
	if blobs != nil {
		// Keep both contents before touching the file, so that whatever
		// happens after the write, undo finds what it needs.
		var err error
		if before, after, err = fsKeep(blobs, p); err != nil {
			return tools.Result{}, err
		}
	}
	created, err := fsApply(ctx, ws, p)
	if err != nil {
		return tools.Result{}, err
	}
	res := tools.Result{Summary: summary, Capability: "fs:write:" + p.rel}
	if blobs != nil {
		res.Undo, err = json.Marshal(tools.FileUndo{Path: p.rel, Before: before, After: after, CreatedDirs: created})
		if err != nil {
			return tools.Result{}, err
		}
		res.UndoPlan = fsUndoPlan(p, created)
	}
	return res, nil
}
