package history

import "errors"

// ErrNoSession is returned (wrapped) when a session asked for does not exist.
var ErrNoSession = errors.New("no session")

// ErrCorruptBlob is returned by Blobs.Get when a stored blob no longer
// hashes to its name.
var ErrCorruptBlob = errors.New("blob is corrupt")
