package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func TestPromptHistorySurvivesARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prompts", "ws.jsonl")
	open := func() Model {
		m := New(newFake(), Options{Workspace: "/work/project", HistoryPath: path})
		return update(m, tea.WindowSizeMsg{Width: testWidth, Height: testHeight})
	}
	m := open()
	for _, line := range []string{"/help", "/mouse off", "/help token=hunter2secret", "/help " + strings.Repeat("x", maxHistoryBytes)} {
		m = typeText(m, line)
		m.input.closed = true
		next, cmd := updateCmd(m, keyMsg("enter"))
		m = runCmd(t, next, cmd)
	}
	m = open()
	if got := m.input.history; len(got) != 2 || got[0] != "/help" || got[1] != "/mouse off" {
		t.Fatalf("after a restart the history is %q; want the two plain prompts, not the secret or the huge one", got)
	}
	m = update(m, keyMsg("up"))
	if v := m.input.ta.value(); v != "/mouse off" {
		t.Fatalf("up recalls %q; want the last prompt of the earlier run", v)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "hunter2") {
		t.Fatalf("a secret reached the history file:\n%s", data)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("history file mode %v, %v; want 0600", fi.Mode(), err)
	}
}

func TestPromptHistoryIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	var b strings.Builder
	for i := range 2*maxHistory + 5 {
		line, _ := json.Marshal(fmt.Sprintf("prompt %d", i))
		b.Write(append(line, '\n'))
	}
	os.WriteFile(path, []byte(b.String()), 0o600)
	got := loadPromptHistory(path)
	if len(got) != maxHistory || got[len(got)-1] != fmt.Sprintf("prompt %d", 2*maxHistory+4) {
		t.Fatalf("loaded %d prompts ending %q; want the newest %d", len(got), got[len(got)-1], maxHistory)
	}
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != maxHistory {
		t.Fatalf("the file keeps %d prompts; want it cut back to %d", n, maxHistory)
	}
}
