package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"myclaw/approval"
)

// lines is a ten-line file with some lines changed.
func lines(change map[int]string) string {
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		if c, ok := change[i]; ok {
			b.WriteString(c + "\n")
		} else {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	return b.String()
}

// twoEditsRoute: the main conversation starts two edit agents in one
// answer; "first" changes line 2 of f.txt, "second" line 8.
func twoEditsRoute(r routedRequest) reply {
	switch {
	case r.sub() && !strings.Contains(r.raw, `"role":"tool"`):
		line, text := 2, "two by first"
		if strings.Contains(r.task(), "second") {
			line, text = 8, "eight by second"
		}
		content := lines(map[int]string{line: text})
		return openAIStyle("", call{id: "w", name: "fs_write", args: fmt.Sprintf(`{"path":"f.txt","content":%q}`, content)})
	case r.sub():
		return openAIStyle("REPORT: changed f.txt")
	case r.Messages[len(r.Messages)-1]["role"] == "tool":
		return openAIStyle("done")
	}
	return openAIStyle("", agentCall("c1", "first", "edit", "Change line 2 (first)."), agentCall("c2", "second", "edit", "Change line 8 (second)."))
}

// bothProposed makes the edit agents' layers report when each merge is
// computed: done is closed once n have been.
func bothProposed(o *SubagentOptions, n int) (done chan struct{}) {
	done = make(chan struct{})
	inner := o.NewLayer
	var mu sync.Mutex
	count := 0
	o.NewLayer = func() (EditLayer, error) {
		l, err := inner()
		if err != nil {
			return nil, err
		}
		l.(*fakeLayer).onPropose = func() {
			mu.Lock()
			defer mu.Unlock()
			if count++; count == n {
				close(done)
			}
		}
		return l, nil
	}
	return done
}

// Two edit agents finish together: the second merge was computed before
// the first applied. Approving it finds the workspace changed; it is
// merged again and put to the person, saying why, and then applies with
// both agents' lines.
func TestSubagentStaleMergeIsProposedAgain(t *testing.T) {
	var h *harness
	var layers []*fakeLayer
	o := editOptions(t, &h, &layers)
	proposed := bothProposed(&o, 2)
	// auto-edit lets the agents' own writes through and asks about merges.
	h, _ = subHarness(t, approval.AutoEdit, twoEditsRoute, o)
	os.WriteFile(filepath.Join(h.ws, "f.txt"), []byte(lines(nil)), 0o644)
	var merges []approval.Request
	approver := approverFunc(func(_ context.Context, req approval.Request) (approval.Decision, error) {
		if !req.Previewed {
			t.Errorf("asked about %s %s; only merges ask here", req.Tool, req.Summary)
			return approval.Decision{Choice: approval.Deny}, nil
		}
		if len(merges) == 0 {
			<-proposed // both merges are computed before either applies
		}
		merges = append(merges, req)
		return approval.Decision{Choice: approval.ApproveOnce}, nil
	})
	if err := h.run(context.Background(), "go", approver); err != nil {
		t.Fatal(err)
	}
	if len(merges) != 3 {
		t.Fatalf("asked about %d merges; want the two, then the stale one again", len(merges))
	}
	// Whichever merge applied second found the workspace changed: the
	// questions are put one at a time, but one merge's apply may come
	// after the other's question.
	again := merges[2]
	stale := merges[0].CallID != merges[1].CallID && (again.CallID == merges[0].CallID || again.CallID == merges[1].CallID)
	if again.Why != RemergeWhy || !again.Previewed || len(again.Conflicts) != 0 || !stale {
		t.Errorf("the merge proposed again: call %s (first two %s, %s), why %q, conflicts %v", again.CallID, merges[0].CallID, merges[1].CallID, again.Why, again.Conflicts)
	}
	if !strings.HasPrefix(again.Preview, "Proposed again: "+RemergeWhy) {
		t.Errorf("the pane's text does not start saying why it is shown again:\n%s", again.Preview)
	}
	if ok, _ := approval.Grantable(again); ok {
		t.Error("the merge proposed again may be granted for the session")
	}
	if got, want := readFile(t, filepath.Join(h.ws, "f.txt")), lines(map[int]string{2: "two by first", 8: "eight by second"}); got != want {
		t.Errorf("f.txt is\n%s\nwant both agents' lines\n%s", got, want)
	}
	for _, e := range h.ofType("tool_result") {
		if r := e.(ToolResultEvent); r.Status != StatusOK {
			t.Errorf("%s ended %s: %s", r.Call.ID, r.Status, r.Message)
		}
	}
	entries, _ := h.agent.History()
	if len(entries) != 2 {
		t.Fatalf("journal %+v; want one entry per merge", entries)
	}
	if !strings.Contains(strings.Join(noticesOf(h), "\n"), "merged again") {
		t.Errorf("no notice says the merge was made again: %v", noticesOf(h))
	}
	for _, l := range layers {
		if !l.wasDiscarded() {
			t.Error("a layer was kept after its merge")
		}
	}
}

// The workspace changes under a merge the same lines the agent changed:
// proposed again, it names the conflict; denied, nothing applies.
func TestSubagentStaleMergeNowConflicting(t *testing.T) {
	var h *harness
	var layers []*fakeLayer
	o := editOptions(t, &h, &layers)
	h, _ = subHarness(t, approval.AutoEdit, func(r routedRequest) reply {
		if r.sub() || r.Messages[len(r.Messages)-1]["role"] == "tool" {
			return twoEditsRoute(r)
		}
		return openAIStyle("", agentCall("c1", "first", "edit", "Change line 2 (first)."))
	}, o)
	os.WriteFile(filepath.Join(h.ws, "f.txt"), []byte(lines(nil)), 0o644)
	users := lines(map[int]string{2: "two by the user"})
	var merges []approval.Request
	approver := approverFunc(func(_ context.Context, req approval.Request) (approval.Decision, error) {
		merges = append(merges, req)
		if len(merges) == 1 {
			// The user edits the same line after looking at the merge.
			os.WriteFile(filepath.Join(h.ws, "f.txt"), []byte(users), 0o644)
			return approval.Decision{Choice: approval.ApproveOnce}, nil
		}
		return approval.Decision{Choice: approval.Deny}, nil
	})
	if err := h.run(context.Background(), "go", approver); err != nil {
		t.Fatal(err)
	}
	if len(merges) != 2 || merges[1].Why != RemergeWhy || strings.Join(merges[1].Conflicts, ",") != "f.txt" {
		t.Fatalf("merges asked: %d; the second's why %q, conflicts %v", len(merges), merges[len(merges)-1].Why, merges[len(merges)-1].Conflicts)
	}
	if got := readFile(t, filepath.Join(h.ws, "f.txt")); got != users {
		t.Errorf("f.txt is %q; want the user's", got)
	}
	res := h.ofType("tool_result")
	if len(res) != 1 || !strings.Contains(res[0].(ToolResultEvent).Message, "nothing of it was applied") {
		t.Errorf("results %+v; want the merge denied, saying nothing applied", res)
	}
	if !layers[0].wasDiscarded() {
		t.Error("the layer was kept")
	}
}

// A file that keeps changing does not make the merge loop: after
// MaxRemerges merges again, the call fails and nothing is applied.
func TestSubagentMergeThatKeepsChangingIsBounded(t *testing.T) {
	var h *harness
	var layers []*fakeLayer
	o := editOptions(t, &h, &layers)
	h, _ = subHarness(t, approval.AutoEdit, func(r routedRequest) reply {
		if r.sub() || r.Messages[len(r.Messages)-1]["role"] == "tool" {
			return twoEditsRoute(r)
		}
		return openAIStyle("", agentCall("c1", "first", "edit", "Change line 2 (first)."))
	}, o)
	os.WriteFile(filepath.Join(h.ws, "f.txt"), []byte(lines(nil)), 0o644)
	asked := 0
	approver := approverFunc(func(_ context.Context, req approval.Request) (approval.Decision, error) {
		asked++
		// Something rewrites line 10 after each look.
		os.WriteFile(filepath.Join(h.ws, "f.txt"), []byte(lines(map[int]string{10: fmt.Sprint("ten, take ", asked)})), 0o644)
		return approval.Decision{Choice: approval.ApproveOnce}, nil
	})
	if err := h.run(context.Background(), "go", approver); err != nil {
		t.Fatal(err)
	}
	if asked != 1+MaxRemerges {
		t.Errorf("asked %d times; want the merge, then %d times again", asked, MaxRemerges)
	}
	if got := readFile(t, filepath.Join(h.ws, "f.txt")); strings.Contains(got, "two by first") {
		t.Errorf("the merge applied: %q", got)
	}
	res := h.ofType("tool_result")
	if len(res) != 1 || res[0].(ToolResultEvent).Status != StatusError || !strings.Contains(res[0].(ToolResultEvent).Message, "kept changing") {
		t.Errorf("results %+v; want the call failed, saying the workspace kept changing", res)
	}
	if entries, _ := h.agent.History(); len(entries) != 0 {
		t.Errorf("journal %+v; want nothing applied", entries)
	}
}

// Headless at full, two edit agents' merges computed before either
// applies: the stale one is merged again and applied without asking.
func TestHeadlessFullAppliesTheRecomputedMerge(t *testing.T) {
	var h *harness
	var layers []*fakeLayer
	o := editOptions(t, &h, &layers)
	proposed := bothProposed(&o, 2)
	inner := o.NewLayer
	o.NewLayer = func() (EditLayer, error) {
		l, err := inner()
		if err != nil {
			return nil, err
		}
		fl := l.(*fakeLayer)
		return proposeWith{fl, func(p *fakeProposal) { p.beforeApply = func() { <-proposed } }}, nil
	}
	h, _ = subHarness(t, approval.Full, twoEditsRoute, o)
	os.WriteFile(filepath.Join(h.ws, "f.txt"), []byte(lines(nil)), 0o644)
	if err := h.run(context.Background(), "go", approval.Headless{}); err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, filepath.Join(h.ws, "f.txt")), lines(map[int]string{2: "two by first", 8: "eight by second"}); got != want {
		t.Errorf("f.txt is\n%s\nwant both agents' lines\n%s", got, want)
	}
	for _, e := range h.ofType("tool_result") {
		if r := e.(ToolResultEvent); r.Status != StatusOK {
			t.Errorf("%s ended %s: %s", r.Call.ID, r.Status, r.Message)
		}
	}
	if !strings.Contains(strings.Join(noticesOf(h), "\n"), "merged again, applied") {
		t.Errorf("no notice says the merge was made again: %v", noticesOf(h))
	}
	if n := len(h.ofType("approval")); n != 0 {
		for _, e := range h.ofType("approval") {
			if ev := e.(ApprovalEvent); ev.Phase == "asked" {
				t.Errorf("headless full asked about %s", ev.Tool)
			}
		}
	}
}

// proposeWith is a fake layer whose proposals are set up by fix.
type proposeWith struct {
	*fakeLayer
	fix func(*fakeProposal)
}

func (l proposeWith) Propose(ctx context.Context) (Proposal, error) {
	p, err := l.fakeLayer.Propose(ctx)
	if err == nil {
		l.fix(p.(*fakeProposal))
	}
	return p, err
}

func noticesOf(h *harness) []string {
	var out []string
	for _, e := range h.ofType("notice") {
		out = append(out, e.(NoticeEvent).Text)
	}
	return out
}
