package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"myclaw/tools"
)

// Blobs is a content-addressed store: each blob is a file named by the hex
// SHA-256 of its content, sharded by the first two hex digits
// (dir/ab/abcdef…). Blobs are written atomically and never change, so it is
// safe for concurrent use by goroutines and processes.
type Blobs struct {
	dir string
}

var _ tools.BlobStore = (*Blobs)(nil)

// NewBlobs returns the store rooted at dir. The directory is created on the
// first Put.
func NewBlobs(dir string) *Blobs { return &Blobs{dir: dir} }

// Dir returns the directory the blobs live in.
func (b *Blobs) Dir() string { return b.dir }

// Put stores data durably and returns its hex SHA-256. Storing content that
// is already there costs a read, not a write; a stored copy that went bad is
// replaced.
func (b *Blobs) Put(data []byte) (string, error) {
	h := sha256.Sum256(data)
	sum := hex.EncodeToString(h[:])
	path := b.path(sum)
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return sum, nil
	}
	if err := ensureDir(filepath.Dir(path)); err != nil {
		return "", fmt.Errorf("store blob: %w", err)
	}
	if err := writeFileAtomic(path, data); err != nil {
		return "", fmt.Errorf("store blob: %w", err)
	}
	return sum, nil
}

// Get returns the data stored under a hex SHA-256. A malformed sum, a
// missing blob (errors.Is fs.ErrNotExist) and a blob whose content does not
// match its name (ErrCorruptBlob) are errors that say which blob.
func (b *Blobs) Get(sum string) ([]byte, error) {
	if !tools.IsSHA256Hex(sum) {
		return nil, fmt.Errorf("blob %q: not a hex SHA-256 (want 64 lowercase hex digits)", sum)
	}
	data, err := os.ReadFile(b.path(sum))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("blob %s is missing from %s: %w", sum, b.dir, fs.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", sum, err)
	}
	h := sha256.Sum256(data)
	if got := hex.EncodeToString(h[:]); got != sum {
		return nil, fmt.Errorf("blob %s in %s: content hashes to %s: %w", sum, b.dir, got, ErrCorruptBlob)
	}
	return data, nil
}

func (b *Blobs) path(sum string) string {
	return filepath.Join(b.dir, sum[:2], sum)
}
