package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"

	"myclaw/approval"
)

// statusRow is the last row of the screen: the status line.
func statusRow(m Model) string {
	rows := strings.Split(screen(m), "\n")
	return rows[len(rows)-1]
}

// Shift+Tab at the prompt steps ask → auto-edit → full → plan → ask, shows the
// level at once and sets it in the backend, during a turn too.
func TestShiftTabCyclesLevels(t *testing.T) {
	f := newFake()
	m := newTestModel(t, f)
	for _, want := range []approval.Level{approval.AutoEdit, approval.Full, approval.Plan, approval.Ask, approval.AutoEdit} {
		next, cmd := updateCmd(m, keyMsg("shift+tab"))
		if got := statusRow(next); !strings.Contains(got, "test-model · "+string(want)+" · ") {
			t.Fatalf("status line %q; want %s shown before the backend answers", got, want)
		}
		m = runCmd(t, next, cmd)
		if got := f.Autonomy(); got != want {
			t.Fatalf("backend level %s; want %s", got, want)
		}
	}
	if strings.Contains(statusRow(m), "unsandboxed") {
		t.Errorf("the cycle reached unsandboxed: %q", statusRow(m))
	}

	// From readonly (set by /autonomy) the cycle starts again at ask.
	f.SetAutonomy(approval.ReadOnly)
	m = runCmd(t, m, refreshStatus(f))
	if m = press(t, m, "shift+tab"); f.Autonomy() != approval.Ask {
		t.Errorf("from readonly: %s; want ask", f.Autonomy())
	}

	// Mid-turn the change reaches the backend, for the next call.
	m = startFakeTurn(t, m, "go")
	press(t, m, "shift+tab")
	if f.Autonomy() != approval.AutoEdit {
		t.Errorf("during a turn: %s; want auto-edit", f.Autonomy())
	}
}

// With the approval pane open Shift+Tab moves its choice, not the level.
func TestShiftTabLeavesTheLevelUnderAPane(t *testing.T) {
	m, _ := withPane(t, writeRequest())
	f := m.backend.(*fakeBackend)
	m = press(t, m, "shift+tab")
	if f.Autonomy() != approval.Ask || !strings.Contains(statusRow(m), "· ask ·") {
		t.Errorf("level %s, status %q; want ask unchanged", f.Autonomy(), statusRow(m))
	}
}

// Two changes whose commands end in the other order still leave the
// backend at the level shown.
func TestShiftTabOutOfOrder(t *testing.T) {
	f := newFake()
	m := newTestModel(t, f)
	m, first := updateCmd(m, keyMsg("shift+tab"))
	m, second := updateCmd(m, keyMsg("shift+tab"))
	m = runCmd(t, m, second)
	m = runCmd(t, m, first) // sets auto-edit last, then full again
	if f.Autonomy() != approval.Full || !strings.Contains(statusRow(m), "· full ·") {
		t.Errorf("backend %s, status %q; want full", f.Autonomy(), statusRow(m))
	}
}

func TestLevelLabels(t *testing.T) {
	f := newFake()
	f.level = approval.Full
	m := update(New(f, Options{Workspace: "/work/project", Unsandboxed: true}), sizeMsg(testWidth, testHeight))
	if got := statusRow(m); !strings.Contains(got, "test-model · full · unsandboxed · /work/project") {
		t.Errorf("unsandboxed status %q", got)
	}
	if got := statusRow(newTestModel(t, f)); strings.Contains(got, "unsandboxed") || !strings.Contains(got, "· full ·") {
		t.Errorf("full status %q", got)
	}
	// Each level has its colour, in both themes; unsandboxed is the error red.
	for _, dark := range []bool{true, false} {
		p := LightTheme
		if dark {
			p = DarkTheme
		}
		st := NewStyles(p)
		seen := map[lipgloss.TerminalColor]string{}
		for name, s := range map[string]lipgloss.Style{"ask": st.Status, "auto-edit": st.LevelAutoEdit, "full": st.LevelFull, "unsandboxed": st.LevelUnsandboxed} {
			fg := s.GetForeground()
			if other, ok := seen[fg]; ok {
				t.Errorf("dark=%v: %s and %s share the colour %v", dark, name, other, fg)
			}
			seen[fg] = name
		}
		if st.LevelUnsandboxed.GetForeground() != p.Danger || st.LevelFull.GetForeground() != p.Warning {
			t.Errorf("dark=%v: unsandboxed %v, full %v; want the error and warning colours", dark, st.LevelUnsandboxed.GetForeground(), st.LevelFull.GetForeground())
		}
		for _, tc := range []struct {
			level       approval.Level
			unsandboxed bool
			style       lipgloss.Style
		}{
			{approval.Ask, false, st.Status}, {approval.ReadOnly, true, st.Status}, {approval.AutoEdit, false, st.LevelAutoEdit},
			{approval.Full, false, st.LevelFull}, {approval.Full, true, st.LevelUnsandboxed}, {approval.Ask, true, st.LevelUnsandboxed},
		} {
			want := string(tc.level)
			if tc.unsandboxed && tc.level != approval.ReadOnly {
				want += " · unsandboxed"
			}
			if got := levelLabel(&st, tc.level, tc.unsandboxed); got != tc.style.Render(want) {
				t.Errorf("dark=%v: levelLabel(%s, %v) = %q; want %q", dark, tc.level, tc.unsandboxed, got, tc.style.Render(want))
			}
		}
	}
}

// The welcome line says what runs without asking at the level in use.
func TestWelcomePerLevel(t *testing.T) {
	tests := []struct {
		level       approval.Level
		unsandboxed bool
		want        string
	}{
		{approval.Ask, false, "edits and commands wait for your approval."},
		{approval.ReadOnly, false, "readonly: myclaw reads and answers, and changes nothing."},
		{approval.AutoEdit, false, "auto-edit: undoable edits and confined commands run; the rest waits for you."},
		{approval.Full, false, "full: everything runs without asking, confined to the workspace."},
		{approval.Full, true, "full, unsandboxed: everything runs without asking, and commands run with your full rights (--sandbox off)."},
		{approval.Ask, true, "commands you approve run unsandboxed (--sandbox off)."},
	}
	for _, tt := range tests {
		f := newFake()
		f.level = tt.level
		m := update(New(f, Options{Unsandboxed: tt.unsandboxed}), sizeMsg(200, 30))
		if got := screen(m); !strings.Contains(got, tt.want) {
			t.Errorf("%s (unsandboxed %v): welcome\n%s\nwant %q", tt.level, tt.unsandboxed, got, tt.want)
		}
		if text, warn := levelPromise(tt.level, tt.unsandboxed); warn != tt.unsandboxed || !strings.Contains("Ask in plain words (enter sends); "+text, tt.want) {
			t.Errorf("levelPromise(%s, %v) = %q, %v", tt.level, tt.unsandboxed, text, warn)
		}
	}
	// After Shift+Tab the welcome tells the truth for the new level.
	m := update(New(newFake(), Options{}), sizeMsg(200, 30))
	if got := screen(press(t, m, "shift+tab")); !strings.Contains(got, "auto-edit: undoable edits and confined commands run") {
		t.Errorf("after shift+tab:\n%s", got)
	}
}
