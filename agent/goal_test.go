package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myclaw/approval"
	"myclaw/history"
	"myclaw/sandbox"
	"myclaw/tools"
	"myclaw/tools/builtin"
)

// withGoalTools gives the harness fs_read, fs_write and a shell_run
// confined by a checked sandbox (with the toolchain caches seen through
// layers), which also runs the goal's check.
func withGoalTools(t *testing.T) harnessOpt {
	return func(o *Options) {
		ws, err := builtin.OpenWorkspace(o.Workspace)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ws.Close() })
		state := t.TempDir()
		sb := sandbox.New(sandbox.Options{Workspace: o.Workspace, Writable: sandbox.DefaultWritable(), LayerDir: filepath.Join(state, "layers")})
		if st := sb.Check(context.Background()); !st.Active {
			if strings.Contains(st.Why, "no Landlock") {
				t.Skip("this kernel has no Landlock: " + st.Why)
			}
			t.Fatalf("the sandbox check failed: %s", st.Why)
		}
		undo, err := builtin.NewShellUndo(ws, o.Store.Blobs(), filepath.Join(state, "shell-cache"), state)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { undo.Close() })
		shell := builtin.NewShellRun(builtin.ShellOptions{Dir: o.Workspace, OutputDir: filepath.Join(state, "out"), Sandbox: sb, Undo: undo})
		reg := tools.NewRegistry()
		reg.MustRegister(builtin.NewFsRead(ws))
		reg.MustRegister(builtin.NewFsWrite(ws, o.Store.Blobs()))
		reg.MustRegister(shell)
		o.Registry = reg
		o.UserTools = UserTools{Shell: shell}
	}
}

// goalTurn scripts one iteration: the model writes files, then ends its
// turn.
func goalTurn(id string, files map[string]string) []reply {
	var calls []call
	n := 0
	for path, content := range files {
		args, _ := json.Marshal(map[string]string{"path": path, "content": content})
		calls = append(calls, call{fmt.Sprintf("%s_%d", id, n), "fs_write", string(args)})
		n++
	}
	return []reply{openAIStyle("", calls...), openAIStyle("I changed it.")}
}

func goalScript(turns ...[]reply) []reply {
	var out []reply
	for _, t := range turns {
		out = append(out, t...)
	}
	return out
}

func (h *harness) goal(g Goal) (GoalResultEvent, error) {
	h.t.Helper()
	if g.Confinement == (tools.Confinement{}) {
		g.Confinement = tools.Confinement{Sandboxed: true}
	}
	return h.agent.RunGoal(context.Background(), g, func(e Event) {
		h.mu.Lock()
		h.events = append(h.events, e)
		h.mu.Unlock()
	}, approveAll())
}

func (h *harness) iterations() []GoalIterationEvent {
	var out []GoalIterationEvent
	for _, e := range h.eventsOf("goal_iteration") {
		out = append(out, e.(GoalIterationEvent))
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// Iteration 1 fails the check, iteration 2 passes it; the model's second
// turn reads the check's output; one undo takes iteration 2 back whole.
func TestGoalPassesOnTheSecondIterationAndUndoTakesItBack(t *testing.T) {
	srv := newFakeServer(t, goalScript(
		goalTurn("a", map[string]string{"calc.txt": "wrong\n"}),
		goalTurn("b", map[string]string{"calc.txt": "right\n", "extra.txt": "x\n"}),
	)...)
	h := newHarness(t, approval.Ask, srv, withGoalTools(t))
	res, err := h.goal(Goal{Text: "make calc right", Check: "cat calc.txt; grep -q right calc.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Passed || res.Reason != GoalPassed || res.Iterations != 2 {
		t.Fatalf("result %+v; want passed at iteration 2", res)
	}
	its := h.iterations()
	if len(its) != 2 || its[0].Passed || its[0].ExitCode != 1 || its[0].Failures != 1 || !its[0].Changed || !its[1].Passed {
		t.Fatalf("iterations %+v", its)
	}
	if !strings.Contains(its[0].Output, "wrong") {
		t.Errorf("iteration 1's output %q does not show the check's output", its[0].Output)
	}
	if its[1].Budget.TokensUsed != 4*4020 {
		t.Errorf("tokens used %d; want the four requests' 16080", its[1].Budget.TokensUsed)
	}
	// The second iteration's prompt is the check's output.
	msgs := srv.messages(2)
	prompt, _ := msgs[len(msgs)-1]["content"].(string)
	if !strings.Contains(prompt, "failed (exit 1; 1 failure counted)") || !strings.Contains(prompt, "wrong") || !strings.Contains(prompt, "Keep working toward the goal: make calc right") {
		t.Fatalf("the second iteration's prompt:\n%s", prompt)
	}
	if n := len(h.eventsOf("goal_result")); n != 1 {
		t.Fatalf("%d goal_result events; want 1", n)
	}

	out, err := h.agent.Undo(context.Background(), 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(h.ws, "calc.txt")); got != "wrong\n" {
		t.Fatalf("after one undo calc.txt holds %q; want iteration 1's\n%s", got, out)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "extra.txt")); err == nil {
		t.Fatalf("one undo left iteration 2's extra.txt:\n%s", out)
	}
	if strings.Contains(out, "Nothing more") {
		t.Errorf("undo says %q", out)
	}
	// The next undo takes back iteration 1.
	if _, err := h.agent.Undo(context.Background(), 1, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "calc.txt")); err == nil {
		t.Fatal("the second undo left iteration 1's calc.txt")
	}
}

// A run that never passes stops at its iteration limit, fails, and names
// the iteration with the fewest failures and how to get back to it.
func TestGoalBudgetStopsAndNamesTheBestState(t *testing.T) {
	fails := func(n int) string { return strings.Repeat("--- FAIL: TestX\n", n) + fmt.Sprintf("run %d\n", n) }
	srv := newFakeServer(t, goalScript(
		goalTurn("a", map[string]string{"out.txt": fails(3)}),
		goalTurn("b", map[string]string{"out.txt": fails(1)}),
		goalTurn("c", map[string]string{"out.txt": fails(2)}),
	)...)
	h := newHarness(t, approval.Ask, srv, withGoalTools(t))
	res, err := h.goal(Goal{Text: "fix the tests", Check: "cat out.txt; ! grep -q FAIL out.txt", MaxIterations: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Passed || res.Reason != GoalMaxIterations || res.Iterations != 3 {
		t.Fatalf("result %+v; want the iteration limit after 3", res)
	}
	if res.Best == nil || res.Best.Iteration != 2 || res.Best.Failures != 1 || res.Best.UndoSteps != 1 {
		t.Fatalf("best %+v; want iteration 2 with 1 failure, one undo away", res.Best)
	}
	if !strings.Contains(res.Message, "Best: iteration 2, 1 failure (exit 1); /undo (or myclaw undo) takes the workspace back to it.") {
		t.Fatalf("message %q", res.Message)
	}
	if got := []int{h.iterations()[0].Failures, h.iterations()[1].Failures, h.iterations()[2].Failures}; fmt.Sprint(got) != "[3 1 2]" {
		t.Fatalf("failures counted %v; want [3 1 2]", got)
	}
	if srv.count() != 6 {
		t.Fatalf("%d requests; want 6 (no fourth iteration)", srv.count())
	}
}

// A run whose iteration changes nothing and fails alike is stopped.
func TestGoalStopsARunThatRepeatsTheSameFailingChange(t *testing.T) {
	srv := newFakeServer(t, goalScript(
		goalTurn("a", map[string]string{"calc.txt": "wrong\n"}),
		goalTurn("b", map[string]string{"calc.txt": "wrong\n"}),
	)...)
	h := newHarness(t, approval.Ask, srv, withGoalTools(t))
	// The check's timing differs from run to run; it is not a change.
	res, err := h.goal(Goal{Text: "make calc right", Check: "cat calc.txt; echo took $RANDOM$RANDOM.${RANDOM}ms; grep -q right calc.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Passed || res.Reason != GoalRepeated || res.Iterations != 2 {
		t.Fatalf("result %+v; want stopped as repeated after 2", res)
	}
	if !strings.Contains(res.Message, "same output as after iteration 1") {
		t.Fatalf("message %q", res.Message)
	}
	if its := h.iterations(); len(its) != 2 || its[1].Changed {
		t.Fatalf("iterations %+v; want the second to have changed nothing", its)
	}
}

// With RollbackWorse, an iteration that made the check worse is taken
// back, and the model is told so with the output from before it.
func TestGoalRollsBackAnIterationThatMadeItWorse(t *testing.T) {
	fails := func(n int) string { return strings.Repeat("--- FAIL: TestX\n", n) }
	srv := newFakeServer(t, goalScript(
		goalTurn("a", map[string]string{"out.txt": fails(1)}),
		goalTurn("b", map[string]string{"out.txt": fails(3), "junk.txt": "junk\n"}),
		goalTurn("c", map[string]string{"out.txt": "ok\n"}),
	)...)
	h := newHarness(t, approval.Ask, srv, withGoalTools(t))
	res, err := h.goal(Goal{Text: "fix the tests", Check: "cat out.txt; ! grep -q FAIL out.txt", RollbackWorse: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Passed || res.Iterations != 3 {
		t.Fatalf("result %+v", res)
	}
	its := h.iterations()
	if !its[1].RolledBack || its[1].RollbackNote != "" {
		t.Fatalf("iteration 2 %+v; want rolled back", its[1])
	}
	if _, err := os.Stat(filepath.Join(h.ws, "junk.txt")); err == nil {
		t.Fatal("the rolled back iteration's junk.txt is still there")
	}
	msgs := srv.messages(4)
	prompt, _ := msgs[len(msgs)-1]["content"].(string)
	if !strings.Contains(prompt, "made the check worse (1 → 3 failures)") || strings.Count(prompt, "--- FAIL") != 1 {
		t.Fatalf("the third iteration's prompt:\n%s", prompt)
	}
}

// A goal whose check would run unsandboxed is refused unless the person
// chose that.
func TestGoalRefusesAnUnsandboxedCheck(t *testing.T) {
	srv := newFakeServer(t)
	h := newHarness(t, approval.Ask, srv, withGoalTools(t))
	_, err := h.agent.RunGoal(context.Background(), Goal{Text: "x", Check: "true", Confinement: tools.Confinement{}}, func(Event) {}, approveAll())
	if err == nil || !strings.Contains(err.Error(), "outside the sandbox") {
		t.Fatalf("got %v; want a refusal", err)
	}
	if srv.count() != 0 {
		t.Fatal("the model was asked")
	}
}

// The check runs without network.
func TestGoalCheckHasNoNetwork(t *testing.T) {
	srv := newFakeServer(t, goalTurn("a", map[string]string{"a.txt": "a\n"})...)
	h := newHarness(t, approval.Ask, srv, withGoalTools(t))
	host := strings.TrimPrefix(srv.srv.URL, "http://")
	res, err := h.goal(Goal{Text: "x", Check: "exec 3<>/dev/tcp/" + strings.Replace(host, ":", "/", 1), MaxIterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Passed {
		t.Fatal("the check reached the network")
	}
}

// A goal run against a real failing Go test: iteration 1's fix is wrong,
// iteration 2's passes `go test`.
func TestGoalAgainstAFailingGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs go test twice")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go here")
	}
	srv := newFakeServer(t, goalScript(
		goalTurn("a", map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int { return a * b }\n"}),
		goalTurn("b", map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n"}),
	)...)
	h := newHarness(t, approval.Ask, srv, withGoalTools(t))
	os.WriteFile(filepath.Join(h.ws, "go.mod"), []byte("module calc\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(h.ws, "calc.go"), []byte("package calc\n\nfunc Add(a, b int) int { return a - b }\n"), 0o644)
	os.WriteFile(filepath.Join(h.ws, "calc_test.go"), []byte("package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d; want 5\", got)\n\t}\n}\n"), 0o644)
	res, err := h.goal(Goal{Text: "make go test pass", Check: "go test ./..."})
	if err != nil {
		t.Fatal(err)
	}
	its := h.iterations()
	if !res.Passed || len(its) != 2 || its[0].Passed || its[0].Failures != 1 || !strings.Contains(its[0].Output, "Add(2, 3) = 6; want 5") {
		t.Fatalf("result %+v, iterations %+v", res, its)
	}
}

// The token and time budgets stop a run between iterations.
func TestGoalTokenAndTimeBudgets(t *testing.T) {
	srv := newFakeServer(t, goalScript(
		goalTurn("a", map[string]string{"calc.txt": "wrong\n"}),
		goalTurn("b", map[string]string{"calc.txt": "still wrong\n"}),
	)...)
	h := newHarness(t, approval.Ask, srv, withGoalTools(t))
	// One iteration is two requests of 4020 tokens each.
	res, err := h.goal(Goal{Text: "make calc right", Check: "grep -q right calc.txt", TokenBudget: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if res.Passed || res.Reason != GoalTokenBudget || res.Iterations != 1 || res.Budget.TokensUsed != 8040 {
		t.Fatalf("result %+v; want the token budget after one iteration", res)
	}
	if !strings.Contains(res.Message, "the token budget (5000) is used up (8040)") || res.Best == nil || res.Best.Iteration != 1 {
		t.Fatalf("result %+v", res)
	}

	// A clock that moves a minute each time it is read runs out of three.
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h.agent.opts.Now = func() time.Time { clock = clock.Add(time.Minute); return clock }
	res, err = h.goal(Goal{Text: "make calc right", Check: "grep -q right calc.txt", TimeBudget: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.Passed || res.Reason != GoalTimeBudget || !strings.Contains(res.Message, "the time budget (3m0s) is used up") {
		t.Fatalf("result %+v; want the time budget", res)
	}
}

// A budget that runs out mid-turn stops the turn before its next request:
// the calls made stand, the check runs once more, and the run ends.
func TestGoalBudgetStopsATurnBeforeItsNextRequest(t *testing.T) {
	write := func(id, content string) call {
		args, _ := json.Marshal(map[string]string{"path": "calc.txt", "content": content})
		return call{id, "fs_write", string(args)}
	}
	srv := newFakeServer(t,
		openAIStyle("", write("a", "one\n")),
		openAIStyle("", write("b", "two\n")),
		openAIStyle("", write("c", "three\n")),
		openAIStyle("I changed it."),
	)
	h := newHarness(t, approval.Ask, srv, withGoalTools(t))
	// Each request is 4020 tokens: the second one passes 5000.
	res, err := h.goal(Goal{Text: "make calc right", Check: "grep -q right calc.txt", TokenBudget: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if srv.count() != 2 {
		t.Fatalf("%d requests; want 2 (the turn stops once the budget is used up)", srv.count())
	}
	if got := readFile(t, filepath.Join(h.ws, "calc.txt")); got != "two\n" {
		t.Fatalf("calc.txt = %q; the second round's call should stand", got)
	}
	if res.Passed || res.Reason != GoalTokenBudget || res.Iterations != 1 || len(h.iterations()) != 1 {
		t.Fatalf("result %+v, %d iterations checked; want the token budget after one checked iteration", res, len(h.iterations()))
	}
	var said bool
	for _, e := range h.eventsOf("notice") {
		said = said || strings.Contains(e.(NoticeEvent).Text, "this turn stops before its next request")
	}
	if !said {
		t.Fatal("no notice said why the turn stopped")
	}
}

// An undo of a group's calls counts as one step against the number asked.
func TestShortCountsAGroupOnce(t *testing.T) {
	g := func(group string) history.Outcome {
		return history.Outcome{Done: true, Entry: history.Entry{Group: group}}
	}
	if s := Short("undo", 1, []history.Outcome{g("goal-1/2"), g("goal-1/2"), g("goal-1/2")}); s != "" {
		t.Errorf("one group asked once: %q", s)
	}
	if s := Short("undo", 3, []history.Outcome{g("goal-1/2"), g("goal-1/2"), g("")}); s != "Nothing more to undo (2 of 3 asked)." {
		t.Errorf("a group and a call of 3 asked: %q", s)
	}
}

// At readonly (and plan) the check runs with the workspace read-only: the
// level promises that nothing there changes. The same check writes at ask,
// so the test can fail. Unsandboxed, the check is refused at readonly.
func TestGoalCheckAtReadonlyCannotWrite(t *testing.T) {
	const check = "echo made > made.txt && test -s made.txt"
	for _, level := range []approval.Level{approval.Ask, approval.ReadOnly} {
		srv := newFakeServer(t, openAIStyle("Nothing to change."))
		h := newHarness(t, level, srv, withGoalTools(t))
		res, err := h.goal(Goal{Text: "x", Check: check, MaxIterations: 1})
		if err != nil {
			t.Fatalf("%s: %v", level, err)
		}
		_, statErr := os.Stat(filepath.Join(h.agent.opts.Workspace, "made.txt"))
		wrote := statErr == nil
		if want := level != approval.ReadOnly; res.Passed != want || wrote != want {
			t.Fatalf("%s: passed %v, wrote %v; want %v", level, res.Passed, wrote, want)
		}
	}
	srv := newFakeServer(t, openAIStyle("Nothing to change."))
	h := newHarness(t, approval.ReadOnly, srv, withGoalTools(t))
	_, err := h.agent.RunGoal(context.Background(), Goal{Text: "x", Check: check, MaxIterations: 1, Unconfined: true}, func(Event) {}, approveAll())
	if err == nil || !strings.Contains(err.Error(), "must not change the workspace") {
		t.Fatalf("unsandboxed at readonly: %v; want the check refused", err)
	}
	if _, statErr := os.Stat(filepath.Join(h.agent.opts.Workspace, "made.txt")); statErr == nil {
		t.Fatal("the unsandboxed check ran at readonly")
	}
}
