package ui

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/internal/proctest"
)

// Run on the inline screen, in a pseudo-terminal of 80×24 played on a
// terminal emulator with a scrollback: the resumed session's turns come
// first, each finished block reaches the scrollback once and in order
// while the session runs, the approval pane takes y, and on exit the live
// region leaves nothing behind but the summary.
func TestRunInlineInATerminal(t *testing.T) {
	master, slave := proctest.OpenPTY(t, true)
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 80}); err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	go func() { _, _ = io.Copy(out, master) }()

	f := newFake()
	f.runFn = func(ctx context.Context, prompt string, emit func(agent.Event), ap approval.Approver) error {
		for i, p := range []string{"Paragraph MIKE one.\n\n", "Paragraph NOVEMBER two.\n\n", "Paragraph OSCAR "} {
			if i > 0 {
				time.Sleep(40 * time.Millisecond) // apart, so that each is published on its own
			}
			emit(agent.TextDelta{Text: p})
		}
		req := writeRequest()
		c := agent.Call{ID: req.CallID, Tool: req.Tool, Args: req.Args}
		emit(agent.ToolCallEvent{Call: c, Phase: "proposed", Summary: req.Summary})
		d, err := ap.Approve(ctx, req)
		if err != nil {
			return err
		}
		if !d.Approved() {
			emit(agent.ToolResultEvent{Call: c, Status: agent.StatusDenied})
		} else {
			emit(agent.ToolResultEvent{Call: c, Status: agent.StatusOK, Summary: "wrote PAPA", Reversible: true})
		}
		emit(agent.TextDelta{Text: "Closing QUEBEC."})
		emit(agent.DoneEvent{Reason: agent.DoneStop, Rounds: 1})
		return nil
	}
	earlier := []Earlier{{Role: "user", Text: "old question KILO"}, {Role: "assistant", Text: "old answer LIMA"}}
	keys, typeKeys := io.Pipe()
	defer typeKeys.Close()
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), f, Options{Workspace: "/work/project", Inline: true, Input: keys, Output: slave, Earlier: earlier})
	}()
	term := func() *vt {
		v := newVT(24, 80)
		v.write(out.String())
		return v
	}
	waitTerm := func(what string, ok func(v *vt) bool) {
		t.Helper()
		deadline := time.Now().Add(waitLimit)
		for {
			v := term()
			if ok(v) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("waited for %s; the terminal shows:\n%s", what, strings.Join(v.lines(), "\n"))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	has := func(v *vt, s string) bool { return strings.Contains(strings.Join(v.lines(), "\n"), s) }

	waitTerm("the earlier turns", func(v *vt) bool { return has(v, "LIMA") && has(v, "Ask anything") })
	_, _ = typeKeys.Write([]byte("go on\r"))
	waitTerm("the pane", func(v *vt) bool { return has(v, "approve fs_write?") })
	if text := strings.Join(term().lines(), "\n"); strings.Count(text, "MIKE") != 1 || strings.Count(text, "NOVEMBER") != 1 {
		t.Errorf("while the pane waits the terminal shows:\n%s\nwant the finished paragraphs once each", text)
	}
	_, _ = typeKeys.Write([]byte("y"))
	waitTerm("the end of the turn", func(v *vt) bool { return has(v, "QUEBEC") && !has(v, "esc cancels") })
	_, _ = typeKeys.Write([]byte("\x03\x03"))
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Run did not return after ctrl+c twice")
	}
	_, _ = slave.WriteString("END-OF-OUTPUT")
	waitTerm("the end of the output", func(v *vt) bool { return has(v, "END-OF-OUTPUT") })

	all := term().lines()
	text := strings.Join(all, "\n")
	order := []string{"myclaw", "KILO", "LIMA", "❯ go on", "MIKE", "NOVEMBER", "OSCAR", "fs_write notes/todo.md", "PAPA", "QUEBEC", "END-OF-OUTPUT"}
	at := -1
	for _, w := range order {
		if n := strings.Count(text, w); n != 1 {
			t.Errorf("%q is %d times in the terminal; want once", w, n)
		}
		i := strings.Index(text[at+1:], w)
		if i < 0 {
			t.Fatalf("the terminal:\n%s\nwant %q after %v", text, w, order[:slices.Index(order, w)])
		}
		at += 1 + i
	}
	for _, gone := range []string{"Ask anything", "approve fs_write?", "esc cancels"} {
		if strings.Contains(text, gone) {
			t.Errorf("the terminal:\n%s\nstill shows %q of the live region", text, gone)
		}
	}
}
