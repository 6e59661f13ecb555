package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
)

func pasteMsg(s string) tea.KeyMsg {
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s), Paste: true}
}

func bigPaste(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "log line %d\r\n", i)
	}
	return b.String()
}

func TestPasteChip(t *testing.T) {
	f := newFake()
	m := newTestModel(t, f)
	m = typeText(m, "why does this fail? ")
	m = update(m, pasteMsg(bigPaste(240)))
	if got := m.input.ta.value(); got != "why does this fail? [pasted 240 lines]" {
		t.Fatalf("input %q", got)
	}
	golden.RequireEqual(t, []byte(screen(m)))
	// A short paste goes in as it is.
	m = update(m, pasteMsg(" see above"))
	m, cmd := updateCmd(m, keyMsg("enter"))
	drainTurn(t, m, cmd)
	want := "why does this fail? " + strings.ReplaceAll(bigPaste(240), "\r\n", "\n") + " see above"
	if len(f.prompts) != 1 || f.prompts[0] != want {
		t.Fatalf("sent %d prompts; the first %q…; want the pasted text in full", len(f.prompts), f.prompts[0][:min(60, len(f.prompts[0]))])
	}
}

func TestPasteChipExpandAndDelete(t *testing.T) {
	m := newTestModel(t, newFake())
	m = update(m, pasteMsg(bigPaste(12)))
	m = update(m, pasteMsg(strings.Repeat("x", 2500)))
	if got := m.input.ta.value(); got != "[pasted 12 lines][pasted 2500 characters #2]" {
		t.Fatalf("input %q", got)
	}
	m = update(m, keyMsg("backspace"))
	if got := m.input.ta.value(); got != "[pasted 12 lines]" {
		t.Fatalf("backspace leaves %q; want the whole chip gone", got)
	}
	m = update(m, tea.KeyMsg{Type: tea.KeyCtrlX})
	if got := m.input.ta.value(); !strings.HasPrefix(got, "log line 1\nlog line 2\n") || strings.Contains(got, "[pasted") {
		t.Fatalf("expanded input %q", got[:min(40, len(got))])
	}
}

func TestPastedImagePathBecomesMention(t *testing.T) {
	m := New(newFake(), Options{Workspace: "/work/project"})
	m = update(m, sizeMsg(testWidth, testHeight))
	m = typeText(m, "what is wrong here? ")
	m = update(m, pasteMsg("'/work/project/shots/bug.png' "))
	if got := m.input.ta.value(); got != "what is wrong here? @shots/bug.png " {
		t.Fatalf("input %q", got)
	}
	m = update(m, pasteMsg("/tmp/elsewhere.PNG"))
	if got := m.input.ta.value(); !strings.HasSuffix(got, "@/tmp/elsewhere.PNG ") {
		t.Fatalf("input %q", got)
	}
	m = update(m, pasteMsg("notes.txt"))
	if got := m.input.ta.value(); !strings.HasSuffix(got, " notes.txt") {
		t.Fatalf("a non-image paste changed: %q", got)
	}
}

// A sent paste stays a chip in the transcript; Ctrl+O shows it whole, and
// the model gets it whole.
func TestSentPasteStaysAChip(t *testing.T) {
	f := newFake()
	m := newTestModel(t, f)
	m = typeText(m, "why does this fail? ")
	m = update(m, pasteMsg(bigPaste(240)))
	m, cmd := updateCmd(m, keyMsg("enter"))
	m = drainTurn(t, m, cmd)
	if len(f.prompts) != 1 || !strings.Contains(f.prompts[0], "log line 240") {
		t.Fatalf("the model did not get the paste: %d prompts", len(f.prompts))
	}
	tr := m.tr.text(m.c)
	if !strings.Contains(tr, "❯ why does this fail? [pasted 240 lines]") || strings.Contains(tr, "log line 2\n") {
		t.Fatalf("transcript:\n%s", tr)
	}
	golden.RequireEqual(t, []byte(screen(m)))
	m = update(m, tea.KeyMsg{Type: tea.KeyCtrlO})
	if tr := m.tr.text(m.c); !strings.Contains(tr, "log line 240") || strings.Contains(tr, "[pasted 240 lines]") {
		t.Fatalf("ctrl+o does not show the paste:\n%.400s", tr)
	}
}

// Up-arrow recalls a prompt sent with a paste as it was typed, chip and
// all, and sends it whole again; the draft keeps its own chips.
func TestRecallKeepsPasteChips(t *testing.T) {
	f := newFake()
	m := newTestModel(t, f)
	m = typeText(m, "why does this fail? ")
	m = update(m, pasteMsg(bigPaste(240)))
	m, cmd := updateCmd(m, keyMsg("enter"))
	m = drainTurn(t, m, cmd)
	m = update(m, pasteMsg(bigPaste(30)))
	m = update(m, keyMsg("up"))
	if got := m.input.ta.value(); got != "why does this fail? [pasted 240 lines]" || len(m.input.pastes) != 1 {
		t.Fatalf("recalled %.60q with %d pastes; want the prompt with its chip", got, len(m.input.pastes))
	}
	m = update(m, keyMsg("down"))
	if got := m.input.ta.value(); got != "[pasted 30 lines]" || len(m.input.pastes) != 1 || !strings.Contains(m.input.expandPastes(got), "log line 30") {
		t.Fatalf("draft %.60q with %d pastes", got, len(m.input.pastes))
	}
	m = update(m, keyMsg("up"))
	m, cmd = updateCmd(m, keyMsg("enter"))
	drainTurn(t, m, cmd)
	if len(f.prompts) != 2 || f.prompts[1] != f.prompts[0] {
		t.Fatalf("sent %d prompts; want the recalled one whole", len(f.prompts))
	}
}

// A resumed prompt with a long paste in it shows collapsed, as the chip
// showed it live; Ctrl+O shows it whole. A short one shows as it is.
func TestResumedPasteIsCollapsed(t *testing.T) {
	long := "summarise this: " + strings.ReplaceAll(bigPaste(300), "\r\n", "\n") + "thanks"
	wide := strings.Repeat("x", 5000)
	m := New(newFake(), Options{Earlier: []Earlier{
		{Role: "user", Text: long},
		{Role: "assistant", Text: "done"},
		{Role: "user", Text: wide},
		{Role: "user", Text: "two\nlines"},
	}})
	m = update(m, sizeMsg(testWidth, testHeight))
	tr := m.tr.text(m.c)
	for _, want := range []string{"❯ summarise this: log line 1 [300 more lines]", "ctrl+o shows the pasted text", "[4800 more characters]", "❯ two\n  lines"} {
		if !strings.Contains(tr, want) {
			t.Errorf("transcript lacks %q:\n%s", want, tr)
		}
	}
	if strings.Contains(tr, "log line 2\n") || strings.Contains(tr, strings.Repeat("x", 300)) {
		t.Fatalf("the paste is shown whole:\n%.2000s", tr)
	}
	m = update(m, keyMsg("ctrl+o"))
	if tr := m.tr.text(m.c); !strings.Contains(tr, "log line 300") || !strings.Contains(tr, "thanks") {
		t.Fatalf("ctrl+o does not show the whole prompt:\n%.2000s", tr)
	}
}

// titleFake records the titles the UI asks for.
type titleFake struct {
	*fakeBackend
	titles []string
}

func (f *titleFake) TitleAs(title string) { f.titles = append(f.titles, title) }

// A prompt with a paste names its session as the input showed it, the
// paste a chip; a plain prompt leaves the naming to the backend.
func TestPastedPromptTitlesTheSession(t *testing.T) {
	f := &titleFake{fakeBackend: newFake()}
	m := newTestModel(t, f)
	m = typeText(m, "plain")
	m, cmd := updateCmd(m, keyMsg("enter"))
	m = drainTurn(t, m, cmd)
	m = typeText(m, "summarise this: ")
	m = update(m, pasteMsg(bigPaste(300)))
	m = typeText(m, " thanks")
	m, cmd = updateCmd(m, keyMsg("enter"))
	drainTurn(t, m, cmd)
	if len(f.titles) != 1 || f.titles[0] != "summarise this: [pasted 300 lines] thanks" {
		t.Fatalf("titles %q; want the pasted prompt as shown", f.titles)
	}
}
