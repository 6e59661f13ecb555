package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// The standard map has no conflict: the keys it shares on purpose
// (history_prev and up, send and choose) are not one.
func TestDefaultKeysHaveNoConflict(t *testing.T) {
	k := DefaultKeyMap()
	if notes := ApplyKeys(&k, nil); len(notes) != 0 {
		t.Errorf("notes for the standard map: %q", notes)
	}
	// Rebinding within a pair meant to share is not a conflict either.
	if notes := ApplyKeys(&k, map[string][]string{"history_prev": {"up", "ctrl+p"}}); len(notes) != 0 {
		t.Errorf("history_prev = up, ctrl+p: %q; want no note (up shares its keys by design)", notes)
	}
	seen := map[string]bool{}
	for _, a := range keyActions {
		if seen[a.name] {
			t.Errorf("two actions are called %s", a.name)
		}
		seen[a.name] = true
	}
}

func TestKeysRebindWithConflict(t *testing.T) {
	m := New(newFake(), Options{Workspace: "/work/project", Keys: map[string][]string{
		"toggle_tools": {"ctrl+t"},
		// Two rebound actions claim one key: a conflict, so neither has it.
		"cycle_level":     {"ctrl+y"},
		"toggle_think":    {"ctrl+y", "f5"},
		"toggle_mouse":    {"ctrl+r"}, // toggle_think's key, taken
		"toggle_tool":     {"ctrl+q"},
		"expand_paste":    {"ctrl+tt"},
		"complete":        {"x", "ctrl+space"},
		"approve_once":    {"o"}, // letters answer in the pane
		"external_editor": {"space"},
	}})
	m = update(m, tea.WindowSizeMsg{Width: 120, Height: 60})
	text := m.tr.text(m.c)
	for _, want := range []string{
		"[keys] cycle_level and toggle_think both take ctrl+y: a conflict, so neither does",
		"[keys] toggle_tool: no such action; /help lists them (did you mean toggle_tools?)",
		`[keys] expand_paste: "ctrl+tt" is not a key`,
		`[keys] complete: "x" would type a character in the prompt, so it is not bound`,
		`[keys] external_editor: "space" would type a character in the prompt`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("start notes lack %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "toggle_mouse takes ctrl+r") {
		t.Errorf("ctrl+r was toggle_think's, which was rebound too: nothing to take:\n%s", text)
	}
	k := m.c.keys
	if got := allKeys(k.ToggleThink); got != "f5" {
		t.Errorf("toggle_think keys %q; want f5 (ctrl+y is in conflict)", got)
	}
	if got := allKeys(k.CycleLevel); got != "" {
		t.Errorf("cycle_level keys %q; want none", got)
	}
	if got := allKeys(k.Complete); got != "tab" || !strings.Contains(text, `[keys] complete: "ctrl+space" is not a key`) {
		// Neither key could be bound: complete keeps its own.
		t.Errorf("complete keys %q; want tab kept, ctrl+space reported", got)
	}
	if got := allKeys(k.ApproveOnce); got != "o" {
		t.Errorf("approve_once keys %q; want o", got)
	}

	// The rebound keys act; the old ones do not.
	m = update(m, tea.KeyMsg{Type: tea.KeyCtrlT})
	if !m.c.expandTools {
		t.Error("ctrl+t did not expand the tool results")
	}
	m = update(m, keyMsg("ctrl+o"))
	if !m.c.expandTools {
		t.Error("ctrl+o still toggles the tool results")
	}
	m = update(m, tea.KeyMsg{Type: tea.KeyF5})
	if !m.c.showThink {
		t.Error("f5 did not show the reasoning")
	}
	level := m.status.level
	m = update(m, tea.KeyMsg{Type: tea.KeyCtrlY})
	if m.status.level != level || !m.c.showThink {
		t.Error("ctrl+y, in conflict, still did something")
	}
	m = update(m, keyMsg("ctrl+r"))
	if !m.c.mouseOff || !m.c.showThink {
		t.Errorf("ctrl+r: mouse off %v, reasoning %v; want the mouse toggled only", m.c.mouseOff, m.c.showThink)
	}

	// /help shows the keys in force, by the names [keys] uses.
	m = typeText(m, "/help")
	m = update(m, keyMsg("enter"))
	help := m.tr.text(m.c)
	for _, want := range []string{"ctrl+t                  expand or collapse tool results [toggle_tools]", "f5                      show or hide the model's reasoning [toggle_think]", "(none)                  next autonomy level", "o                       approve this call once [approve_once]"} {
		if !strings.Contains(help, want) {
			t.Errorf("/help lacks %q", want)
		}
	}
}

// A key [keys] gives an action is taken from the action that had it, and
// the notes say so, naming both.
func TestKeysTakeFromTheStandardMap(t *testing.T) {
	k := DefaultKeyMap()
	notes := ApplyKeys(&k, map[string][]string{"toggle_mouse": {"ctrl+r"}, "send": {"ctrl+j"}})
	want := []string{"[keys] send takes ctrl+j from newline", "[keys] toggle_mouse takes ctrl+r from toggle_think, which has no key left"}
	if strings.Join(notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes %q; want %q", notes, want)
	}
	if allKeys(k.Newline) != "alt+enter" || allKeys(k.Send) != "ctrl+j" || k.ToggleThink.Enabled() {
		t.Errorf("newline %q, send %q, toggle_think enabled %v", allKeys(k.Newline), allKeys(k.Send), k.ToggleThink.Enabled())
	}
	if k.Send.Help().Key != "ctrl+j" || k.Send.Help().Desc == "" {
		t.Errorf("send's help %+v; want the new key and the old text", k.Send.Help())
	}
	// Actions that never meet keep their keys: the pane's y is not the
	// prompt's.
	k = DefaultKeyMap()
	if notes := ApplyKeys(&k, map[string][]string{"deny": {"esc"}}); len(notes) != 1 || !strings.Contains(notes[0], "deny takes esc from deny_esc") || allKeys(k.Cancel) != "esc" {
		t.Errorf("deny = esc: %q, cancel %q; want esc taken from deny_esc only", notes, allKeys(k.Cancel))
	}
}
