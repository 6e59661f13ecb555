package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"

	"myclaw/tools"
)

// maxFrame bounds one message read from a stdio server. A longer one is
// never held whole: its start and end are kept, and it reaches the SDK as
// a result cut to the output cap with a note, so a server that answers
// with tens of megabytes stays connected and memory stays bounded.
const maxFrame = 4 << 20

// frameTail is how much of the end of an oversized message is kept, to
// find its id when the server writes it last.
const frameTail = 512

// frameFilter reads a stdio server's stdout as newline-delimited JSON-RPC
// for the SDK. Servers write other things there too (a start-up banner, log
// lines): a line that is not a JSON-RPC message is skipped and logged
// instead of ending the connection. A message longer than maxFrame is
// replaced by a shortened one (see oversized).
type frameFilter struct {
	src    *bufio.Reader
	logf   func(format string, args ...any)
	server string
	out    []byte // what is ready for the SDK
	err    error  // from src, returned once out is drained
}

func newFrameFilter(r io.Reader, server string, logf func(format string, args ...any)) *frameFilter {
	return &frameFilter{src: bufio.NewReaderSize(r, 64<<10), logf: logf, server: server}
}

// Read implements io.Reader.
func (f *frameFilter) Read(b []byte) (int, error) {
	for len(f.out) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		f.out, f.err = f.next()
	}
	n := copy(b, f.out)
	f.out = f.out[n:]
	return n, nil
}

// next reads one line and returns what the SDK should read for it.
func (f *frameFilter) next() ([]byte, error) {
	var head, tail []byte
	total := 0
	var err error
	for {
		var chunk []byte
		chunk, err = f.src.ReadSlice('\n')
		total += len(chunk)
		switch {
		case len(head) < maxFrame:
			room := maxFrame - len(head)
			if len(chunk) <= room {
				head = append(head, chunk...)
			} else {
				head = append(head, chunk[:room]...)
				tail = keepTail(tail, chunk[room:])
			}
		default:
			tail = keepTail(tail, chunk)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			break
		}
	}
	if err == io.EOF && total > 0 {
		err = nil // the last line, without its newline; EOF comes next
	}
	if total > maxFrame {
		return f.oversized(head, tail, total), err
	}
	line := bytes.TrimSpace(head)
	switch {
	case len(line) == 0:
		return nil, err
	case line[0] == '[' || line[0] == '{' && bytes.Contains(line, []byte(`"jsonrpc"`)):
		return append(line, '\n'), err
	}
	f.logf("mcp: server %s: skipped a line on stdout that is not JSON-RPC: %s", f.server, tools.ClipOneLine(string(line), 200))
	return nil, err
}

func keepTail(tail, more []byte) []byte {
	tail = append(tail, more...)
	if len(tail) > frameTail {
		tail = append(tail[:0], tail[len(tail)-frameTail:]...)
	}
	return tail
}

// idAtEnd finds a top-level id written last: `"id":7}`.
var idAtEnd = regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")\s*}\s*$`)

// oversized turns a message of total bytes, of which head (the first
// maxFrame) and tail (the last frameTail) were kept, into a result the SDK
// can deliver: the same id, the start of its first text cut to the output
// cap, and a note. A message whose id cannot be found is skipped.
func (f *frameFilter) oversized(head, tail []byte, total int) []byte {
	id := topLevelID(head)
	if id == nil {
		if m := idAtEnd.FindSubmatch(tail); m != nil {
			id = json.RawMessage(m[1])
		}
	}
	if id == nil {
		f.logf("mcp: server %s: skipped a message of %s on stdout without a request id", f.server, tools.HumanSize(int64(total)))
		return nil
	}
	text := textPrefix(head, maxBody-512) // room for the note within the cap
	note := fmt.Sprintf("[output truncated: the server sent a message of %s; shown %d bytes of its text; ask the tool for less, e.g. a narrower range or a page]",
		tools.HumanSize(int64(total)), len(text))
	if text != "" {
		note = "\n" + note
	}
	f.logf("mcp: server %s: cut a message of %s to the output cap", f.server, tools.HumanSize(int64(total)))
	msg, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"result":  map[string]any{"content": []map[string]string{{"type": "text", "text": text + note}}},
	})
	return append(msg, '\n')
}

// topLevelID returns the value of the "id" member of the JSON object that
// b starts, if it is written before b ends (numbers and strings only).
func topLevelID(b []byte) json.RawMessage {
	depth, inStr, esc := 0, false, false
	keyStart := -1
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
				if depth == 1 && keyStart >= 0 && string(b[keyStart:i]) == "id" {
					if v := valueAfterColon(b[i+1:]); v != nil {
						return v
					}
				}
				keyStart = -1
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
			keyStart = i + 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
	}
	return nil
}

// valueAfterColon reads `: 7` or `: "x"` at the start of b.
func valueAfterColon(b []byte) json.RawMessage {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 || b[0] != ':' {
		return nil
	}
	b = bytes.TrimLeft(b[1:], " \t\r\n")
	end := 0
	if len(b) > 0 && b[0] == '"' {
		for end = 1; end < len(b) && b[end] != '"'; end++ {
			if b[end] == '\\' {
				end++
			}
		}
		end++
	} else {
		for end < len(b) && (b[end] == '-' || b[end] >= '0' && b[end] <= '9') {
			end++
		}
	}
	if end == 0 || end > len(b) || !json.Valid(b[:end]) {
		return nil
	}
	return json.RawMessage(bytes.Clone(b[:end]))
}

// textPrefix decodes the start of the first "text" string in b, up to n
// bytes of it.
func textPrefix(b []byte, n int) string {
	var rest []byte
	for {
		i := bytes.Index(b, []byte(`"text"`))
		if i < 0 {
			return ""
		}
		b = b[i+len(`"text"`):]
		// `"type":"text"` names the block; `"text":"..."` is its text.
		if r := bytes.TrimLeft(b, " \t\r\n"); len(r) > 0 && r[0] == ':' {
			if r = bytes.TrimLeft(r[1:], " \t\r\n"); len(r) > 0 && r[0] == '"' {
				rest = r
				break
			}
		}
	}
	// Take the string's bytes up to its end or n, and back off to a point
	// where it decodes (not inside an escape).
	end := 1
	for end < len(rest) && rest[end] != '"' && end <= n {
		if rest[end] == '\\' {
			end++
		}
		end++
	}
	end = min(end, len(rest))
	for k := end; k > 1 && end-k < 12; k-- {
		var s string
		if json.Unmarshal(append(bytes.Clone(rest[:k]), '"'), &s) == nil {
			return tools.CutUTF8(s, n)
		}
	}
	return ""
}
