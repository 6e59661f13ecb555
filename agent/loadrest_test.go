package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"myclaw/agent/chat"
	"myclaw/approval"
	"myclaw/history"
	"myclaw/tools"
)

// turns is the length of the sessions these tests resume: long enough
// to be resumed from its end.
const turns = 200

// longSession writes a session of turns turns (a prompt and an answer
// each) and returns its store and id.
func longSession(t *testing.T) (*history.Store, string) {
	t.Helper()
	store := history.NewStore(t.TempDir())
	s, err := store.NewSession(t.TempDir(), "test-model")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range turns {
		for _, m := range []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleUser, Content: fmt.Sprintf("prompt %d", i+1)},
			{Role: openai.ChatMessageRoleAssistant, Content: fmt.Sprintf("answer %d: %s", i+1, strings.Repeat("words ", 40))},
		} {
			if err := s.Append("message", m); err != nil {
				t.Fatal(err)
			}
		}
	}
	return store, s.Info().ID
}

// resumeFromTail opens session id as the TUI resumes it: from its last
// turns, the rest loading behind.
func resumeFromTail(t *testing.T, store *history.Store, id string, srv ModelServer, edit func(*Options)) *Agent {
	t.Helper()
	s, err := store.OpenSession(id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	policy, _ := approval.NewPolicy(approval.Ask, nil)
	o := Options{Client: srv, Model: "test-model", Registry: tools.NewRegistry(), Policy: policy, Store: store, Session: s,
		Workspace: s.Info().Workspace, Preloaded: PreloadTail(s), Logf: t.Logf}
	if edit != nil {
		edit(&o)
	}
	a, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Settle)
	return a
}

// A long session resumed from its end holds its last turns before the
// rest is read; a prompt sent meanwhile waits for the rest, and its
// request carries every earlier message.
func TestPromptDuringTheLoadWaitsForEveryMessage(t *testing.T) {
	store, id := longSession(t)
	// No usage: the server's count would be taken for a cut request.
	srv := newFakeServer(t, reply{body: sse(chunk(map[string]any{"role": "assistant", "content": "noted"}, nil), chunk(map[string]any{}, "stop"))})
	entered, gate := make(chan struct{}), make(chan struct{})
	a := resumeFromTail(t, store, id, chat.NewClient(chat.ClientConfig{BaseURL: srv.url()}), func(o *Options) {
		// The journal's recovery runs inside the load: the test holds
		// the load there.
		o.Recover = func(*history.Journal) []string {
			close(entered)
			<-gate
			return []string{"recovered"}
		}
	})
	promptWaitsForTheRest(t, a, id, srv, entered, gate)
	notes, err := a.LoadRest()
	if err != nil || len(notes) != 1 || notes[0] != "recovered" {
		t.Fatalf("the load's notes %q, %v", notes, err)
	}
}

// A corrupt line before the end is skipped and said by the load; a load
// that fails (the journal cannot be opened) refuses every turn, and writes
// nothing to the session.
func TestLoadBehindTheFrameReportsWhatWentWrong(t *testing.T) {
	store, id := longSession(t)
	dir := filepath.Join(store.Dir(), "sessions", id)
	path := filepath.Join(dir, "transcript.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Line 3 (turn 2's prompt) cut short, line 5's message broken.
	damaged := bytes.Replace(data, []byte(`"content":"prompt 2"}}`), []byte(`"content":"prompt 2"`), 1)
	damaged = bytes.Replace(damaged, []byte(`"content":"prompt 3"`), []byte(`"content":"prompt 3"]]`), 1)
	if err := os.WriteFile(path, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	a := resumeFromTail(t, store, id, idle{}, nil)
	if _, ok := a.Tail(); !ok {
		t.Fatal("not resumed from the end")
	}
	notes, err := a.LoadRest()
	if err != nil || len(notes) != 2 || !strings.Contains(notes[0], "skipped corrupt line 3 of") || !strings.Contains(notes[1], "skipped a message that does not decode") {
		t.Fatalf("the load's notes %q, %v; want the corrupt line and message named", notes, err)
	}
	if n := len(a.Messages()); n != 2*turns-2 {
		t.Fatalf("%d messages; want all but the corrupt ones", n)
	}

	// The journal is a folder: it cannot be opened.
	store, id = longSession(t)
	dir = filepath.Join(store.Dir(), "sessions", id)
	if err := os.Mkdir(filepath.Join(dir, "journal.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	a = resumeFromTail(t, store, id, idle{}, nil)
	if _, err := a.LoadRest(); err == nil || !strings.Contains(err.Error(), "open the undo journal") {
		t.Fatalf("the failed load says %v", err)
	}
	var ue *UserError
	if err := a.Run(context.Background(), "go on", func(Event) {}, approveAll()); !errors.As(err, &ue) || !strings.Contains(ue.Msg, "could not be loaded") {
		t.Fatalf("a turn after a failed load: %v", err)
	}
	if _, err := a.Undo(context.Background(), 1, false); err == nil {
		t.Fatal("/undo after a failed load did not fail")
	}
	if st := a.Status(); st.SessionID != id || st.UndoDepth != 0 {
		t.Fatalf("status after a failed load: %+v", st)
	}
	a.Settle()
	after, err := os.ReadFile(filepath.Join(dir, "transcript.jsonl"))
	if err != nil || !bytes.Equal(before, after) {
		t.Fatalf("the transcript changed after a failed load (%v)", err)
	}
}

// Quitting before the load started leaves it unstarted: nothing is read
// or written, and what asks for the session after is refused.
func TestSettleBeforeTheLoadKeepsItFromStarting(t *testing.T) {
	store, id := longSession(t)
	started := false
	a := resumeFromTail(t, store, id, idle{}, func(o *Options) {
		o.Recover = func(*history.Journal) []string { started = true; return nil }
	})
	a.Settle()
	if _, err := a.LoadRest(); err == nil || started {
		t.Fatalf("a load after Settle: started %v, %v", started, err)
	}
}

type idle struct{}

func (idle) Stream(context.Context, openai.ChatCompletionRequest, func(chat.StreamDelta)) (chat.Completion, error) {
	return chat.Completion{}, errors.New("idle")
}
func (idle) Models(context.Context) ([]string, error)        { return nil, nil }
func (idle) ProbeWindow(context.Context, string) chat.Window { return chat.Window{} }
func (idle) BaseURL() string                                 { return "idle" }

// promptWaitsForTheRest checks a session a opened from its end: it holds
// the last turns of session id and says it is loading; a prompt sent
// meanwhile sends nothing until the load, held at entered until gate is
// closed, is done, and its request then carries every earlier message.
func promptWaitsForTheRest(t *testing.T, a *Agent, id string, srv *fakeServer, entered, gate chan struct{}) {
	t.Helper()
	tail, ok := a.Tail()
	if !ok || len(tail.Messages) == 0 || len(tail.Messages) >= 2*turns {
		t.Fatalf("opened with %d messages of the end (ok %v); want the last turns", len(tail.Messages), ok)
	}
	if last := tail.Messages[len(tail.Messages)-1].Content; !strings.HasPrefix(last, fmt.Sprintf("answer %d:", turns)) {
		t.Fatalf("the end of the tail is %q; want the last answer", last)
	}
	if !a.Loading() || a.Status().SessionID != id {
		t.Fatal("the status does not say the session is still loading")
	}
	ran := make(chan error, 1)
	go func() { ran <- a.Run(context.Background(), "the next prompt", func(Event) {}, approveAll()) }()
	<-entered
	if n := srv.count(); n != 0 {
		t.Fatalf("%d requests sent before the session was loaded", n)
	}
	close(gate)
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	msgs := srv.messages(0)
	// The system prompt, every earlier message, the prompt.
	if len(msgs) != 1+2*turns+1 || msgs[1]["content"] != "prompt 1" || !strings.HasSuffix(fmt.Sprint(msgs[len(msgs)-1]["content"]), "the next prompt") {
		t.Fatalf("the request has %d messages, from %v to %v; want every earlier one", len(msgs), msgs[1]["content"], msgs[len(msgs)-1]["content"])
	}
}

// A session whose last compaction was undone is read whole: the undo put
// back messages from before the compaction, which the transcript's end
// does not hold (read from its end, it opened on an empty screen). One
// compacted and not undone is still read from its end.
func TestAnUndoneCompactionIsReadWhole(t *testing.T) {
	for _, undone := range []bool{false, true} {
		store, id := longSession(t)
		s, err := store.OpenSession(id)
		if err != nil {
			t.Fatal(err)
		}
		replaced := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "prompt 1"}, {Role: openai.ChatMessageRoleAssistant, Content: "answer 1"}}
		if err := s.Append("compaction", compaction{Summary: "the first turn", Replaced: replaced}); err != nil {
			t.Fatal(err)
		}
		if undone {
			if err := s.Append("uncompact", len(replaced)); err != nil {
				t.Fatal(err)
			}
		}
		for _, m := range []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "after"}} {
			if err := s.Append("message", m); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		s, err = store.OpenSession(id)
		if err != nil {
			t.Fatal(err)
		}
		p := PreloadTail(s)
		tail, ok := p.Tail()
		if !ok {
			<-p.done // the whole, read behind
		}
		s.Close()
		if ok == undone {
			t.Errorf("compaction undone %v: read from its end %v (%d messages); want %v", undone, ok, len(tail.Messages), !undone)
		}
	}
}
