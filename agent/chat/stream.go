package chat

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/sashabaranov/go-openai"

	"myclaw/tools/termtext"
)

// The answer is decoded here rather than with go-openai's stream reader,
// which drops the "reasoning" field (Ollama, current vLLM), ignores
// llama.cpp's legacy "error:" event, turns an error chunk after the stream
// began into a clean io.EOF and cannot tell a cut stream from a finished
// one. go-openai still provides the wire types.

// maxStreamLine bounds one SSE line (and a whole non-streamed answer): a
// single chunk may carry a large tool argument, such as a file to write.
const maxStreamLine = 64 << 20

// wireChunk is one chat.completion.chunk, or a whole chat.completion from a
// server that ignored stream=true. Fields not listed are ignored.
type wireChunk struct {
	Object  string          `json:"object"`
	Choices []wireChoice    `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Timings *wireTimings    `json:"timings"`
	Error   json.RawMessage `json:"error"`
}

// wireTimings is llama.cpp's report of the prompt's evaluation: cache_n
// tokens came from its prompt cache, prompt_n were evaluated.
type wireTimings struct {
	CacheN *int `json:"cache_n"`
}

// wireUsage is the usage object, with the cost in USD that some servers
// (OpenRouter) add to it.
type wireUsage struct {
	openai.Usage
	Cost *float64 `json:"cost"`
}

type wireChoice struct {
	Index        int        `json:"index"`
	Delta        *wireDelta `json:"delta"`
	Message      *wireDelta `json:"message"`
	FinishReason string     `json:"finish_reason"`
}

// wireDelta holds both names servers use for reasoning: "reasoning"
// (Ollama, current vLLM) and "reasoning_content" (llama.cpp, LM Studio,
// older vLLM).
type wireDelta struct {
	Content          string         `json:"content"`
	Refusal          string         `json:"refusal"`
	Reasoning        string         `json:"reasoning"`
	ReasoningContent string         `json:"reasoning_content"`
	ToolCalls        []wireToolCall `json:"tool_calls"`
}

type wireToolCall struct {
	Index    *int         `json:"index"`
	ID       string       `json:"id"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string   `json:"name"`
	Arguments wireArgs `json:"arguments"`
}

// wireArgs is a fragment of a call's arguments. It is a JSON string on the
// wire, but some servers send the arguments as a JSON object.
type wireArgs string

func (a *wireArgs) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*a = wireArgs(s)
	case bytes.Equal(b, []byte("null")):
		*a = ""
	default:
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err != nil {
			return err
		}
		*a = wireArgs(buf.String())
	}
	return nil
}

// lenientChunk mirrors wireChunk for servers whose text fields are not
// plain strings: some send content as a list of parts
// ([{"type":"text","text":"…"}]).
type lenientChunk struct {
	Object  string          `json:"object"`
	Choices []lenientChoice `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Timings *wireTimings    `json:"timings"`
	Error   json.RawMessage `json:"error"`
}

type lenientChoice struct {
	Index        int           `json:"index"`
	Delta        *lenientDelta `json:"delta"`
	Message      *lenientDelta `json:"message"`
	FinishReason string        `json:"finish_reason"`
}

type lenientDelta struct {
	Content          json.RawMessage `json:"content"`
	Refusal          json.RawMessage `json:"refusal"`
	Reasoning        json.RawMessage `json:"reasoning"`
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	ToolCalls        []wireToolCall  `json:"tool_calls"`
}

// decodeChunk decodes one JSON chunk. A text delta is decoded without
// reflection (fastChunk). Otherwise the first decode takes text fields as
// strings; only when that fails on a type does it decode again, accepting
// text given as a list of parts, and still failing on anything else.
func decodeChunk(data []byte, ch *wireChunk) error {
	if fastChunk(data, ch) {
		return nil
	}
	err := json.Unmarshal(data, ch)
	if err == nil {
		return nil
	}
	if typeErr := (*json.UnmarshalTypeError)(nil); !errors.As(err, &typeErr) {
		return err
	}
	var lc lenientChunk
	if json.Unmarshal(data, &lc) != nil {
		return err
	}
	out := wireChunk{Object: lc.Object, Usage: lc.Usage, Timings: lc.Timings, Error: lc.Error, Choices: make([]wireChoice, len(lc.Choices))}
	for i, c := range lc.Choices {
		out.Choices[i] = wireChoice{Index: c.Index, FinishReason: c.FinishReason}
		var ok bool
		if out.Choices[i].Delta, ok = c.Delta.strict(); !ok {
			return err
		}
		if out.Choices[i].Message, ok = c.Message.strict(); !ok {
			return err
		}
	}
	*ch = out
	return nil
}

// strict converts d, reading each text field as a string or a list of parts.
func (d *lenientDelta) strict() (*wireDelta, bool) {
	if d == nil {
		return nil, true
	}
	out := &wireDelta{ToolCalls: d.ToolCalls}
	for _, f := range [...]struct {
		raw json.RawMessage
		dst *string
	}{{d.Content, &out.Content}, {d.Refusal, &out.Refusal}, {d.Reasoning, &out.Reasoning}, {d.ReasoningContent, &out.ReasoningContent}} {
		text, ok := textFromParts(f.raw)
		if !ok {
			return nil, false
		}
		*f.dst = text
	}
	return out, true
}

// textFromParts reads a text field given as null, a string, or a list of
// parts of which the "text" ones are kept.
func textFromParts(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "" || p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), true
}

// streamState folds decoded chunks into a Completion.
type streamState struct {
	ctx       context.Context
	onDelta   func(StreamDelta)
	content   strings.Builder
	reasoning strings.Builder
	// held is text not yet passed on (hold), reasoning if heldReasoning.
	held          strings.Builder
	heldReasoning bool
	calls         callAccumulator
	finish        string
	usage         *openai.Usage
	cost          *float64
	cached        *int
	// chunks counts the chunks that carried choices or usage; done is set
	// by [DONE]; whole by a non-streamed completion, which is complete by
	// construction.
	chunks int
	done   bool
	whole  bool
}

// finished says the server ended its answer deliberately.
func (s *streamState) finished() bool { return s.finish != "" || s.done || s.whole }

func (s *streamState) addChunk(ch *wireChunk) {
	if len(ch.Choices) > 0 || ch.Usage != nil {
		s.chunks++
	}
	if ch.Usage != nil {
		s.usage = &ch.Usage.Usage
		if ch.Usage.Cost != nil {
			s.cost = ch.Usage.Cost
		}
		if d := ch.Usage.PromptTokensDetails; d != nil {
			n := d.CachedTokens
			s.cached = &n
		}
	}
	if t := ch.Timings; t != nil && t.CacheN != nil && s.cached == nil {
		s.cached = t.CacheN
	}
	for i := range ch.Choices {
		c := &ch.Choices[i]
		if c.Index != 0 {
			continue // only one choice is asked for (n=1)
		}
		if c.Delta != nil {
			s.addDelta(c.Delta)
		}
		if c.Message != nil {
			// A whole message lists its calls without indexes: number them
			// so that calls of the same tool without ids stay apart.
			for j := range c.Message.ToolCalls {
				if c.Message.ToolCalls[j].Index == nil {
					idx := j
					c.Message.ToolCalls[j].Index = &idx
				}
			}
			s.addDelta(c.Message)
		}
		if c.FinishReason != "" {
			s.finish = c.FinishReason
		}
	}
}

func (s *streamState) addDelta(d *wireDelta) {
	text := d.Content + d.Refusal
	// A server in transition may send the same text under both names.
	reasoning := d.Reasoning
	if reasoning == "" {
		reasoning = d.ReasoningContent
	}
	if text != "" || reasoning != "" {
		s.hold(text, reasoning)
	}
	for i := range d.ToolCalls {
		s.calls.add(&d.ToolCalls[i])
	}
}

// hold keeps a piece of text until the read it came from is used up
// (flush): a model streaming a token an event sends a few at once, and
// they go to onDelta as one, a wake-up of the screen rather than one a
// token. Content and reasoning are never joined across each other.
func (s *streamState) hold(text, reasoning string) {
	both := text != "" && reasoning != ""
	if both || (reasoning != "") != s.heldReasoning {
		s.flush()
	}
	if both {
		s.pass(StreamDelta{Content: text, Reasoning: reasoning})
		return
	}
	s.heldReasoning = reasoning != ""
	s.held.WriteString(text + reasoning)
}

// flush passes what hold kept on, unless the stream was cancelled: then
// it is dropped, from the completion too, as text after a cancel is.
func (s *streamState) flush() {
	if s.held.Len() == 0 {
		return
	}
	piece := s.held.String()
	s.held.Reset()
	if s.ctx.Err() != nil {
		return
	}
	if s.heldReasoning {
		s.pass(StreamDelta{Reasoning: piece})
	} else {
		s.pass(StreamDelta{Content: piece})
	}
}

// pass adds d to the completion and hands it to onDelta.
func (s *streamState) pass(d StreamDelta) {
	s.content.WriteString(d.Content)
	s.reasoning.WriteString(d.Reasoning)
	if s.onDelta != nil {
		s.onDelta(d)
	}
}

// completion returns what was received so far.
func (s *streamState) completion() Completion {
	calls, truncated := s.calls.finish(s.finish == "length" || !s.finished())
	return Completion{
		Content:       s.content.String(),
		Reasoning:     s.reasoning.String(),
		ToolCalls:     calls,
		FinishReason:  s.finish,
		Usage:         s.usage,
		Cost:          s.cost,
		CachedTokens:  s.cached,
		TruncatedCall: truncated,
	}
}

// bodyReadError is a failure to read the response body, as opposed to a bad
// answer in it.
type bodyReadError struct{ err error }

func (e *bodyReadError) Error() string { return "read answer: " + e.err.Error() }
func (e *bodyReadError) Unwrap() error { return e.err }

// countingReader remembers whether any byte of the body arrived: a failure
// before the first byte may be retried, one after may not.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readAnswer reads a 2xx response body into st: an SSE stream, or JSON (a
// whole completion, or chunks without SSE framing) from a server that ignored
// stream=true. It returns a *bodyReadError when reading failed, an *APIError
// when the server reported an error or sent something that is not an answer.
func (c *Client) readAnswer(body io.Reader, st *streamState) error {
	defer st.flush()
	pr := newPacedReader(body, readGap)
	pr.before = st.flush // what the last read brought is decoded: pass it on
	br := bufio.NewReaderSize(pr, 64<<10)
	if b, _ := br.Peek(len(utf8BOM)); string(b) == utf8BOM {
		_, _ = br.Discard(len(utf8BOM)) // allowed at the start of an event stream
	}
	isJSON, err := startsWithJSON(br)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return &bodyReadError{err}
	}
	if isJSON {
		return c.readJSONAnswer(br, st)
	}
	return c.readEventStream(br, st)
}

const utf8BOM = "\ufeff"

// startsWithJSON looks at the first non-blank byte without waiting for more
// than is needed: a stream's first event may be all there is for a while.
func startsWithJSON(br *bufio.Reader) (bool, error) {
	for n := 1; ; n++ {
		b, err := br.Peek(n)
		if len(b) < n {
			return false, err
		}
		switch b[n-1] {
		case ' ', '\t', '\r', '\n':
			if n == br.Size() {
				return false, nil
			}
			continue
		case '{', '[':
			return true, nil
		}
		return false, nil
	}
}

// readEventStream decodes server-sent events. Lines end in \n, \r\n or \r;
// comment lines (": ping") and fields other than data, event and error are
// ignored. A "data:" line normally ends with a blank line, but servers that
// omit the blank line are handled: a new data line after a complete JSON
// value dispatches that value first. A body with no data line at all but
// other text (an HTML page from a wrong base URL) is not an answer.
func (c *Client) readEventStream(r io.Reader, st *streamState) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxStreamLine)
	sc.Split(scanStreamLines)
	var (
		event     string
		data      []byte
		pending   bool
		sawData   bool
		firstLine string // the first line that is no SSE field, for the error
	)
	dispatch := func() error {
		err := c.dispatchEvent(event, data, st)
		event, data, pending = "", data[:0], false
		return err
	}
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if pending {
				if err := dispatch(); err != nil || st.done {
					return err
				}
			}
			event = ""
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if pending {
				if event == "" && json.Valid(data) {
					if err := dispatch(); err != nil || st.done {
						return err
					}
				} else {
					data = append(data, '\n')
				}
			}
			data = append(data, value...)
			pending, sawData = true, true
		case "event":
			event = string(value)
		case "error":
			// llama.cpp before late 2025: "error: {...}" then "data: [DONE]".
			return c.midStreamError(value)
		case "id", "retry":
		default:
			if firstLine == "" {
				firstLine = clipText(string(line), 120)
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return c.protocolError(fmt.Sprintf("a line of the stream is longer than %d MiB", maxStreamLine>>20))
		}
		return &bodyReadError{err}
	}
	if pending {
		return dispatch()
	}
	if !sawData && firstLine != "" {
		return c.protocolError("the answer is not an event stream: " + cleanServerText(firstLine))
	}
	return nil
}

// dispatchEvent handles one complete SSE event. Events named other than
// "message" or "error" (a server's "ping") are decoded when they can be and
// otherwise ignored.
func (c *Client) dispatchEvent(event string, data []byte, st *streamState) error {
	if err := st.ctx.Err(); err != nil {
		return err // stop calling onDelta at once, even with data buffered
	}
	data = bytes.TrimSpace(data)
	if event == "error" {
		return c.midStreamError(data)
	}
	if len(data) == 0 {
		return nil
	}
	if bytes.Equal(data, []byte("[DONE]")) {
		st.done = true
		return nil
	}
	var ch wireChunk
	if err := decodeChunk(data, &ch); err != nil {
		if event != "" && event != "message" {
			return nil
		}
		return c.protocolError(fmt.Sprintf("a chunk of the stream is not valid JSON (%v): %s", err, clipText(string(data), 120)))
	}
	if JSONPresent(ch.Error) {
		return c.midStreamError(ch.Error)
	}
	st.addChunk(&ch)
	return nil
}

// readJSONAnswer decodes one or more JSON values: a whole chat.completion,
// or chat.completion.chunk objects one after another.
func (c *Client) readJSONAnswer(r io.Reader, st *streamState) error {
	dec := json.NewDecoder(io.LimitReader(r, maxStreamLine))
	for {
		if err := st.ctx.Err(); err != nil {
			return err
		}
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var syntax *json.SyntaxError
			if errors.As(err, &syntax) {
				return c.protocolError(fmt.Sprintf("the answer is not valid JSON: %v", err))
			}
			return &bodyReadError{err} // io.ErrUnexpectedEOF included: the answer was cut
		}
		var ch wireChunk
		if err := decodeChunk(raw, &ch); err != nil {
			return c.protocolError(fmt.Sprintf("the answer is not a chat completion (%v): %s", err, clipText(string(raw), 120)))
		}
		if JSONPresent(ch.Error) {
			return c.midStreamError(ch.Error)
		}
		isChunk := ch.Object == "chat.completion.chunk"
		for _, choice := range ch.Choices {
			isChunk = isChunk || choice.Delta != nil
		}
		if !isChunk && len(ch.Choices) == 0 && ch.Usage == nil {
			return c.protocolError("the answer is not a chat completion: " + clipText(string(raw), 120))
		}
		st.addChunk(&ch)
		if !isChunk {
			st.whole = true
		}
	}
}

// scanStreamLines is bufio.ScanLines that also accepts a lone \r as a line
// end, as the SSE format allows.
func scanStreamLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if atEOF && len(data) == 0 {
		return 0, nil, nil
	}
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		if data[i] == '\n' {
			return i + 1, data[:i], nil
		}
		if i+1 < len(data) {
			if data[i+1] == '\n' {
				return i + 2, data[:i], nil
			}
			return i + 1, data[:i], nil
		}
		if atEOF {
			return i + 1, data[:i], nil
		}
		return 0, nil, nil // a \r at the end of the buffer: wait for a \n
	}
	if atEOF {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// JSONPresent says whether an optional JSON field was present and not null.
func JSONPresent(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

// serverErrorMessage extracts the human message from an error payload: OpenAI's
// {"error":{"message":…}}, Ollama's {"error":"…"}, vLLM's {"message":…},
// FastAPI's {"detail":…}, a bare string, or plain text.
func serverErrorMessage(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return cleanServerText(s)
	}
	var obj struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if raw[0] == '{' && json.Unmarshal(raw, &obj) == nil {
		for _, f := range []json.RawMessage{obj.Error, obj.Message, obj.Detail} {
			if JSONPresent(f) {
				if m := serverErrorMessage(f); m != "" {
					return m
				}
			}
		}
	}
	return cleanServerText(string(raw))
}

// cleanServerText makes a server's text safe to show on one line: valid UTF-8,
// no control characters, collapsed spaces, at most 500 characters.
func cleanServerText(s string) string {
	s = termtext.Screen(s)
	return clipText(strings.Join(strings.Fields(s), " "), 500)
}

// clipText shortens s to at most n characters, marking the cut.
func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
