package history

import "errors"

// ErrNoSession is returned (wrapped) when a session asked for does not exist.
var ErrNoSession = errors.New("no session")

// ErrCorruptBlob is returned by Blobs.Get when a stored blob no longer
// hashes to its name.
var ErrCorruptBlob = errors.New("blob is corrupt")

// Journal errors.
var (
	// ErrNothingToUndo is returned by Journal.Undo when no call is left to
	// revert or pass.
	ErrNothingToUndo = errors.New("nothing to undo")
	// ErrNothingToRedo is returned by Journal.Redo when no undone call can
	// be re-applied.
	ErrNothingToRedo = errors.New("nothing to redo")
	// ErrJournalClosed is returned by writes to a closed Journal.
	ErrJournalClosed = errors.New("journal is closed")
)
