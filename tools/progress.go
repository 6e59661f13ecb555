package tools

import "context"

type progressKey struct{}

// WithProgress returns a context under which a tool that produces output
// as it runs (shell_run) passes each piece to fn as well. fn may be called
// from several goroutines at once and must not keep p.
func WithProgress(ctx context.Context, fn func(p []byte)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// progressOf returns the progress function of ctx, or nil.
func progressOf(ctx context.Context) func([]byte) {
	fn, _ := ctx.Value(progressKey{}).(func([]byte))
	return fn
}
