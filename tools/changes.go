package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// FileChange is one change of one file as a file tool's undo data records
// it, with both contents loaded: what /diff shows.
type FileChange struct {
	Path string
	// Before and After are nil where the file did not exist.
	Before, After []byte
}

// ReadFileChange decodes the undo data of fs_write or fs_edit and loads
// both contents from blobs. ok is false when undo is not a file change.
func ReadFileChange(blobs BlobStore, undo json.RawMessage) (c FileChange, ok bool, err error) {
	var fc fsChange
	dec := json.NewDecoder(bytes.NewReader(undo))
	dec.DisallowUnknownFields()
	if dec.Decode(&fc) != nil || fc.Path == "" {
		return c, false, nil
	}
	load := func(s fsFileState) ([]byte, error) {
		if !s.Exists {
			return nil, nil
		}
		if blobs == nil {
			return nil, fmt.Errorf("no blob store to read %s from", fc.Path)
		}
		b, err := blobs.Get(s.SHA256)
		if err == nil && b == nil {
			b = []byte{}
		}
		return b, err
	}
	c.Path = fc.Path
	if c.Before, err = load(fc.Before); err != nil {
		return c, true, fmt.Errorf("the earlier content of %s: %w", fc.Path, err)
	}
	if c.After, err = load(fc.After); err != nil {
		return c, true, fmt.Errorf("the later content of %s: %w", fc.Path, err)
	}
	return c, true, nil
}

// FileDiff is the unified diff from before to after of the file at path,
// as the write previews show it; nil means the file does not exist.
func FileDiff(path string, before, after []byte) string {
	oldName, newName := "a/"+path, "b/"+path
	if before == nil {
		oldName = "/dev/null"
	}
	if after == nil {
		newName = "/dev/null"
	}
	return diffUnified(oldName, newName, before, after).Text()
}
