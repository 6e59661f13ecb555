package agent

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"myclaw/approval"
	"myclaw/history"
	"myclaw/tools"
	"myclaw/tools/builtin"
)

// fakeLayer is an edit agent's layer for tests: a copy of the workspace
// the sub-agent's file tools write to; Propose compares it with the copy
// as it was (the base) and with the workspace now.
type fakeLayer struct {
	real, upper string
	base        map[string]string
	ws          *builtin.Workspace

	mu        sync.Mutex
	discarded bool
	// onPropose, when set, runs after each merge is computed.
	onPropose func()
}

func openFakeLayer(t *testing.T, dir string) *fakeLayer {
	l := &fakeLayer{real: dir, upper: t.TempDir(), base: readTree(t, dir)}
	for p, c := range l.base {
		if err := os.WriteFile(filepath.Join(l.upper, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := builtin.OpenWorkspace(l.upper)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	l.ws = ws
	return l
}

func readTree(t testing.TB, dir string) map[string]string {
	out := map[string]string{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return nil
	})
	return out
}

func (l *fakeLayer) Workspace() *builtin.Workspace { return l.ws }
func (l *fakeLayer) Sandbox() tools.Sandbox        { return nil }
func (l *fakeLayer) Discard() {
	l.mu.Lock()
	l.discarded = true
	l.mu.Unlock()
}
func (l *fakeLayer) wasDiscarded() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.discarded
}

func (l *fakeLayer) Propose(context.Context) (Proposal, error) {
	p := &fakeProposal{l: l, changes: map[string]string{}, theirs: map[string]string{}}
	now := readTree(nil, l.real)
	for rel, c := range readTree(nil, l.upper) {
		if b, ok := l.base[rel]; ok && b == c {
			continue
		}
		p.theirs[rel] = now[rel]
		merged, ok := mergeLines(l.base[rel], c, now[rel])
		p.changes[rel] = merged
		if !ok {
			p.conflicts = append(p.conflicts, rel)
		}
	}
	if l.onPropose != nil {
		l.onPropose()
	}
	return p, nil
}

// mergeLines merges line by line files of as many lines; otherwise
// only a side that left the base unchanged merges.
func mergeLines(base, ours, theirs string) (string, bool) {
	switch {
	case theirs == base || theirs == ours:
		return ours, true
	case ours == base:
		return theirs, true
	}
	b, o, t := strings.Split(base, "\n"), strings.Split(ours, "\n"), strings.Split(theirs, "\n")
	if len(b) != len(o) || len(b) != len(t) {
		return ours, false
	}
	for i := range b {
		switch {
		case t[i] == b[i] || t[i] == o[i]:
		case o[i] == b[i]:
			o[i] = t[i]
		default:
			return ours, false
		}
	}
	return strings.Join(o, "\n"), true
}

type fakeProposal struct {
	l         *fakeLayer
	changes   map[string]string
	theirs    map[string]string // the workspace's files when merged
	conflicts []string
	discarded bool
	// beforeApply, when set, runs as Apply starts.
	beforeApply func()
}

// changedSinceErr is the layer's error for a workspace that changed
// after the merge was computed.
type changedSinceErr struct{ path string }

func (e changedSinceErr) Error() string {
	return "nothing was applied: " + e.path + " changed in the workspace after the merge was shown"
}
func (changedSinceErr) ChangedSinceShown() bool { return true }

func (p *fakeProposal) Files() []string {
	var f []string
	for k := range p.changes {
		f = append(f, k)
	}
	slices.Sort(f)
	return f
}
func (p *fakeProposal) Conflicts() []string { return p.conflicts }
func (p *fakeProposal) Summary() string     { return strings.Join(p.Files(), ", ") }
func (p *fakeProposal) Report() string {
	var b strings.Builder
	for _, f := range p.Files() {
		b.WriteString("+++ " + f + "\n+" + p.changes[f] + "\n")
	}
	return b.String()
}
func (p *fakeProposal) Discard() { p.discarded = true }

// Apply writes the changes; the undo data is what was there before.
func (p *fakeProposal) Apply(context.Context) (tools.Result, error) {
	if p.beforeApply != nil {
		p.beforeApply()
	}
	now := readTree(nil, p.l.real)
	for _, rel := range p.Files() {
		if now[rel] != p.theirs[rel] {
			return tools.Result{}, changedSinceErr{rel}
		}
	}
	undo := map[string]*string{}
	for rel, c := range p.changes {
		path := filepath.Join(p.l.real, rel)
		if old, err := os.ReadFile(path); err == nil {
			s := string(old)
			undo[rel] = &s
		} else {
			undo[rel] = nil
		}
		if err := os.WriteFile(path, []byte(c), 0o644); err != nil {
			return tools.Result{}, err
		}
	}
	u, _ := json.Marshal(map[string]any{"dir": p.l.real, "files": undo})
	return tools.Result{Undo: u}, nil
}

func fakeRevert(_ context.Context, undo json.RawMessage, _ bool) (json.RawMessage, error) {
	var u struct {
		Dir   string             `json:"dir"`
		Files map[string]*string `json:"files"`
	}
	if err := json.Unmarshal(undo, &u); err != nil {
		return nil, err
	}
	for rel, old := range u.Files {
		path := filepath.Join(u.Dir, rel)
		if old == nil {
			if err := os.Remove(path); err != nil {
				return nil, err
			}
		} else if err := os.WriteFile(path, []byte(*old), 0o644); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// editOptions gives edit agents a fake layer; layers collects them.
func editOptions(t *testing.T, h **harness, layers *[]*fakeLayer) SubagentOptions {
	blobs := history.NewStore(t.TempDir()).Blobs()
	var mu sync.Mutex // agents of one answer open their layers together
	return SubagentOptions{
		NewLayer: func() (EditLayer, error) {
			l := openFakeLayer(t, (*h).ws)
			mu.Lock()
			*layers = append(*layers, l)
			mu.Unlock()
			return l, nil
		},
		EditTools: func(ws *builtin.Workspace, _ tools.Sandbox) []tools.Tool {
			return []tools.Tool{builtin.NewFsRead(ws), builtin.NewFsWrite(ws, blobs), builtin.NewFsEdit(ws, blobs), builtin.NewGlobList(ws), builtin.NewGrepSearch(ws)}
		},
		Revert: fakeRevert,
	}
}

// editRoute: the main conversation starts one edit agent, which writes
// new.txt and reports.
func editRoute(r routedRequest) reply {
	switch {
	case r.sub() && !strings.Contains(r.raw, `"role":"tool"`):
		return openAIStyle("", call{id: "s1", name: "fs_write", args: `{"path":"new.txt","content":"from the agent\n"}`})
	case r.sub():
		return openAIStyle("REPORT: added new.txt")
	case r.Messages[len(r.Messages)-1]["role"] == "tool":
		return openAIStyle("done")
	}
	return openAIStyle("", agentCall("c1", "add file", "edit", "Create new.txt."))
}

func TestSubagentEditMergeApprovedIsOneUndoStep(t *testing.T) {
	var h *harness
	var layers []*fakeLayer
	o := editOptions(t, &h, &layers)
	h, _ = subHarness(t, approval.Ask, editRoute, o)
	var asked []approval.Request
	approver := approverFunc(func(_ context.Context, req approval.Request) (approval.Decision, error) {
		asked = append(asked, req)
		return approval.Decision{Choice: approval.ApproveOnce}, nil
	})
	if err := h.run(context.Background(), "go", approver); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 {
		t.Fatalf("asked %d questions; want the sub-agent's write, then the merge: %+v", len(asked), asked)
	}
	if w := asked[0]; w.Tool != "fs_write" || !strings.Contains(w.From, `agent "add file" (edit)`) || !strings.Contains(w.From, "task: Create new.txt.") {
		t.Errorf("the sub-agent's question is not labelled with the agent: tool %s, from %q", w.Tool, w.From)
	}
	m := asked[1]
	if m.Tool != "agent" || !m.Previewed || m.From != "" || !strings.Contains(m.Summary, `Merge agent "add file": new.txt`) ||
		!strings.Contains(m.Preview, "Report: REPORT: added new.txt") || !strings.Contains(m.Preview, "+++ new.txt") {
		t.Errorf("the merge pane: tool %s previewed %v from %q\nsummary %q\nreport:\n%s", m.Tool, m.Previewed, m.From, m.Summary, m.Preview)
	}
	if b, err := os.ReadFile(filepath.Join(h.ws, "new.txt")); err != nil || string(b) != "from the agent\n" {
		t.Fatalf("after approval new.txt = %q, %v", b, err)
	}
	if len(layers) != 1 || !layers[0].wasDiscarded() {
		t.Error("the layer was not dropped after the merge")
	}
	entries, _ := h.agent.History()
	if len(entries) != 1 || entries[0].Tool != "agent" || !entries[0].Reversible {
		t.Fatalf("journal = %+v; want one reversible entry for the merge", entries)
	}
	if _, err := h.agent.Undo(context.Background(), 1, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("/undo left new.txt (%v)", err)
	}
}

func TestSubagentEditMergeDeniedChangesNothing(t *testing.T) {
	var h *harness
	var layers []*fakeLayer
	o := editOptions(t, &h, &layers)
	h, _ = subHarness(t, approval.Ask, editRoute, o)
	approver := approverFunc(func(_ context.Context, req approval.Request) (approval.Decision, error) {
		if req.Previewed {
			return approval.Decision{Choice: approval.Deny}, nil
		}
		return approval.Decision{Choice: approval.ApproveOnce}, nil
	})
	if err := h.run(context.Background(), "go", approver); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("a denied merge reached the workspace (%v)", err)
	}
	if len(layers) != 1 || !layers[0].wasDiscarded() {
		t.Error("the denied merge's layer was kept")
	}
	res := h.ofType("tool_result")
	if len(res) != 1 || res[0].(ToolResultEvent).Status != StatusDenied {
		t.Errorf("results %+v; want the agent call denied", res)
	}
}

func TestSubagentCancelLeavesWorkspaceUntouched(t *testing.T) {
	var h *harness
	var layers []*fakeLayer
	o := editOptions(t, &h, &layers)
	started := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	h, _ = subHarness(t, approval.Full, func(r routedRequest) reply {
		if r.sub() && strings.Contains(r.raw, `"role":"tool"`) {
			// Written in its layer; now it works on until cancelled.
			once.Do(func() { close(started) })
			<-release
			return openAIStyle("late")
		}
		return editRoute(r)
	}, o)
	t.Cleanup(func() { close(release) })
	done := make(chan error, 1)
	go func() { done <- h.run(context.Background(), "go", approveAll()) }()
	<-started
	runs := h.agent.Subagents()
	if len(runs) != 1 || !runs[0].Info().Running {
		t.Fatalf("running agents: %v", runs)
	}
	runs[0].Cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(layers[0].upper, "new.txt")); err != nil {
		t.Fatalf("the agent had not written in its layer: %v", err)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("a cancelled agent's write reached the workspace (%v)", err)
	}
	if !layers[0].wasDiscarded() {
		t.Error("the cancelled agent's layer was kept")
	}
	if i := runs[0].Info(); i.Running || i.Status != "cancelled" {
		t.Errorf("after cancel: %+v", i)
	}
	res := h.ofType("tool_result")
	if len(res) != 1 || !strings.Contains(res[0].(ToolResultEvent).Message, "cancelled") {
		t.Errorf("results %+v; want the agent call cancelled", res)
	}
}

func TestSubagentEditRefusedWithoutLayer(t *testing.T) {
	var h *harness
	var layers []*fakeLayer
	o := editOptions(t, &h, &layers)
	o.NewLayer = func() (EditLayer, error) { return nil, errors.New("user namespaces are off") }
	h, rs := subHarness(t, approval.Ask, editRoute, o)
	if err := h.run(context.Background(), "go", approveAll()); err != nil {
		t.Fatal(err)
	}
	res := h.ofType("tool_result")
	if len(res) != 1 || !strings.Contains(res[0].(ToolResultEvent).Message, "none can be made here (user namespaces are off)") {
		t.Errorf("results %+v; want edit mode refused, saying why", res)
	}
	if n := len(rs.requests(true)); n != 0 {
		t.Errorf("a refused edit agent made %d requests", n)
	}
}

// An edit agent's shell is judged as running in its layer, whatever the
// level would grant a shell command.
func TestEditAgentsShellIsConfinedToItsLayer(t *testing.T) {
	shell := builtin.NewShellRun(builtin.ShellOptions{Dir: t.TempDir(), OnlyConfined: true})
	got := scratchConfinement(shell, &approval.Confinement{Sandboxed: true, Network: true, HostProxy: true})
	if got == nil || !got.Sandboxed || !got.Layer || got.Network || got.Tool().Network {
		t.Fatalf("confinement %+v; want sandboxed in the layer without network", got)
	}
	plain := builtin.NewShellRun(builtin.ShellOptions{Dir: t.TempDir()})
	conf := &approval.Confinement{Sandboxed: true, HostProxy: true}
	if got := scratchConfinement(plain, conf); got != conf {
		t.Fatalf("a plain shell's confinement changed to %+v", got)
	}
}

// An edit agent that changed nothing has no merge to ask about, and
// leaves no journal entry for /undo to spend a step on.
func TestSubagentThatChangedNothingAsksNothingAndJournalsNothing(t *testing.T) {
	var h *harness
	var layers []*fakeLayer
	o := editOptions(t, &h, &layers)
	h, _ = subHarness(t, approval.Ask, editRoute, o)
	var asked []approval.Request
	approver := approverFunc(func(_ context.Context, req approval.Request) (approval.Decision, error) {
		asked = append(asked, req)
		return approval.Decision{Choice: approval.Deny}, nil // the sub-agent's write
	})
	if err := h.run(context.Background(), "go", approver); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0].Tool != "fs_write" {
		t.Fatalf("asked %d questions (%+v); want only the sub-agent's write, no merge", len(asked), asked)
	}
	entries, _ := h.agent.History()
	for _, e := range entries {
		if e.Reversible {
			t.Fatalf("journal = %+v; an empty merge left an entry /undo would take", entries)
		}
	}
	if len(layers) != 1 || !layers[0].wasDiscarded() {
		t.Error("the layer was not dropped")
	}
	var summary string
	for _, e := range h.eventsOf("tool_result") {
		if r, ok := e.(ToolResultEvent); ok {
			summary += r.Summary
		}
	}
	if !strings.Contains(summary, `Agent "add file" changed nothing to merge`) {
		t.Errorf("results say %q; want the agent's empty merge named", summary)
	}
}
