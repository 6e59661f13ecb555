package ui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/tools/mcp"
)

func deployForm() mcp.Elicitation {
	one, nine := 1.0, 9.0
	return mcp.Elicitation{
		Server:  "deploy",
		Message: "Where should I deploy?",
		Fields: []mcp.ElicitField{
			{Name: "env", Title: "Environment", Kind: "enum", Options: []string{"staging", "prod"}, Labels: []string{"Staging", "Production"}, Required: true, Default: "staging"},
			{Name: "replicas", Title: "Replicas", Kind: "integer", Min: &one, Max: &nine, Default: "2"},
			{Name: "notify", Title: "Notify", Kind: "boolean"},
			{Name: "email", Title: "Email", Kind: "string", Format: "email"},
		},
	}
}

func sendForm(t *testing.T, m Model, e mcp.Elicitation) (Model, chan mcp.ElicitAnswer) {
	t.Helper()
	reply := make(chan mcp.ElicitAnswer, 1)
	m, _ = updateCmd(m, formRequestMsg{FormRequest{Ctx: context.Background(), Form: e, Reply: reply}})
	return m, reply
}

func answerOf(t *testing.T, reply chan mcp.ElicitAnswer) mcp.ElicitAnswer {
	t.Helper()
	select {
	case a := <-reply:
		return a
	default:
		t.Fatal("the form sent no answer")
	}
	return mcp.ElicitAnswer{}
}

func TestElicitationFormAccept(t *testing.T) {
	f := newFake()
	m, reply := sendForm(t, newTestModel(t, f), deployForm())
	got := screen(m)
	for _, want := range []string{"MCP server deploy asks you", "never to the model", "Where should I deploy?", "Environment*: ‹ Staging ›", "Replicas: 2", "integer 1–9", "Notify: [ ]", "esc cancel"} {
		if !strings.Contains(got, want) {
			t.Errorf("form lacks %q:\n%s", want, got)
		}
	}
	m = press(t, m, "right", "tab", "backspace", "1", "2", "tab", " ", "tab", "b", "a", "d", "enter")
	if len(reply) != 0 {
		t.Fatalf("the form was sent with errors: %+v", <-reply)
	}
	got = screen(m)
	if !strings.Contains(got, "at most 9") || !strings.Contains(got, "want an email address") {
		t.Errorf("errors not shown:\n%s", got)
	}
	// The focus went to the first field in error; fix both.
	m = press(t, m, "backspace", "tab", "tab", "backspace", "backspace", "backspace")
	m = typeText(m, "ops@example.com")
	m = press(t, m, "enter")
	if len(reply) != 0 {
		t.Fatal("enter on the last field sent the form without a confirmation")
	}
	got = screen(m)
	for _, want := range []string{"Send to deploy? y/n", `Environment (env): "prod"`, "Replicas (replicas): 1", "Notify (notify): true", `Email (email): "ops@example.com"`, "y send"} {
		if !strings.Contains(got, want) {
			t.Errorf("the summary lacks %q:\n%s", want, got)
		}
	}
	m = press(t, m, "y")
	a := answerOf(t, reply)
	b, _ := json.Marshal(a.Content)
	if a.Action != mcp.ElicitAccept || string(b) != `{"email":"ops@example.com","env":"prod","notify":true,"replicas":1}` {
		t.Errorf("got %s %s; want accept with the typed values", a.Action, b)
	}
	if m.form != nil || !strings.Contains(lastBlock(m), "MCP server deploy asked for input: sent") {
		t.Errorf("form still open or no notice: %q", lastBlock(m))
	}
	if len(f.prompts) != 0 {
		t.Errorf("the form reached the model: %q", f.prompts)
	}
}

func TestElicitationFormDeclineCancelAndQueue(t *testing.T) {
	m := newTestModel(t, newFake())
	m, first := sendForm(t, m, deployForm())
	m, second := sendForm(t, m, mcp.Elicitation{Server: "other", Message: "Continue?"})
	m = press(t, m, "esc")
	if a := answerOf(t, first); a.Action != mcp.ElicitCancel {
		t.Errorf("esc: got %q; want cancel", a.Action)
	}
	if m.form == nil || !strings.Contains(screen(m), "MCP server other asks you") {
		t.Fatalf("the queued form is not shown:\n%s", screen(m))
	}
	next, cmd := updateCmd(m, tea.KeyMsg{Type: tea.KeyCtrlD})
	m = runCmd(t, next, cmd)
	if a := answerOf(t, second); a.Action != mcp.ElicitDecline {
		t.Errorf("ctrl+d: got %q; want decline", a.Action)
	}
	if m.form != nil {
		t.Errorf("a form is still open")
	}
}

func TestSamplingApprovalUsesTheForm(t *testing.T) {
	m := newTestModel(t, newFake())
	m, reply := sendForm(t, m, mcp.Elicitation{Server: "review", Message: "The server asks your model for an answer of at most 500 tokens.\n\n[user]\nSummarise it.",
		Title: "asks to use your model", Note: "enter, then y, sends it to test-model; ctrl+d declines"})
	s := screen(m)
	if !strings.Contains(s, "MCP server review asks to use your model") || !strings.Contains(s, "enter, then y, sends it to test-model") ||
		!strings.Contains(s, "at most 500 tokens") || !strings.Contains(s, "Summarise it.") || strings.Contains(s, "never to the model") {
		t.Fatalf("the approval does not show the request:\n%s", s)
	}
	m, cmd := updateCmd(m, keyMsg("ctrl+d"))
	m = runCmd(t, m, cmd)
	if a := answerOf(t, reply); a.Action != mcp.ElicitDecline {
		t.Fatalf("got %+v; want declined", a)
	}
	if !strings.Contains(m.tr.text(m.c), "MCP server review asks to use your model: declined") {
		t.Errorf("transcript:\n%s", m.tr.text(m.c))
	}
}
