package chat

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/sashabaranov/go-openai"
)

// callAccumulator assembles streamed tool-call deltas into whole calls. The
// servers disagree on how a delta names the call it belongs to:
//
//   - OpenAI, vLLM, llama.cpp, LM Studio: an index on every delta, id and
//     name on the first (llama.cpp repeats the id, LM Studio repeats name "").
//   - Ollama's built-in parsers: each call whole in one delta, and every call
//     with index 0; only a new id tells two calls apart.
//   - Some proxies (Gemini's endpoint): no index at all; a delta carrying a
//     new id or name starts a call, one without continues the last.
//
// Invariants: an id or name once known is never replaced by ""; the same name
// sent again is not appended twice; calls keep the order they started in.
type callAccumulator struct {
	calls   []*pendingCall
	byIndex map[int]*pendingCall
	last    *pendingCall
}

// pendingCall is a tool call still being received.
type pendingCall struct {
	id   string
	name string
	args strings.Builder
}

func (a *callAccumulator) add(d *wireToolCall) {
	var c *pendingCall
	if d.Index != nil {
		c = a.byIndex[*d.Index]
		if c != nil && d.ID != "" && c.id != "" && d.ID != c.id {
			c = nil // a new id under an index already in use: Ollama's next call
		}
		if c == nil {
			c = a.start()
			if a.byIndex == nil {
				a.byIndex = map[int]*pendingCall{}
			}
			a.byIndex[*d.Index] = c
		}
	} else {
		c = a.last
		if c == nil || startsIndexlessCall(c, d) {
			c = a.start()
		}
	}
	if c.id == "" {
		c.id = d.ID
	}
	if n := d.Function.Name; n != "" && n != c.name {
		// Appending (rather than replacing) keeps a name streamed in
		// fragments whole; the equality test keeps a repeated name single.
		c.name += n
	}
	c.args.WriteString(string(d.Function.Arguments))
	a.last = c
}

func (a *callAccumulator) start() *pendingCall {
	c := &pendingCall{}
	a.calls = append(a.calls, c)
	return c
}

// startsIndexlessCall says whether a delta without an index begins a new
// call rather than continuing c: it must carry a header (id or name) that is
// not a repetition of c's, or follow a call whose arguments are already a
// complete JSON value (two calls of the same tool, neither with an id).
func startsIndexlessCall(c *pendingCall, d *wireToolCall) bool {
	if d.ID == "" && d.Function.Name == "" {
		return false
	}
	if d.ID != "" && c.id != "" {
		return d.ID != c.id
	}
	if d.Function.Name != "" && c.name != "" && d.Function.Name != c.name {
		return true
	}
	args := strings.TrimSpace(c.args.String())
	return args != "" && json.Valid([]byte(args))
}

// finish returns the calls ready to run, in order, and whether a call was
// dropped because its arguments were cut short. partial is set when the
// answer may have stopped in the middle of the last call (finish_reason
// "length", or a stream that ended early): then a last call without
// arguments is dropped too, since its arguments were still to come.
//
// Arguments that are malformed JSON in an answer that finished normally
// are kept as sent (cut-short ones included: a model that forgot a closing
// brace can fix it): the registry rejects them with an invalid_args error
// the model can act on. Only an answer that stopped early has its cut-short
// calls dropped.
// Empty arguments become "{}". An empty or duplicate id is replaced by a
// generated "call_<n>" so that every tool message names exactly one call.
func (a *callAccumulator) finish(partial bool) (calls []openai.ToolCall, truncated bool) {
	for i, c := range a.calls {
		args := strings.TrimSpace(c.args.String())
		if c.id == "" && c.name == "" && args == "" {
			continue // an empty delta, not a call
		}
		switch {
		case args == "":
			if partial && i == len(a.calls)-1 {
				truncated = true
				continue
			}
			args = "{}"
		case partial && !json.Valid([]byte(args)) && jsonCutShort(args):
			truncated = true
			continue
		}
		calls = append(calls, openai.ToolCall{
			ID:       c.id,
			Type:     openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: c.name, Arguments: args},
		})
	}
	assignCallIDs(calls)
	return calls, truncated
}

// assignCallIDs gives every call a unique id: the first holder of a server
// id keeps it; empty and repeated ids become "call_<n>", n being the call's
// position, bumped past any id already taken.
func assignCallIDs(calls []openai.ToolCall) {
	taken := make(map[string]bool, len(calls))
	keep := make([]bool, len(calls))
	for i, c := range calls {
		if c.ID != "" && !taken[c.ID] {
			taken[c.ID] = true
			keep[i] = true
		}
	}
	for i := range calls {
		if keep[i] {
			continue
		}
		for n := i + 1; ; n++ {
			id := "call_" + strconv.Itoa(n)
			if !taken[id] {
				taken[id] = true
				calls[i].ID = id
				break
			}
		}
	}
}

// jsonCutShort reports whether s is the beginning of a JSON value that ended
// too early, as opposed to JSON that is wrong where it stands.
func jsonCutShort(s string) bool {
	var v json.RawMessage
	err := json.NewDecoder(strings.NewReader(s)).Decode(&v)
	return errors.Is(err, io.ErrUnexpectedEOF)
}
