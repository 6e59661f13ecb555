package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"myclaw/approval"
)

func TestEditedCallIsShownAgainBeforeItRuns(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"e1", "fs_write", `{"path":"a.txt","content":"model\n"}`}),
		openAIStyle("ok"),
	)
	h := newHarness(t, approval.Ask, srv)
	var mu sync.Mutex
	var previews []string
	ap := approverFunc(func(ctx context.Context, req approval.Request) (approval.Decision, error) {
		mu.Lock()
		defer mu.Unlock()
		previews = append(previews, req.Preview)
		if len(previews) == 1 {
			// The file must not exist yet when the edited call is shown.
			if _, err := os.Stat(filepath.Join(h.ws, "a.txt")); err == nil {
				t.Error("the call ran before its first approval")
			}
			return approval.Decision{Choice: approval.Edit, Args: json.RawMessage(`{"path":"a.txt","content":"user\n"}`)}, nil
		}
		if _, err := os.Stat(filepath.Join(h.ws, "a.txt")); err == nil {
			t.Error("the edited call ran before its re-preview was approved")
		}
		return approval.Decision{Choice: approval.ApproveOnce}, nil
	})
	if err := h.run(context.Background(), "write", ap); err != nil {
		t.Fatal(err)
	}
	if len(previews) != 2 || !strings.Contains(previews[0], "+model") || !strings.Contains(previews[1], "+user") {
		t.Fatalf("previews %q; want the model's diff, then the edited one", previews)
	}
	if got, _ := os.ReadFile(filepath.Join(h.ws, "a.txt")); string(got) != "user\n" {
		t.Fatalf("file holds %q; want the edited content", got)
	}
}

func TestEditedCallCanBeDeniedAtTheRePreview(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"e1", "fs_write", `{"path":"a.txt","content":"model\n"}`}),
		openAIStyle("ok"),
	)
	h := newHarness(t, approval.Ask, srv)
	n := 0
	ap := approverFunc(func(ctx context.Context, req approval.Request) (approval.Decision, error) {
		n++
		if n == 1 {
			return approval.Decision{Choice: approval.Edit, Args: json.RawMessage(`{"path":"a.txt","content":"user\n"}`)}, nil
		}
		return approval.Decision{Choice: approval.Deny}, nil
	})
	if err := h.run(context.Background(), "write", ap); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "a.txt")); err == nil {
		t.Fatal("a call denied at its re-preview ran")
	}
	r := h.results()
	if len(r) != 1 || r[0].Status != StatusDenied {
		t.Fatalf("results %+v; want one denial", r)
	}
	// What was denied is the edited call: the card and the record show it.
	if !r[0].Call.Edited || !strings.Contains(string(r[0].Call.Args), "user") {
		t.Fatalf("denied call %+v; want the edited arguments, marked edited", r[0].Call)
	}
}

// An edited call that fails before it runs (its path leaves the workspace,
// or the edit breaks the schema) is recorded with the edited arguments:
// the card and the session's record of it (a resumed session's card) are
// made from this result.
func TestFailedEditedCallShowsTheEdit(t *testing.T) {
	for _, tc := range []struct{ name, edit, want string }{
		{"outside the workspace", `{"path":"../escape.md","content":"x\n"}`, "escape.md"},
		{"invalid", `{"path":"other.md"}`, "other.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t,
				openAIStyle("", call{"e1", "fs_write", `{"path":"notes/todo.md","content":"model\n"}`}),
				openAIStyle("ok"),
			)
			h := newHarness(t, approval.Ask, srv)
			ap := approverFunc(func(ctx context.Context, req approval.Request) (approval.Decision, error) {
				return approval.Decision{Choice: approval.Edit, Args: json.RawMessage(tc.edit)}, nil
			})
			if err := h.run(context.Background(), "write", ap); err != nil {
				t.Fatal(err)
			}
			r := h.results()
			if len(r) != 1 || r[0].Status != StatusError {
				t.Fatalf("results %+v; want one error", r)
			}
			if !r[0].Call.Edited || !strings.Contains(string(r[0].Call.Args), tc.want) || strings.Contains(string(r[0].Call.Args), "todo.md") {
				t.Fatalf("failed call %+v; want the edited arguments, marked edited", r[0].Call)
			}
		})
	}
}
