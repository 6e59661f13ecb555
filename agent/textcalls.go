package agent

import (
	"bytes"
	"encoding/json"
	"myclaw/agent/chat"
	"strconv"
	"strings"

	"github.com/sashabaranov/go-openai"
)

// textCallKeys are the only keys a tool call written as text may have, so
// that ordinary JSON an answer shows (a config file, an example) is not taken
// for a call just because it has a "name".
var textCallKeys = map[string]bool{
	"name": true, "arguments": true, "parameters": true, "function": true, "type": true, "id": true,
}

// textCallFenceTags are the code-fence languages that may hold a call.
var textCallFenceTags = map[string]bool{"json": true, "tool_call": true, "tool_calls": true}

const (
	toolCallOpen  = "<tool_call>"
	toolCallClose = "</tool_call>"
	codeFence     = "```"
)

// ParseTextToolCalls recognises tool calls a model wrote as text instead of as
// real tool calls: a ```json (or ```tool_call) block or <tool_call>...</tool_call>
// tags holding {"name": ..., "arguments": {...}} (also "parameters", and a list
// of such objects), only for names that known(name) accepts. It returns the
// calls (ids "text_call_<n>", arguments as compact JSON) and the content with
// those blocks removed.
//
// A block is taken whole or not at all: if any object in it is not a call to
// a known tool, the block stays in the content. An unclosed <tool_call> at the
// end of the content (the model stopped after the call) counts. Arguments
// given as a JSON string holding an object (the wire format) are accepted.
// When nothing is recognised, rest is content unchanged.
func ParseTextToolCalls(content string, known func(name string) bool) (calls []openai.ToolCall, rest string) {
	type span struct{ start, end int }
	var removed []span
	for pos := 0; pos < len(content); {
		fence := textIndexFrom(content, codeFence, pos)
		tag := textIndexFrom(content, toolCallOpen, pos)
		switch {
		case fence < 0 && tag < 0:
			pos = len(content)
		case tag >= 0 && (fence < 0 || tag < fence):
			bodyStart := tag + len(toolCallOpen)
			end, bodyEnd := len(content), len(content)
			if i := textIndexFrom(content, toolCallClose, bodyStart); i >= 0 {
				bodyEnd, end = i, i+len(toolCallClose)
			}
			if found, ok := parseTextCallBody(content[bodyStart:bodyEnd], known); ok {
				calls = append(calls, found...)
				removed = append(removed, span{tag, end})
			}
			pos = end
		default:
			// Every fence is skipped whole, closer included, so that the
			// closer of a ```go block is never read as an opener.
			lineEnd := textIndexFrom(content, "\n", fence)
			if lineEnd < 0 {
				pos = len(content)
				continue
			}
			lang := strings.ToLower(strings.TrimSpace(content[fence+len(codeFence) : lineEnd]))
			if !textCallFenceTags[lang] {
				if cl := lineStartFence(content, lineEnd); cl >= 0 {
					pos = cl + len(codeFence)
				} else {
					pos = len(content)
				}
				continue
			}
			firstClose := textIndexFrom(content, codeFence, lineEnd)
			if firstClose < 0 {
				pos = len(content)
				continue
			}
			pos = firstClose + len(codeFence)
			if cl := lineStartFence(content, lineEnd); cl >= 0 {
				pos = cl + len(codeFence)
			}
			// Arguments may themselves hold ``` (a file with a code block):
			// try each later closer until the body parses.
			for cl := firstClose; cl >= 0; cl = textIndexFrom(content, codeFence, cl+len(codeFence)) {
				if found, ok := parseTextCallBody(content[lineEnd+1:cl], known); ok {
					calls = append(calls, found...)
					removed = append(removed, span{fence, cl + len(codeFence)})
					pos = cl + len(codeFence)
					break
				}
			}
		}
	}
	if len(calls) == 0 {
		return nil, content
	}
	for i := range calls {
		calls[i].ID = "text_call_" + strconv.Itoa(i+1)
	}
	parts := make([]string, 0, len(removed)+1)
	last := 0
	for _, r := range removed {
		parts = append(parts, content[last:r.start])
		last = r.end
	}
	parts = append(parts, content[last:])
	return calls, joinParts(parts)
}

// joinParts joins the text left around removed blocks: with a blank line
// where a block stood on lines of its own, with a space where it sat inside
// a line.
func joinParts(parts []string) string {
	var b strings.Builder
	gap := ""
	for _, p := range parts {
		t := strings.TrimSpace(p)
		if t == "" {
			gap += p
			continue
		}
		lead := p[:strings.Index(p, t)]
		if b.Len() > 0 {
			if strings.Contains(gap+lead, "\n") {
				b.WriteString("\n\n")
			} else {
				b.WriteString(" ")
			}
		}
		b.WriteString(t)
		gap = p[len(lead)+len(t):]
	}
	return b.String()
}

// lineStartFence finds the next ``` that begins a line (after optional
// indentation) at or after from: the closer of a fenced block.
func lineStartFence(s string, from int) int {
	for i := textIndexFrom(s, codeFence, from); i >= 0; i = textIndexFrom(s, codeFence, i+len(codeFence)) {
		j := i
		for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
			j--
		}
		if j == 0 || s[j-1] == '\n' {
			return i
		}
	}
	return -1
}

// textIndexFrom is strings.Index starting at from; -1 when absent.
func textIndexFrom(s, sub string, from int) int {
	if from > len(s) {
		return -1
	}
	i := strings.Index(s[from:], sub)
	if i < 0 {
		return -1
	}
	return from + i
}

// parseTextCallBody reads one call object or a list of them; ok is false
// unless every object is a call to a known tool.
func parseTextCallBody(body string, known func(string) bool) ([]openai.ToolCall, bool) {
	body = strings.TrimSpace(body)
	if body == "" {
		return nil, false
	}
	var items []json.RawMessage
	if body[0] == '[' {
		if json.Unmarshal([]byte(body), &items) != nil || len(items) == 0 {
			return nil, false
		}
	} else {
		items = []json.RawMessage{json.RawMessage(body)}
	}
	calls := make([]openai.ToolCall, 0, len(items))
	for _, item := range items {
		c, ok := parseTextCall(item, known)
		if !ok {
			return nil, false
		}
		calls = append(calls, c)
	}
	return calls, true
}

// parseTextCall reads {"name", "arguments"|"parameters"} or the wire shape
// {"type":"function","function":{"name","arguments"}}.
func parseTextCall(raw json.RawMessage, known func(string) bool) (openai.ToolCall, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return openai.ToolCall{}, false
	}
	for k := range fields {
		if !textCallKeys[k] {
			return openai.ToolCall{}, false
		}
	}
	if fn, ok := fields["function"]; ok && fields["name"] == nil {
		if json.Unmarshal(fn, &fields) != nil {
			return openai.ToolCall{}, false
		}
	}
	var name string
	if json.Unmarshal(fields["name"], &name) != nil || name == "" || known == nil || !known(name) {
		return openai.ToolCall{}, false
	}
	args := fields["arguments"]
	if !chat.JSONPresent(args) {
		args = fields["parameters"]
	}
	compact, ok := compactArgs(args)
	if !ok {
		return openai.ToolCall{}, false
	}
	return openai.ToolCall{
		Type:     openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: name, Arguments: compact},
	}, true
}

// compactArgs returns the arguments as a compact JSON object: absent or null
// is {}, a string must hold an object.
func compactArgs(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if !chat.JSONPresent(raw) {
		return "{}", true
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		if strings.TrimSpace(s) == "" {
			return "{}", true
		}
		raw = bytes.TrimSpace([]byte(s))
	}
	if len(raw) == 0 || raw[0] != '{' {
		return "", false
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return "", false
	}
	return buf.String(), true
}
