package app

import (
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"

	"myclaw/history"
	"myclaw/ui"
)

// resumedNotice says which session was resumed, and, when its messages
// are counted (n > 0: a long one's only once the rest is loaded), how
// many it holds; more ends the sentence.
func resumedNotice(info history.SessionInfo, n int, more string) string {
	when := info.Updated.Local().Format("2006-01-02 15:04")
	if n <= 0 {
		return fmt.Sprintf("Resumed session %s (last used %s): the model remembers it%s.", info.ID, when, more)
	}
	return fmt.Sprintf("Resumed session %s (%d earlier messages, last used %s): the model remembers them%s.", info.ID, n, when, more)
}

// conversation is what the TUI shows of the session the agent holds now
// (resumed, opened or forked): a long one's last turns, with rest loading
// those before them behind the first frame (and giving the notice notice
// makes with the count of messages, when notice is set), or a short one
// whole, with its count of messages.
func (b *tuiBackend) conversation(notice func(msgs int) string) (list []ui.Earlier, rest func() ui.Rest, msgs int) {
	if t, ok := b.Tail(); ok {
		list = fromPrompt(earlier(t.Messages, t.Calls))
		s := b.Session()
		return list, func() ui.Rest { return b.rest(s, list, notice) }, 0
	}
	all := b.Messages()
	return earlier(all, b.PastCalls()), nil, len(all)
}

// errSwitched is the answer of a load whose session another replaced
// before it ran: the TUI has let go of it by then.
var errSwitched = errors.New("another session was opened meanwhile")

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

// rest loads s, resumed from its last turns (shown, what the first frame
// showed of them), and gives the TUI the turns before them: the whole
// conversation instead, in the rare case that its end is not what was
// shown.
func (b *tuiBackend) rest(s *history.Session, shown []ui.Earlier, notice func(msgs int) string) ui.Rest {
	if b.Session() != s {
		return ui.Rest{Err: errSwitched}
	}
	notes, err := b.LoadRest()
	var r ui.Rest
	for _, n := range notes {
		r.Notices = append(r.Notices, ui.Notice{Text: n, Warning: true})
	}
	if err != nil {
		r.Err = err
		return r
	}
	// As loaded: a prompt sent meanwhile is on screen already.
	msgs, calls, err := b.Loaded()
	if err != nil {
		r.Err = err
		return r
	}
	if b.Session() != s {
		return ui.Rest{Err: errSwitched}
	}
	all := earlier(msgs, calls)
	if notice != nil {
		r.Notice = notice(len(msgs))
	}
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
