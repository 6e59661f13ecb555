package tools

import "context"

type progressKey struct{}

// WithProgress returns a context under which a tool that produces output
// as it runs (shell_run) passes each piece to fn as well. fn may be called
// from several goroutines at once and must not keep p.
func WithProgress(ctx context.Context, fn func(p []byte)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ProgressOf returns the progress function of ctx, or nil.
func ProgressOf(ctx context.Context) func([]byte) {
	fn, _ := ctx.Value(progressKey{}).(func([]byte))
	return fn
}

type noteKey struct{}

// WithProgressNote returns a context under which a tool that learns how
// far it got (an MCP server's progress notifications) reports it to fn as
// one short line, the newest replacing the last. fn may be called from
// several goroutines at once.
func WithProgressNote(ctx context.Context, fn func(note string)) context.Context {
	return context.WithValue(ctx, noteKey{}, fn)
}

// ProgressNote returns the progress-note function of ctx, or nil.
func ProgressNote(ctx context.Context) func(string) {
	fn, _ := ctx.Value(noteKey{}).(func(string))
	return fn
}
