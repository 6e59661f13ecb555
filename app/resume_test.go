package app

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"myclaw/agent"
	"myclaw/history"
	"myclaw/internal/seedsession"
)

// myclaw --continue on a seeded session hands the TUI the whole
// conversation, from the first prompt to the last answer, each call with
// its own record: the same list a plain decode of the transcript makes.
func TestContinueShowsTheWholeSession(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds a session of 50 turns, every record fsynced")
	}
	stateHome, ws := t.TempDir(), t.TempDir()
	id, err := seedsession.Seed(filepath.Join(stateHome, "myclaw"), ws, 50)
	if err != nil {
		t.Fatal(err)
	}
	resumeEnv(t, stateHome)
	a, _, uo, err := startTUI(context.Background(), Options{Continue: true, Workspace: ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	if got := a.session.Info().ID; got != id {
		t.Fatalf("resumed %s; want the seeded %s", got, id)
	}
	list := uo.Earlier
	if len(list) == 0 || list[0].Role != "user" || !strings.HasPrefix(list[0].Text, seedsession.Prompt(0)) {
		t.Fatalf("the first turn is not first: %+v", list[:min(len(list), 1)])
	}
	if last := list[len(list)-1]; last.Role != "assistant" || last.Text != seedsession.Answer(49) {
		t.Fatalf("the last answer is not last: %+v", last)
	}
	cards := 0
	for _, e := range list {
		if e.Role != "tool" {
			continue
		}
		if e.Call == nil || e.Call.Result.Status != agent.StatusOK || e.Call.Result.Summary == "" || !strings.Contains(e.Text, e.Call.Result.Call.Tool) {
			t.Fatalf("a call without its record: %+v", e)
		}
		cards++
	}
	if cards != 41 {
		t.Fatalf("%d cards; want 41", cards)
	}
	msgs, calls := plainTranscript(t, filepath.Join(stateHome, "myclaw", "sessions", id, "transcript.jsonl"))
	if want := earlier(msgs, calls); !reflect.DeepEqual(list, want) {
		t.Fatal("the TUI is handed another conversation than the transcript's")
	}
}

// plainTranscript decodes a transcript line by line with encoding/json.
func plainTranscript(t *testing.T, path string) ([]openai.ChatCompletionMessage, []agent.CallRecord) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var msgs []openai.ChatCompletionMessage
	var calls []agent.CallRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r history.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		switch r.Kind {
		case "message":
			var m openai.ChatCompletionMessage
			if err := json.Unmarshal(r.Data, &m); err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, m)
		case "call":
			var c agent.CallRecord
			if err := json.Unmarshal(r.Data, &c); err != nil {
				t.Fatal(err)
			}
			c.Result.Body = c.Body
			calls = append(calls, c)
		}
	}
	return msgs, calls
}
