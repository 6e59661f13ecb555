package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// FileState is the state of one path as undo data records it: either no
// file, or a regular file with these bytes (kept in the BlobStore) and mode.
type FileState struct {
	Exists bool   `json:"exists"`
	SHA256 string `json:"sha256,omitempty"`
	Mode   uint32 `json:"mode,omitempty"` // permission bits
}

// FileUndo is the undo data of the file tools: one change of one file. It
// is symmetric: the redo data is a FileUndo with the roles swapped.
type FileUndo struct {
	Path   string    `json:"path"`
	Before FileState `json:"before"`
	After  FileState `json:"after"`
	// CreatedDirs lists the folders the change created, parents first.
	CreatedDirs []string `json:"created_dirs,omitempty"`
}

// FileChange is one change of one file as a file tool's undo data records
// it, with both contents loaded: what /diff shows.
type FileChange struct {
	Path string
	// Before and After are nil where the file did not exist.
	Before, After []byte
	// BeforeMode and AfterMode are the permission bits, 0 where unknown.
	BeforeMode, AfterMode uint32
}

// ReadFileChange decodes the undo data of fs_write or fs_edit and loads
// both contents from blobs. ok is false when undo is not a file change.
func ReadFileChange(blobs BlobStore, undo json.RawMessage) (c FileChange, ok bool, err error) {
	var fc FileUndo
	dec := json.NewDecoder(bytes.NewReader(undo))
	dec.DisallowUnknownFields()
	if dec.Decode(&fc) != nil || fc.Path == "" {
		return c, false, nil
	}
	load := func(s FileState) ([]byte, error) {
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
	c.BeforeMode, c.AfterMode = fc.Before.Mode, fc.After.Mode
	if c.Before, err = load(fc.Before); err != nil {
		return c, true, fmt.Errorf("the earlier content of %s: %w", fc.Path, err)
	}
	if c.After, err = load(fc.After); err != nil {
		return c, true, fmt.Errorf("the later content of %s: %w", fc.Path, err)
	}
	return c, true, nil
}

// ReadFileChanges is ReadFileChange for undo data of one file (fs_write,
// fs_edit) or of many: a "changes" list of FileUndo, as a shell command's
// undo data holds what it changed in the workspace. ok is false when undo
// holds no file change.
func ReadFileChanges(blobs BlobStore, undo json.RawMessage) (out []FileChange, ok bool, err error) {
	if c, ok, err := ReadFileChange(blobs, undo); ok {
		return []FileChange{c}, true, err
	}
	var many struct {
		Changes []FileUndo `json:"changes"`
	}
	if json.Unmarshal(undo, &many) != nil || len(many.Changes) == 0 {
		return nil, false, nil
	}
	for _, fu := range many.Changes {
		raw, _ := json.Marshal(fu)
		c, ok, err := ReadFileChange(blobs, raw)
		if !ok {
			continue
		}
		if err != nil {
			return out, true, err
		}
		out = append(out, c)
	}
	return out, len(out) > 0, nil
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
	return Diff(oldName, newName, before, after).Text()
}

// FileModeDiff is FileDiff with a line for a change of the permission
// bits (0 where unknown), so that a chmod alone does not show as nothing.
func FileModeDiff(path string, before, after []byte, beforeMode, afterMode uint32) string {
	d := FileDiff(path, before, after)
	if beforeMode == 0 || afterMode == 0 || beforeMode == afterMode || before == nil || after == nil {
		return d
	}
	mode := fmt.Sprintf("mode %04o → %04o\n", beforeMode, afterMode)
	if d == "" {
		return "--- " + ShowPath("a/"+path) + "\n+++ " + ShowPath("b/"+path) + "\n" + mode
	}
	// After the two header lines, before the first hunk.
	if i := strings.Index(d, "\n+++ "); i >= 0 {
		if j := strings.IndexByte(d[i+1:], '\n'); j >= 0 {
			at := i + 1 + j + 1
			return d[:at] + mode + d[at:]
		}
	}
	return d + mode
}
