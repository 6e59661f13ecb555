package tools

import (
	"context"
	"encoding/json"
)

// Previewer is a tool whose calls can run first where their changes land
// in a scratch layer: the person approves the result, which is then applied
// through the journal, or discarded. The call runs once, never twice.
type Previewer interface {
	// CanPreview says why a call cannot be previewed ("" when it can).
	CanPreview(raw json.RawMessage) string
	// Preview runs the call in the scratch layer.
	Preview(ctx context.Context, raw json.RawMessage) (Preview, error)
}

// Preview is a call that ran in a scratch layer.
type Preview interface {
	// Summary is one line for the approval pane; Report is what the call
	// printed and the diff of what it would change.
	Summary() string
	Report() string
	// Discard drops the layer: nothing of the run reaches the workspace.
	Discard()
}

type previewKey struct{}

// WithPreviewed returns ctx carrying an approved preview: the tool's
// Execute applies it instead of running the call again.
func WithPreviewed(ctx context.Context, p Preview) context.Context {
	return context.WithValue(ctx, previewKey{}, p)
}

// PreviewedFrom returns the approved preview ctx carries, or nil.
func PreviewedFrom(ctx context.Context) Preview {
	p, _ := ctx.Value(previewKey{}).(Preview)
	return p
}
