package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// The SDK drops a line it cannot read as a JSON-RPC message with only a
// log line, and offers no hook: the client would wait for an answer that
// never comes. rejectMalformed sits between stdin and the SDK and answers
// such lines itself, as JSON-RPC 2.0 asks (id null, since none can be
// read): -32700 for a line that is not JSON, -32600 for JSON that is not a
// message object ([1,2], "x", {"method": 5}, one with neither id nor
// method). Every other line goes to the
// SDK unchanged.
func rejectMalformed(in io.Reader, out io.Writer) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(in)
		// The SDK's own bound: a longer line ends the connection either way.
		sc.Buffer(make([]byte, 0, 64<<10), 10<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if code, msg := malformed(line); code != 0 {
				b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
				if _, err := out.Write(append(b, '\n')); err != nil {
					pw.CloseWithError(err)
					return
				}
				continue
			}
			b := make([]byte, len(line)+1)
			copy(b, line)
			b[len(line)] = '\n'
			if _, err := pw.Write(b); err != nil {
				return // the SDK stopped reading
			}
		}
		pw.CloseWithError(sc.Err())
	}()
	return pr
}

// malformed returns the JSON-RPC error for a line the SDK would drop, or 0.
func malformed(line []byte) (int, string) {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return 0, "" // the SDK skips blank lines
	}
	if !json.Valid(t) {
		return -32700, "Parse error: the line is not JSON"
	}
	var m struct {
		ID     *json.RawMessage `json:"id"`
		Method string           `json:"method"`
	}
	if t[0] != '{' || json.Unmarshal(t, &m) != nil || m.ID == nil && m.Method == "" {
		return -32600, "Invalid Request: want one JSON-RPC message object per line"
	}
	return 0, ""
}

// lockedWriter keeps the SDK's messages and rejectMalformed's answers
// whole on the shared stdout.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
