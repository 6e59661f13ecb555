package app

import (
	"reflect"
	"runtime/debug"

	"myclaw/ui"
)

// fromPrompt drops what comes before the first prompt of list: the end of
// a turn that the tail of a long transcript cut in two.
func fromPrompt(list []ui.Earlier) []ui.Earlier {
	for i, e := range list {
		if e.Role == "user" {
			return list[i:]
		}
	}
	return list
}

// rest loads a session resumed from its last turns (shown, what the first
// frame showed of them) and gives the TUI the turns before them: the whole
// conversation instead, in the rare case that its end is not what was
// shown.
func (b *tuiBackend) rest(shown []ui.Earlier) ui.Rest {
	notes, err := b.LoadRest()
	var r ui.Rest
	for _, n := range notes {
		r.Notices = append(r.Notices, ui.Notice{Text: n, Warning: true})
	}
	if err != nil {
		r.Err = err
		return r
	}
	all := earlier(b.Messages(), b.PastCalls())
	if k := len(all) - len(shown); k >= 0 && sameEarlier(all[k:], shown) {
		r.Before = all[:k]
	} else {
		r.Before, r.Whole = all, true
	}
	r.Journal, _ = b.History()
	// The transcript as read and decoded, and this list, are garbage once
	// the TUI has the turns in place: megabytes given back then rather
	// than kept until the runtime's scavenger gets to them.
	r.Placed = debug.FreeOSMemory
	return r
}

// sameEarlier reports whether x and y show the same.
func sameEarlier(x, y []ui.Earlier) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		a, b := x[i], y[i]
		if a.Role != b.Role || a.Text != b.Text || (a.Call == nil) != (b.Call == nil) {
			return false
		}
		if a.Call != nil && !reflect.DeepEqual(*a.Call, *b.Call) {
			return false
		}
	}
	return true
}
