package ui

import (
	"bytes"
	"regexp"
)

// Synchronized output (DEC mode 2026) lets the terminal show each frame
// whole. It is used only where the terminal says it has it: asked once at
// start with DECRQM, followed by a primary device attributes request that
// every terminal answers, so the wait ends as soon as the answers are in.
// Inside tmux the answer is tmux's own: it does not pass the request on.

const syncQuery = "\x1b[?2026$p\x1b[c"

var (
	syncReport = regexp.MustCompile(`\x1b\[\?2026;([0-4])\$y`)
	daReport   = regexp.MustCompile(`\x1b\[\?[0-9;]*c`)
)

// syncAnswer reads the terminal's answers to syncQuery: done once the
// device attributes arrived, ok when the mode is known and can be set
// (1 set, 2 reset, 3 permanently set; 0 unknown and 4 permanently reset
// cannot).
func syncAnswer(got []byte) (ok, done bool) {
	done = daReport.Match(got)
	if m := syncReport.FindSubmatch(got); m != nil {
		ok = bytes.ContainsAny(m[1], "123")
	}
	return ok, done
}
