package agent

import (
	"encoding/json"

	"myclaw/approval"
	"myclaw/tools"
)

// Bounds of what a call record keeps for the screen of a resumed session.
const (
	recordTextBytes = 4 << 10
	recordDiffBytes = 16 << 10
)

// CallRecord is how a call ended, kept in the session transcript (kind
// "call") so that a resumed conversation shows each call as it happened:
// what ran, denied with the reason, edited, its result.
type CallRecord struct {
	Result ToolResultEvent `json:"result"`
	// Body is the result's raw text for display (cut), which the event
	// itself does not serialise.
	Body string `json:"body,omitempty"`
	// Decision is the approval decision, when one was made.
	Decision *approval.Decision `json:"decision,omitempty"`
}

// recordCalls wraps emit so that every call's end is also written to the
// session, with the decision that came before it. The session cannot
// change while a turn runs.
func (a *Agent) recordCalls(s sessionAppender, emit func(Event)) func(Event) {
	decisions := map[string]*approval.Decision{}
	return func(e Event) {
		switch ev := e.(type) {
		case ApprovalEvent:
			if ev.Phase == "decided" && ev.Decision != nil {
				d := *ev.Decision
				d.Args = nil
				decisions[ev.CallID] = &d
			}
		case ToolResultEvent:
			rec := CallRecord{Result: ev, Body: tools.Clip(ev.Body, recordTextBytes), Decision: decisions[ev.Call.ID]}
			delete(decisions, ev.Call.ID)
			rec.Result.Content = tools.Clip(ev.Content, recordTextBytes)
			rec.Result.Diff = tools.Clip(ev.Diff, recordDiffBytes)
			if err := s.Append("call", rec); err != nil {
				a.opts.Logf("persist call record: %v", err)
			}
		}
		emit(e)
	}
}

type sessionAppender interface {
	Append(kind string, data any) error
}

// PastCalls returns the call records of the session as it was loaded,
// oldest first: what a resumed conversation shows for its calls.
func (a *Agent) PastCalls() []CallRecord {
	_ = a.ready()
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]CallRecord(nil), a.pastCalls...)
}

func decodeCallRecord(data json.RawMessage) (CallRecord, bool) {
	var r CallRecord
	if json.Unmarshal(data, &r) != nil || r.Result.Call.ID == "" {
		return r, false
	}
	r.Result.Body = r.Body
	return r, true
}
