package seedsession

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/sashabaranov/go-openai"

	"myclaw/agent"
	"myclaw/history"
)

// Decoded is a transcript read the simplest way, for tests to compare a
// loader's result with: each line decoded with encoding/json, then its
// data by kind.
type Decoded struct {
	Messages []openai.ChatCompletionMessage
	Calls    []agent.CallRecord
	Requests int // usage records, one per request
}

// Decode reads the transcript at path line by line.
func Decode(path string) (Decoded, error) {
	var d Decoded
	f, err := os.Open(path)
	if err != nil {
		return d, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		var r history.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return d, fmt.Errorf("line %d: %w", n, err)
		}
		switch r.Kind {
		case "message":
			var m openai.ChatCompletionMessage
			if err := json.Unmarshal(r.Data, &m); err != nil {
				return d, fmt.Errorf("line %d: %w", n, err)
			}
			d.Messages = append(d.Messages, m)
		case "call":
			var c agent.CallRecord
			if err := json.Unmarshal(r.Data, &c); err != nil {
				return d, fmt.Errorf("line %d: %w", n, err)
			}
			c.Result.Body = c.Body
			d.Calls = append(d.Calls, c)
		case "usage":
			d.Requests++
		}
	}
	return d, sc.Err()
}
