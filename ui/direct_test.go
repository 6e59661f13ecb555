package ui

import (
	"strings"
	"testing"
)

func TestBangRunsShellWithoutModel(t *testing.T) {
	d := &directFake{fakeBackend: newFake()}
	m := newTestModel(t, d)
	m = typeText(m, "!ls -la")
	m, cmd := updateCmd(m, keyMsg("enter"))
	if m.turn == nil {
		t.Fatal("!command did not start a run")
	}
	m = drainTurn(t, m, cmd)
	if len(d.shells) != 1 || d.shells[0] != "ls -la" {
		t.Fatalf("shell calls %q; want [ls -la]", d.shells)
	}
	if len(d.prompts) != 0 {
		t.Fatalf("the command went to the model: %q", d.prompts)
	}
	text := m.tr.text(m.c)
	if !strings.Contains(text, "❯ !ls -la") || !strings.Contains(text, "untrusted · shell:ls -la") {
		t.Fatalf("transcript:\n%s", text)
	}
	m = typeText(m, "!")
	m, _ = updateCmd(m, keyMsg("enter"))
	if !strings.Contains(m.tr.text(m.c), "usage: !command") {
		t.Fatalf("a bare ! gives no usage")
	}
}
