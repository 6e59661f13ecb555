package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/tools"
)

// agentsFake is a backend with sub-agents.
type agentsFake struct {
	*fakeBackend
	list      []agent.SubagentInfo
	text      map[string]string
	cancelled []string
}

func (f *agentsFake) SubagentList() []agent.SubagentInfo { return f.list }
func (f *agentsFake) SubagentTranscript(id string) (agent.SubagentInfo, string, bool) {
	for _, i := range f.list {
		if i.ID == id {
			return i, f.text[id], true
		}
	}
	return agent.SubagentInfo{}, "", false
}
func (f *agentsFake) CancelSubagent(id string) bool {
	for k, i := range f.list {
		if i.ID == id && i.Running {
			f.list[k].Running, f.list[k].Status = false, "cancelled"
			f.cancelled = append(f.cancelled, id)
			return true
		}
	}
	return false
}
func (f *agentsFake) SubagentDefinitions() []agent.Definition {
	return []agent.Definition{{Name: "reviewer", Mode: agent.ModeExplore, Description: "Reviews the current diff for bugs"}}
}

func newAgentsFake() *agentsFake {
	now := time.Now()
	return &agentsFake{fakeBackend: newFake(), list: []agent.SubagentInfo{
		{ID: "a1", Description: "find the config loaders", Mode: agent.ModeExplore, Status: "running", Running: true, Step: "grep_search: Search for \"Load(\" in **/*.go",
			Calls: 4, Tokens: 12400, Started: now.Add(-42 * time.Second), Elapsed: 42 * time.Second},
		{ID: "a2", Description: "rename Foo to Bar in pkg/x", Mode: agent.ModeEdit, Status: "done", Calls: 9, Tokens: 30100, Started: now.Add(-3 * time.Minute), Elapsed: 95 * time.Second},
	}, text: map[string]string{"a1": "task: find every config loader\n→ glob_list: **/*.go\n✓ glob_list 212 files\n→ grep_search: Load(\n\x1b[31mthe loaders are in config/\n"}}
}

func TestAgentsCommand(t *testing.T) {
	f := newAgentsFake()
	m := newTestModel(t, f)
	m = runCmd(t, m, refreshStatus(f))
	if got := m.statusView(); !strings.Contains(got, "1 agent") {
		t.Errorf("status line %q; want the running agent counted", got)
	}
	m = openAgents(t, m)
	got := screen(m)
	for _, want := range []string{"sub-agents · 1 running · 1 finished", "› a1", "running", "explore", "4 calls", "12.4k", "find the config loaders", "↳ grep_search", "a2", "done", "edit",
		"defined agents: reviewer", "x stops it", "enter opens its transcript", "esc closes"} {
		if !strings.Contains(got, want) {
			t.Errorf("the /agents list lacks %q:\n%s", want, got)
		}
	}
	m = update(m, keyMsg("esc"))
	if m.agents != nil {
		t.Fatal("esc did not close the list")
	}
	m = typeText(m, "/agents 1")
	m.input.closed = true
	m, cmd := updateCmd(m, keyMsg("enter"))
	if m.job == nil || cmd == nil {
		t.Fatal("/agents 1 opened no view of the agent")
	}
	m, follows := readJob(t, m, func() any { return cmd() })
	if v := screen(m); !follows || !strings.Contains(v, "a1 · running") || !strings.Contains(v, "the loaders are in config/") || strings.Contains(m.View(), "\x1b[31mthe") || !strings.Contains(v, "/agents stop a1") {
		t.Errorf("the live transcript view (follows %v):\n%s", follows, v)
	}
	m = update(m, keyMsg("esc"))
	m.input.closed = false
	m = runLine(t, m, "/agents stop 1")
	if len(f.cancelled) != 1 || !strings.Contains(lastBlock(m), "stopped a1") {
		t.Fatalf("stop: %v, %q", f.cancelled, lastBlock(m))
	}
	m = runLine(t, m, "/agents stop a2")
	if !strings.Contains(lastBlock(m), "a2 had already finished") {
		t.Errorf("stop of a finished agent: %q", lastBlock(m))
	}
	m = runLine(t, newTestModel(t, newFake()), "/agents")
	if !strings.Contains(lastBlock(m), "not available") {
		t.Errorf("plain backend: %q", lastBlock(m))
	}
}

// openAgents runs /agents and takes its first read; the next reads, made
// while an agent runs, are left to the test.
func openAgents(t *testing.T, m Model) Model {
	t.Helper()
	m = typeText(m, "/agents")
	m.input.closed = true
	m, cmd := updateCmd(m, keyMsg("enter"))
	m.input.closed = false
	if cmd == nil {
		t.Fatal("/agents read nothing")
	}
	return readAgentList(t, m, cmd)
}

func readAgentList(t *testing.T, m Model, cmd tea.Cmd) Model {
	t.Helper()
	msg, ok := cmd().(agentListMsg)
	if !ok {
		t.Fatalf("/agents asked for %T; want a read of the sub-agents", msg)
	}
	m, _ = updateCmd(m, msg)
	return m
}

// The /agents list: arrows move the selection, x stops the selected
// running agent and the list says so, Enter opens the selected agent's
// live transcript; with no sub-agent, it prints the defined agents.
func TestAgentsList(t *testing.T) {
	f := newAgentsFake()
	m := update(openAgents(t, newTestModel(t, f)), sizeMsg(120, 40))
	if m.agents == nil {
		t.Fatal("/agents opened no list")
	}
	m = update(m, keyMsg("down"))
	if v := screen(m); !strings.Contains(v, "› a2") || strings.Contains(v, "x stops it") {
		t.Errorf("down did not select a2, or a finished agent offers x:\n%s", v)
	}
	// x on a finished agent stops nothing.
	m, cmd := updateCmd(m, keyMsg("x"))
	m = readAgentList(t, m, cmd)
	if len(f.cancelled) != 0 || !strings.Contains(screen(m), "a2 had already finished") {
		t.Errorf("x on a finished agent: cancelled %v\n%s", f.cancelled, screen(m))
	}
	m = update(m, keyMsg("up"))
	m, cmd = updateCmd(m, keyMsg("x"))
	m = readAgentList(t, m, cmd)
	if len(f.cancelled) != 1 || f.cancelled[0] != "a1" || !strings.Contains(screen(m), "stopped a1") || !strings.Contains(screen(m), "cancelled") {
		t.Errorf("x on a1: cancelled %v\n%s", f.cancelled, screen(m))
	}
	// A new agent joins on the next read; the selection stays on a1.
	f.list = append([]agent.SubagentInfo{{ID: "a0", Description: "earlier", Mode: agent.ModeExplore, Status: "done"}}, f.list...)
	m, _ = updateCmd(m, agentListFollowMsg{seq: m.agents.seq})
	m = runCmd(t, m, readAgents(f, m.agents.seq, ""))
	if v := screen(m); !strings.Contains(v, "› a1") || !strings.Contains(v, "earlier") {
		t.Errorf("after a re-read the selection moved or the new agent is missing:\n%s", v)
	}
	m, cmd = updateCmd(m, keyMsg("enter"))
	if m.agents != nil || m.job == nil || m.job.id != "a1" || cmd == nil {
		t.Fatalf("enter did not open a1's transcript (job %+v)", m.job)
	}
	m, _ = readJob(t, m, func() any { return cmd() })
	if v := screen(m); !strings.Contains(v, "the loaders are in config/") {
		t.Errorf("a1's transcript:\n%s", v)
	}
	// No sub-agents: a printed note with the defined agents, no list.
	f.list = nil
	m = update(m, keyMsg("esc"))
	m = openAgents(t, m)
	if m.agents != nil || !strings.Contains(lastBlock(m), "reviewer") || !strings.Contains(lastBlock(m), "no sub-agents yet") {
		t.Errorf("/agents with none: list open %v, %q", m.agents != nil, lastBlock(m))
	}
}

// mergeRequest is an edit agent's merge, as the pane asks about it.
func mergeRequest() approval.Request {
	return approval.Request{
		CallID: "c9", Tool: "agent",
		Meta:       tools.Meta{Name: "agent", Risk: tools.RiskMedium, Capability: "agent:edit", Source: tools.SourceBuiltin},
		Args:       json.RawMessage(`{"description":"rename Foo to Bar","mode":"edit","prompt":"Rename Foo to Bar in pkg/x."}`),
		Capability: "agent:edit",
		Summary:    `Merge agent "rename Foo to Bar": 2 files changed (1 in conflict)`,
		Preview: "Agent: rename Foo to Bar (edit)\nTask: Rename Foo to Bar in pkg/x.\nReport: Renamed Foo to Bar in x.go and its test.\n" +
			"Conflicts (approving applies nothing while any remain): pkg/x/x_test.go\n\n" +
			"--- a/pkg/x/x.go\n+++ b/pkg/x/x.go\n@@ -3,3 +3,3 @@\n-type Foo struct{}\n+type Bar struct{}\n",
		Reversible: true, UndoPlan: "one /undo takes back the whole merge",
		Previewed: true, Why: "the autonomy level is ask: every call with side effects asks first",
		Conflicts: []string{"pkg/x/x_test.go"},
	}
}

// The merge pane says which files conflict and how to resolve them; e
// opens the first in the editor, in the workspace, and when the editor
// returns the merge is proposed again. A file that is not plain is not
// opened, and the pane says why.
func TestMergePaneResolvesAConflict(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "pkg", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(ws, "pkg", "x", "x_test.go")
	if err := os.WriteFile(file, []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, p := withPane(t, mergeRequest())
	m.c.workspace = ws
	m = update(m, sizeMsg(120, 40))
	view := strings.Join(strings.Fields(screen(m)), " ")
	for _, want := range []string{"in conflict: pkg/x/x_test.go (nothing applies while any remain)", "e opens pkg/x/x_test.go in the workspace", "e resolve pkg/x/x_test.go"} {
		if !strings.Contains(view, want) {
			t.Errorf("the merge pane lacks %q:\n%s", want, view)
		}
	}
	cmd, err := conflictEditor(ws, p.req, func(k string) string { return map[string]string{"EDITOR": "ed --wait"}[k] })
	if err != nil || !slices.Equal(cmd.Args, []string{"ed", "--wait", file}) {
		t.Fatalf("the editor command %v, %v; want the workspace's conflicted file", cmd, err)
	}
	m, c := updateCmd(m, keyMsg("e"))
	if c == nil || m.pane == nil || m.pane.decided {
		t.Fatal("e did not run the editor, or decided before it returned")
	}
	// The editor failed: the pane stays and says so.
	m = update(m, conflictEditedMsg{p: p, err: errors.New("the editor ed failed: exit status 1")})
	if _, ok := decision(t, p); ok || !strings.Contains(screen(m), "the editor ed failed") {
		t.Fatalf("a failed editor decided something, or is not said:\n%s", screen(m))
	}
	m = runCmd(t, m, func() tea.Msg { return conflictEditedMsg{p: p} })
	if d, ok := decision(t, p); !ok || d.Choice != approval.Repropose {
		t.Errorf("after the editor returned: decision %+v, %v; want the merge proposed again", d, ok)
	}
	if m.pane != nil || !strings.Contains(screen(m), "merging the agent's change again") {
		t.Errorf("while the merge is proposed again:\n%s", screen(m))
	}
	// A link is not opened: it could lead out of the workspace.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", file); err != nil {
		t.Fatal(err)
	}
	if _, err := conflictEditor(ws, p.req, func(string) string { return "ed" }); err == nil || !strings.Contains(err.Error(), "not a plain file") {
		t.Errorf("a link in conflict: %v", err)
	}
	req := mergeRequest()
	req.Conflicts = []string{"../outside.go"}
	if _, err := conflictEditor(ws, req, func(string) string { return "ed" }); err == nil || !strings.Contains(err.Error(), "not a path inside the workspace") {
		t.Errorf("a path out of the workspace: %v", err)
	}
}

// subagentWrite is a sub-agent's own question, labelled with the agent.
func subagentWrite() approval.Request {
	r := writeRequest()
	r.From = `asked by agent "rename Foo to Bar" (edit) · task: Rename Foo to Bar in pkg/x. · last step: fs_read: Read pkg/x/x.go`
	return r
}

func TestAgentsGolden(t *testing.T) {
	open := func(req approval.Request) func(t *testing.T) Model {
		return func(t *testing.T) Model { m, _ := withPane(t, req); return m }
	}
	list := func(t *testing.T) Model { return openAgents(t, newTestModel(t, newAgentsFake())) }
	card := func(t *testing.T) Model {
		m := startFakeTurn(t, newTestModel(t, newFake()), "look around")
		c := call("c1", "agent", `{"description":"find the config loaders","mode":"explore","prompt":"Find every config loader."}`)
		return events(m,
			agent.ToolCallEvent{Call: c, Phase: "started"},
			agent.SubagentStartEvent{ID: "a1", CallID: "c1", Description: "find the config loaders", Mode: "explore"},
			agent.ToolOutputEvent{CallID: "c1", Progress: "a1 · 4 calls · 12.4k tokens · grep_search: Search for \"Load(\""},
		)
	}
	tests := []struct {
		name  string
		model func(t *testing.T) Model
	}{
		{"agents list", list},
		{"running agent card", card},
		{"merge pane", open(mergeRequest())},
		{"sub-agent question", open(subagentWrite())},
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s %dx%d", tt.name, size[0], size[1]), func(t *testing.T) {
				m := update(tt.model(t), sizeMsg(size[0], size[1]))
				golden.RequireEqual(t, []byte(screen(m)))
			})
		}
	}
}

// A merge in conflict cannot be approved as it is: Enter and y decide
// nothing and say what can be done, the key line offers no approval; n
// discards. Without conflicts Enter applies it.
func TestMergeInConflictIsNotApprovedByEnter(t *testing.T) {
	m, p := withPane(t, mergeRequest())
	m = update(m, sizeMsg(80, 24))
	if keys := strings.Join(strings.Fields(screen(m)), " "); strings.Contains(keys, "applies these changes") || !strings.Contains(keys, "n discards them") {
		t.Errorf("the key line of a merge in conflict:\n%s", screen(m))
	}
	for _, k := range []string{"y", "enter"} {
		m = press(t, m, k)
		if d, ok := decision(t, p); ok {
			t.Fatalf("%s decided %+v on a merge in conflict", k, d)
		}
	}
	if view := strings.Join(strings.Fields(screen(m)), " "); !strings.Contains(view, "nothing applies while any remain; press e to resolve or n to discard") {
		t.Errorf("Enter on a merge in conflict says nothing of what to do:\n%s", screen(m))
	}
	press(t, m, "n")
	if d, ok := decision(t, p); !ok || d.Choice != approval.Deny {
		t.Errorf("n on a merge in conflict: %+v, %v; want it discarded", d, ok)
	}

	req := mergeRequest()
	req.Conflicts = nil
	m, p = withPane(t, req)
	m = update(m, sizeMsg(80, 24))
	if !strings.Contains(strings.Join(strings.Fields(screen(m)), " "), "enter applies these changes") {
		t.Errorf("the key line of a clean merge:\n%s", screen(m))
	}
	press(t, m, "enter")
	if d, ok := decision(t, p); !ok || d.Choice != approval.ApproveOnce {
		t.Errorf("Enter on a clean merge: %+v, %v; want it applied", d, ok)
	}
}
