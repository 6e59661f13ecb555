package ui

import (
	"context"
	"io"
	"log/slog"
)

// New returns the root model for b. It reads the backend's status (no
// network I/O) so that the first frame shows the model and the level.
func New(b Backend, opts Options) Model {
	return newModel(context.Background(), b, opts, slog.New(slog.NewTextHandler(io.Discard, nil)))
}
