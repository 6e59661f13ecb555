package agent

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/sashabaranov/go-openai"

	"myclaw/history"
	"myclaw/internal/parallel"
)

// Preloaded is a session's transcript and journal, read in the
// background (Preload) while the rest of a start goes on; Options.Preloaded
// hands it to New.
type Preloaded struct {
	s          *history.Session
	start      sync.Once
	done       chan struct{}
	records    []history.Record
	warnings   []string
	err        error
	dec        *loaded
	journal    *history.Journal
	journalErr error
	// tailDone is closed once PreloadTail has read the end of the
	// transcript; tail is that end when the transcript goes on before it
	// (New then leaves the rest to load behind the first frame), nil when
	// it was the whole.
	tailDone chan struct{}
	tail     *Tail
	tailErr  error
}

// decodedKinds are the kinds loadRecords decodes, and attach skips a
// message that does not decode, with a line in the log.
var decodedKinds = []string{"message", "call", "usage"}

// Preload starts reading the transcript and the journal of s, to resume
// it: the records are parsed and decoded on every core.
func Preload(s *history.Session) *Preloaded {
	p := &Preloaded{s: s, done: make(chan struct{})}
	p.begin(func() ([]history.Record, []string, error) { return s.RecordsDecoding(decodedKinds...) })
	return p
}

// begin reads the records read gives and the journal, once.
func (p *Preloaded) begin(read func() ([]history.Record, []string, error)) {
	p.start.Do(func() {
		go func() {
			defer close(p.done)
			journal := make(chan struct{})
			go func() {
				defer close(journal)
				p.journal, p.journalErr = p.s.Journal()
			}()
			p.records, p.warnings, p.err = read()
			if p.err == nil {
				p.dec = loadRecords(p.records)
			}
			<-journal
		}()
	})
}

// readAll starts reading the whole transcript and the journal, if that is
// not under way.
func (p *Preloaded) readAll() {
	p.begin(func() ([]history.Record, []string, error) { return p.s.RecordsDecoding(decodedKinds...) })
}

// loaded is a transcript's records of the kinds that are most of it
// (messages, call records, usage), decoded ahead of the replay in attach.
// A resumed session of a thousand turns is megabytes of them: they are
// decoded once each, on every core, before the first frame.
type loaded struct {
	// at maps a record to its place in msgs, calls or usage; -1 when it
	// did not decode (or is of another kind).
	at     []int32
	msgs   []openai.ChatCompletionMessage
	errs   []error // of msgs
	calls  []CallRecord
	okCall []bool
	usage  []usageRecord
	okUse  []bool
}

func loadRecords(records []history.Record) *loaded {
	l := &loaded{at: make([]int32, len(records))}
	var nm, nc, nu int32
	for i, r := range records {
		switch r.Kind {
		case "message":
			l.at[i], nm = nm, nm+1
		case "call":
			l.at[i], nc = nc, nc+1
		case "usage":
			l.at[i], nu = nu, nu+1
		default:
			l.at[i] = -1
		}
	}
	l.msgs, l.errs = make([]openai.ChatCompletionMessage, nm), make([]error, nm)
	l.calls, l.okCall = make([]CallRecord, nc), make([]bool, nc)
	l.usage, l.okUse = make([]usageRecord, nu), make([]bool, nu)
	decode := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			r, k := records[i], l.at[i]
			switch r.Kind {
			case "message":
				l.msgs[k], l.errs[k] = decodeMessage(r.Data)
			case "call":
				l.calls[k], l.okCall[k] = decodeCallRecord(r.Data)
			case "usage":
				var u usageRecord
				l.okUse[k] = json.Unmarshal(r.Data, &u) == nil && u.Kind != ""
				l.usage[k] = u
			}
		}
	}
	parallel.Ranges(len(records), decode)
	return l
}

// message returns record i's message (a "message" record).
func (l *loaded) message(i int) (openai.ChatCompletionMessage, error) {
	k := l.at[i]
	return l.msgs[k], l.errs[k]
}

// call returns record i's call record (a "call" record).
func (l *loaded) call(i int) (CallRecord, bool) {
	k := l.at[i]
	return l.calls[k], l.okCall[k]
}

// usageAt returns record i's usage (a "usage" record).
func (l *loaded) usageAt(i int) (usageRecord, bool) {
	k := l.at[i]
	return l.usage[k], l.okUse[k]
}

// decodeMessage decodes a message as openai.ChatCompletionMessage's own
// UnmarshalJSON does, without its second pass over the data: the plain
// shape first, then the one with content parts.
func decodeMessage(data []byte) (openai.ChatCompletionMessage, error) {
	var m struct {
		Role             string `json:"role"`
		Content          string `json:"content"`
		Refusal          string `json:"refusal,omitempty"`
		MultiContent     []openai.ChatMessagePart
		Name             string               `json:"name,omitempty"`
		ReasoningContent string               `json:"reasoning_content,omitempty"`
		FunctionCall     *openai.FunctionCall `json:"function_call,omitempty"`
		ToolCalls        []openai.ToolCall    `json:"tool_calls,omitempty"`
		ToolCallID       string               `json:"tool_call_id,omitempty"`
	}
	if json.Unmarshal(data, &m) == nil {
		return openai.ChatCompletionMessage(m), nil
	}
	var full openai.ChatCompletionMessage
	err := json.Unmarshal(data, &full)
	return full, err
}

// whole reports whether every tool call of msgs has its result right
// after it (the common case: a transcript needs no repair).
func whole(msgs []openai.ChatCompletionMessage) bool {
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role != openai.ChatMessageRoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		got := 0
		for i+1 < len(msgs) && msgs[i+1].Role == openai.ChatMessageRoleTool {
			i++
			got++
		}
		if got != len(m.ToolCalls) {
			return false
		}
		for j, tc := range m.ToolCalls {
			if msgs[i-got+1+j].ToolCallID != tc.ID {
				return false
			}
		}
	}
	return true
}

// shareText makes each call record's content and body, where the
// conversation's tool message of the call holds the same text, a slice of
// that message's: a resumed session keeps one copy of each result, not
// three.
func shareText(calls []CallRecord, msgs []openai.ChatCompletionMessage) []CallRecord {
	byID := make(map[string]string, len(calls))
	for _, m := range msgs {
		if m.Role == openai.ChatMessageRoleTool && m.Content != "" {
			byID[m.ToolCallID] = m.Content
		}
	}
	for i := range calls {
		r := &calls[i].Result
		text, ok := byID[r.Call.ID]
		if !ok {
			continue
		}
		r.Content = within(text, r.Content)
		r.Body = within(text, r.Body)
		calls[i].Body = r.Body
	}
	return calls
}

// within returns s as a slice of text when text holds it, else s.
func within(text, s string) string {
	if s == "" {
		return s
	}
	if i := strings.Index(text, s); i >= 0 {
		return text[i : i+len(s)]
	}
	return s
}
