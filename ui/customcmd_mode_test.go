package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/history"
	"myclaw/tools"
	"myclaw/tools/builtin"
)

// withCommand is a model over b with the custom command name (content is
// its file), loaded.
func withCommand(t *testing.T, b Backend, ws, name, content string) Model {
	t.Helper()
	dir := t.TempDir()
	writeCmd(t, dir, name+".md", content)
	m := New(b, Options{Workspace: ws, Commands: func() ([]CustomCommand, []string) {
		return LoadCommands(CommandDir{dir, "user", true})
	}})
	m = update(m, sizeMsg(testWidth, testHeight))
	return runCmd(t, m, loadCustomCommands(m.loadCommands))
}

// A command whose file says mode: plan runs its prompt in plan mode with
// the real agent, at full: the write the model tries is denied without a
// question, the plan it submits is up for review, and nothing is written.
// Esc goes back to full; accepting goes on at the level the card chose.
func TestPlanModeCommandEndsInAPlanCardAndWritesNothing(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want approval.Level
	}{{"esc", approval.Full}, {"y", approval.Ask}, {"a", approval.AutoEdit}} {
		t.Run(tc.key, func(t *testing.T) {
			url := e2eModel(t, func(n int, chunk func(map[string]any, any)) {
				call := func(name, args string) {
					chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": fmt.Sprintf("c%d", n), "type": "function",
						"function": map[string]any{"name": name, "arguments": args}}}}, nil)
					chunk(map[string]any{}, "tool_calls")
				}
				switch n {
				case 1:
					call("fs_write", `{"path":"notes/todo.md","content":"- [ ] ship\n"}`)
				case 2:
					call("plan_submit", `{"rationale":"A todo list.","steps":[{"title":"write the list","files":["notes/todo.md"]}]}`)
				default:
					chunk(map[string]any{"role": "assistant", "content": "Carried out."}, nil)
					chunk(map[string]any{}, "stop")
				}
			})
			a, ws := e2eAgent(t, url, func(ws *builtin.Workspace, store *history.Store) []tools.Tool {
				return []tools.Tool{builtin.NewFsWrite(ws, store.Blobs()), builtin.NewFsRead(ws), builtin.NewPlanSubmit()}
			}, nil)
			a.SetAutonomy(approval.Full)
			m := withCommand(t, a, ws, "todo", "---\ndescription: Plan the todo list\nmode: plan\n---\nPlan a todo list in notes/todo.md.")
			m = typeText(m, "/todo")
			m, cmd := updateCmd(m, keyMsg("enter"))
			if a.Autonomy() != approval.Plan || !strings.Contains(statusRow(m), "· plan ·") {
				t.Fatalf("level %s, status %q as the command starts; want plan", a.Autonomy(), statusRow(m))
			}
			m = drainTurn(t, m, cmd)
			if !m.reviewing() {
				t.Fatalf("no plan card after the command's turn:\n%s", screen(m))
			}
			s := flat(screen(m))
			for _, want := range []string{"◆ plan · 1 step · 1 file", "/todo runs in plan mode, as its file says; back to full", "the plan waits for you"} {
				if !strings.Contains(s, want) {
					t.Errorf("the screen lacks %q:\n%s", want, s)
				}
			}
			if _, err := os.Stat(filepath.Join(ws, "notes")); !os.IsNotExist(err) {
				t.Fatalf("plan mode wrote: %v", err)
			}
			var denied bool
			for _, msg := range a.Messages() {
				denied = denied || (msg.Role == "tool" && strings.Contains(msg.Content, "plan mode allows no side effects"))
			}
			if !denied {
				t.Error("the model was not told its write was denied by plan mode")
			}
			if a.Autonomy() != approval.Plan {
				t.Fatalf("level %s while the plan waits; want plan", a.Autonomy())
			}
			m, cmd = updateCmd(m, keyMsg(tc.key))
			if cmd != nil && m.turn != nil {
				m = drainTurn(t, m, cmd)
			}
			if a.Autonomy() != tc.want || m.status.level != tc.want {
				t.Fatalf("level %s (shown %s) after %s; want %s", a.Autonomy(), m.status.level, tc.key, tc.want)
			}
			if tc.key == "esc" {
				if !strings.Contains(flat(screen(m)), "/todo is over: back to full") {
					t.Errorf("going back is not said:\n%s", screen(m))
				}
				return
			}
			if _, err := os.Stat(filepath.Join(ws, "notes")); !os.IsNotExist(err) {
				t.Fatal("the accepted plan's turn wrote under ask or auto-edit without an approval")
			}
			if m.cmdMode != nil {
				t.Error("the command still holds the level after its plan was accepted")
			}
		})
	}
}

// A command's mode never widens the level: full or auto-edit in its file
// is an error naming the file and the modes allowed, and the command is
// not loaded.
func TestCommandModeCannotWiden(t *testing.T) {
	for _, mode := range []string{"full", "auto-edit", "ask", "yolo"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			writeCmd(t, dir, "ship.md", "---\nmode: "+mode+"\n---\nShip it.")
			cmds, notices := LoadCommands(CommandDir{dir, "project", true})
			if len(cmds) != 0 {
				t.Fatalf("loaded %+v; want the command ignored", cmds)
			}
			want := "Ignored " + filepath.Join(dir, "ship.md") + `: mode "` + mode + `" is not allowed: a command's mode may be plan or readonly`
			if len(notices) != 1 || !strings.HasPrefix(notices[0], want) {
				t.Fatalf("notices %q; want %q", notices, want)
			}
			f := newFake()
			m := withCommand(t, f, "/work/project", "ship", "---\nmode: "+mode+"\n---\nShip it.")
			if s := flat(screen(m)); !strings.Contains(s, `ship.md: mode "`+mode+`" is not allowed: a command's mode may be plan or readonly`) {
				t.Errorf("the load error is not shown:\n%s", s)
			}
			m, cmd := updateCmd(typeText(m, "/ship"), keyMsg("enter"))
			if m.turn != nil || cmd != nil || len(f.prompts) != 0 || f.Autonomy() != approval.Ask {
				t.Errorf("prompts %q at %s; want nothing sent at ask", f.prompts, f.Autonomy())
			}
		})
	}
}

// A plan command at readonly is refused (plan mode runs commands readonly
// does not); the line stays in the input and nothing is sent.
func TestPlanCommandAtReadonlyIsRefused(t *testing.T) {
	f := newFake()
	f.level = approval.ReadOnly
	m := withCommand(t, f, "/work/project", "todo", "---\nmode: plan\n---\nPlan it.")
	m = typeText(m, "/todo now")
	m, cmd := updateCmd(m, keyMsg("enter"))
	if m.turn != nil || cmd != nil {
		t.Fatal("the command ran")
	}
	if s := flat(screen(m)); !strings.Contains(s, "/todo runs in plan mode") || !strings.Contains(s, "the level is readonly, where none do: a command never widens the level") {
		t.Errorf("the refusal is not said:\n%s", s)
	}
	if m.input.ta.value() != "/todo now" || len(f.prompts) != 0 || f.Autonomy() != approval.ReadOnly {
		t.Errorf("input %q, prompts %q, level %s", m.input.ta.value(), f.prompts, f.Autonomy())
	}
}

// A readonly command runs its prompt at readonly and the level comes back
// when it ends, plan mode included (entered from the level it was).
func TestReadonlyCommandGoesBackWhenItEnds(t *testing.T) {
	for _, from := range []approval.Level{approval.Full, approval.Plan} {
		t.Run(string(from), func(t *testing.T) {
			f := newFake()
			f.level = from
			var during approval.Level
			f.runFn = func(_ context.Context, _ string, emit func(agent.Event), _ approval.Approver) error {
				during = f.Autonomy()
				emit(agent.DoneEvent{Reason: agent.DoneStop, Rounds: 1})
				return nil
			}
			m := withCommand(t, f, "/work/project", "look", "---\nmode: readonly\n---\nLook around.")
			m = typeText(m, "/look")
			m, cmd := updateCmd(m, keyMsg("enter"))
			m = drainTurn(t, m, cmd)
			if during != approval.ReadOnly {
				t.Errorf("the prompt ran at %s; want readonly", during)
			}
			if f.Autonomy() != from || m.status.level != from {
				t.Errorf("level %s (shown %s) after the command; want %s back", f.Autonomy(), m.status.level, from)
			}
			if !strings.Contains(flat(screen(m)), "/look is over: back to "+string(from)) {
				t.Errorf("going back is not said:\n%s", screen(m))
			}
		})
	}
}

// A plan command's turn cancelled, or ended without a plan, goes back; a
// level the person chose meanwhile stays; a rejected plan is revised in
// plan mode, and the level goes back once the revision is set aside.
func TestPlanCommandLevelComesBack(t *testing.T) {
	start := func(t *testing.T) (*planFake, Model) {
		f := &planFake{fakeBackend: newFake()}
		f.level = approval.AutoEdit
		m := withCommand(t, f, "/work/project", "todo", "---\nmode: plan\n---\nPlan it.")
		m = startFakeTurn(t, m, "/todo")
		if f.Autonomy() != approval.Plan {
			t.Fatalf("level %s as the command starts; want plan", f.Autonomy())
		}
		return f, m
	}
	end := func(m Model, err error) Model {
		return update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true, err: err}}})
	}
	t.Run("cancelled", func(t *testing.T) {
		f, m := start(t)
		m = update(m, keyMsg("esc"))
		m = end(m, context.Canceled)
		if f.Autonomy() != approval.AutoEdit || m.status.level != approval.AutoEdit {
			t.Errorf("level %s after a cancel; want auto-edit", f.Autonomy())
		}
	})
	t.Run("no plan", func(t *testing.T) {
		f, m := start(t)
		m = events(m, agent.TextDelta{Text: "Nothing to plan."}, agent.DoneEvent{Reason: agent.DoneStop, Rounds: 1})
		m = end(m, nil)
		if f.Autonomy() != approval.AutoEdit || !strings.Contains(flat(screen(m)), "/todo is over: back to auto-edit") {
			t.Errorf("level %s after a turn without a plan; want auto-edit, said:\n%s", f.Autonomy(), screen(m))
		}
	})
	t.Run("chosen meanwhile", func(t *testing.T) {
		f, m := start(t)
		m, cmd := updateCmd(m, keyMsg("shift+tab"))
		m = runCmd(t, m, cmd)
		m = end(m, nil)
		if f.Autonomy() != approval.Ask || m.cmdMode != nil {
			t.Errorf("level %s after Shift+Tab during the command; want ask, the person's choice", f.Autonomy())
		}
	})
	t.Run("rejected", func(t *testing.T) {
		f, m := start(t)
		p := testProposal()
		m = events(m, agent.PlanEvent{Items: p.Items(), Proposal: &p}, agent.DoneEvent{Reason: agent.DoneStop, Rounds: 1})
		m = end(m, nil)
		var during approval.Level
		f.runFn = func(_ context.Context, _ string, emit func(agent.Event), _ approval.Approver) error {
			during = f.Autonomy()
			emit(agent.PlanEvent{Items: p.Items(), Proposal: &p})
			emit(agent.DoneEvent{Reason: agent.DoneStop, Rounds: 1})
			return nil
		}
		m = update(m, keyMsg("n"))
		m = typeText(m, "smaller")
		m, cmd := updateCmd(m, keyMsg("enter"))
		m = drainTurn(t, m, cmd)
		if during != approval.Plan || f.Autonomy() != approval.Plan || !m.reviewing() {
			t.Fatalf("revised at %s, now %s (reviewing %v); want the revision in plan mode, up for review", during, f.Autonomy(), m.reviewing())
		}
		m = update(m, keyMsg("esc"))
		if f.Autonomy() != approval.AutoEdit || m.status.level != approval.AutoEdit {
			t.Errorf("level %s after setting the revised plan aside; want auto-edit", f.Autonomy())
		}
	})
}

// flat is s with its runs of spaces and line breaks made one space, so
// that a sentence the screen wrapped can be looked for.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// Back from a readonly command to plan mode, the agent still names the
// level plan mode was entered from.
func TestReadonlyCommandKeepsWherePlanModeCameFrom(t *testing.T) {
	url := e2eModel(t, func(_ int, chunk func(map[string]any, any)) {
		chunk(map[string]any{"role": "assistant", "content": "Looked."}, nil)
		chunk(map[string]any{}, "stop")
	})
	a, ws := e2eAgent(t, url, func(ws *builtin.Workspace, _ *history.Store) []tools.Tool {
		return []tools.Tool{builtin.NewFsRead(ws)}
	}, nil)
	a.SetAutonomy(approval.AutoEdit)
	a.SetAutonomy(approval.Plan)
	m := withCommand(t, a, ws, "look", "---\nmode: readonly\n---\nLook around.")
	m = typeText(m, "/look")
	m, cmd := updateCmd(m, keyMsg("enter"))
	if a.Autonomy() != approval.ReadOnly {
		t.Fatalf("level %s as the command starts; want readonly", a.Autonomy())
	}
	drainTurn(t, m, cmd)
	if a.Autonomy() != approval.Plan || a.PlanFrom() != approval.AutoEdit {
		t.Errorf("level %s from %s after the command; want plan, entered from auto-edit", a.Autonomy(), a.PlanFrom())
	}
}
