package builtin

import (
	"context"
	"path/filepath"
	"sync/atomic"
)

// BufferReader reads a file of the workspace as an editor holds it (its
// absolute path), unsaved changes included; ok is false to read the file
// on disk instead.
type BufferReader func(ctx context.Context, abs string) (text string, ok bool)

// bufferReader holds the workspace's BufferReader, set once an editor
// offers one.
type bufferReader struct{ fn atomic.Pointer[BufferReader] }

// ReadBuffersWith makes fs_read read files through read (an editor's
// fs/read_text_file). Confinement is checked on the file on disk first,
// as for any read.
func (w *Workspace) ReadBuffersWith(read BufferReader) { w.buffers.fn.Store(&read) }

// buffer is the editor's copy of rel, if there is a reader and it has one.
func (w *Workspace) buffer(ctx context.Context, rel string) (string, bool) {
	fn := w.buffers.fn.Load()
	if fn == nil {
		return "", false
	}
	return (*fn)(ctx, filepath.Join(w.dir, filepath.FromSlash(rel)))
}
