package agent

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/approval"
	"myclaw/sandbox"
	"myclaw/tools"
	"myclaw/tools/builtin"
)

// withPreviewShell swaps in fs_read and a shell_run confined by sb, with
// shell undo, for the harness's workspace.
func withPreviewShell(sb *tools.Sandbox, state string) harnessOpt {
	return func(o *Options) {
		ws, err := builtin.OpenWorkspace(o.Workspace)
		if err != nil {
			panic(err)
		}
		undo, err := builtin.NewShellUndo(ws, o.Store.Blobs(), filepath.Join(state, "shell-cache"), state)
		if err != nil {
			panic(err)
		}
		reg := tools.NewRegistry()
		reg.MustRegister(builtin.NewFsRead(ws))
		reg.MustRegister(builtin.NewShellRun(builtin.ShellOptions{Dir: o.Workspace, Sandbox: *sb, Undo: undo}))
		o.Registry = reg
	}
}

// previewApprover asks for a preview, then answers the previewed request
// with final.
type previewApprover struct {
	final    approval.Choice
	requests []approval.Request
}

func (p *previewApprover) Approve(ctx context.Context, req approval.Request) (approval.Decision, error) {
	p.requests = append(p.requests, req)
	if req.Previewable {
		return approval.Decision{Choice: approval.Preview}, nil
	}
	return approval.Decision{Choice: p.final}, nil
}

// sandboxedHarness is a harness whose shell_run is confined by a checked
// sandbox (wrap may replace it) with shell undo; it skips where there is
// no sandbox.
func sandboxedHarness(t *testing.T, srv *fakeServer, wrap func(*sandbox.Sandbox) tools.Sandbox, opts ...harnessOpt) *harness {
	t.Helper()
	var sbox tools.Sandbox
	state := t.TempDir()
	var resolved *sandbox.Sandbox
	h := newHarness(t, approval.Ask, srv, append(opts, func(o *Options) {
		resolved = sandbox.New(sandbox.Options{Workspace: o.Workspace})
		sbox = resolved
		if wrap != nil {
			sbox = wrap(resolved)
		}
		withPreviewShell(&sbox, state)(o)
	})...)
	if st := resolved.Check(context.Background()); !st.Active {
		t.Skip("no sandbox here: " + st.Why)
	}
	h.policy.SetSandbox(approval.Sandbox{Active: true})
	return h
}

func previewHarness(t *testing.T, final approval.Choice, failPreview bool) (*harness, *previewApprover) {
	t.Helper()
	srv := newFakeServer(t,
		openAIStyle("", call{"s1", "shell_run", `{"command":"sed -i s/old/new/ a.txt && echo made > c.txt && rm b.txt && echo ran"}`}),
		openAIStyle("done"),
	)
	var wrap func(*sandbox.Sandbox) tools.Sandbox
	if failPreview {
		wrap = func(s *sandbox.Sandbox) tools.Sandbox { return noOverlay{s} }
	}
	h := sandboxedHarness(t, srv, wrap)
	os.WriteFile(filepath.Join(h.ws, "a.txt"), []byte("old line\n"), 0o644)
	os.WriteFile(filepath.Join(h.ws, "b.txt"), []byte("b\n"), 0o644)
	ap := &previewApprover{final: final}
	if err := h.run(context.Background(), "update a", ap); err != nil {
		t.Fatal(err)
	}
	return h, ap
}

// noOverlay is a sandbox where the preview's namespace cannot be made.
type noOverlay struct{ *sandbox.Sandbox }

func (noOverlay) ConfinePreview(*exec.Cmd, string, string) (func(string) (string, string), error) {
	return nil, errors.New("mount the preview layer: operation not permitted")
}

func (h *harness) file(name string) string {
	b, err := os.ReadFile(filepath.Join(h.ws, name))
	if err != nil {
		return "<none>"
	}
	return string(b)
}

func TestPreviewShowsTheDiffAndDenyChangesNothing(t *testing.T) {
	h, ap := previewHarness(t, approval.Deny, false)
	if len(ap.requests) != 2 || !ap.requests[0].Previewable || !ap.requests[1].Previewed {
		t.Fatalf("requests %+v; want the call, then its preview", ap.requests)
	}
	rep := ap.requests[1].Preview
	for _, want := range []string{"-old line", "+new line", "A c.txt", "+made", "D b.txt", "ran"} {
		if !strings.Contains(rep, want) {
			t.Errorf("the preview report lacks %q:\n%s", want, rep)
		}
	}
	if !strings.Contains(ap.requests[1].Summary, "would change 3 files (1 modified, 1 created, 1 deleted)") {
		t.Errorf("summary %q", ap.requests[1].Summary)
	}
	if h.file("a.txt") != "old line\n" || h.file("b.txt") != "b\n" || h.file("c.txt") != "<none>" {
		t.Fatalf("a denied preview changed the workspace: a=%q b=%q c=%q", h.file("a.txt"), h.file("b.txt"), h.file("c.txt"))
	}
	res := h.results()
	if len(res) != 1 || res[0].Status != StatusDenied || !strings.Contains(res[0].Content, "nothing changed in the workspace") {
		t.Fatalf("results %+v", res)
	}
	if d := h.agent.Status().UndoDepth; d != 0 {
		t.Errorf("a denied preview left %d undo steps", d)
	}
}

func TestApprovedPreviewAppliesExactlyAndUndoes(t *testing.T) {
	h, ap := previewHarness(t, approval.ApproveOnce, false)
	if len(ap.requests) != 2 {
		t.Fatalf("%d requests", len(ap.requests))
	}
	if h.file("a.txt") != "new line\n" || h.file("b.txt") != "<none>" || h.file("c.txt") != "made\n" {
		t.Fatalf("after applying: a=%q b=%q c=%q", h.file("a.txt"), h.file("b.txt"), h.file("c.txt"))
	}
	res := h.results()
	if len(res) != 1 || res[0].Status != StatusOK || !res[0].Reversible || !strings.Contains(res[0].Content, "ran once in a preview") || !strings.Contains(res[0].Body, "ran") || !strings.Contains(res[0].Summary, "applied 3 files") {
		t.Fatalf("result %+v", res)
	}
	if _, err := h.agent.Undo(context.Background(), 1, false); err != nil {
		t.Fatal(err)
	}
	if h.file("a.txt") != "old line\n" || h.file("b.txt") != "b\n" || h.file("c.txt") != "<none>" {
		t.Fatalf("after undo: a=%q b=%q c=%q", h.file("a.txt"), h.file("b.txt"), h.file("c.txt"))
	}
	if _, err := h.agent.Redo(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if h.file("a.txt") != "new line\n" || h.file("c.txt") != "made\n" {
		t.Fatalf("after redo: a=%q c=%q", h.file("a.txt"), h.file("c.txt"))
	}
}

func TestPreviewFallsBackWhenTheNamespaceCannotBeMade(t *testing.T) {
	h, ap := previewHarness(t, approval.ApproveOnce, true)
	if len(ap.requests) != 2 || ap.requests[1].Previewed || !strings.Contains(ap.requests[1].Why, "the preview could not run") {
		t.Fatalf("requests %+v; want the call asked again as it is", ap.requests)
	}
	var noticed bool
	for _, e := range h.eventsOf("notice") {
		noticed = noticed || strings.Contains(e.(NoticeEvent).Text, "No preview: ")
	}
	if !noticed {
		t.Error("no notice said the preview could not run")
	}
	// Approved as it is, it ran in the workspace, once, and undoes.
	if h.file("a.txt") != "new line\n" || h.file("c.txt") != "made\n" {
		t.Fatalf("the command did not run: a=%q", h.file("a.txt"))
	}
	if _, err := h.agent.Undo(context.Background(), 1, false); err != nil || h.file("a.txt") != "old line\n" {
		t.Fatalf("undo: %v, a=%q", err, h.file("a.txt"))
	}
}

func TestPreviewRefusesToApplyOverAnEditMadeMeanwhile(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"s1", "shell_run", `{"command":"sed -i s/old/new/ a.txt && echo x > .myclaw.toml"}`}),
		openAIStyle("done"),
	)
	h := sandboxedHarness(t, srv, nil)
	os.WriteFile(filepath.Join(h.ws, "a.txt"), []byte("old line\n"), 0o644)
	var report string
	ap := approverFunc(func(ctx context.Context, req approval.Request) (approval.Decision, error) {
		if req.Previewable {
			return approval.Decision{Choice: approval.Preview}, nil
		}
		report = req.Preview
		os.WriteFile(filepath.Join(h.ws, "a.txt"), []byte("the user's edit\n"), 0o644)
		return approval.Decision{Choice: approval.ApproveOnce}, nil
	})
	if err := h.run(context.Background(), "update a", ap); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(report, "not applied: .myclaw.toml is protected") {
		t.Errorf("the report does not say the protected file is left out:\n%s", report)
	}
	if h.file("a.txt") != "the user's edit\n" || h.file(".myclaw.toml") != "<none>" {
		t.Fatalf("applied over the user's edit: a=%q toml=%q", h.file("a.txt"), h.file(".myclaw.toml"))
	}
	res := h.results()
	if len(res) != 1 || res[0].Status != StatusError || !strings.Contains(res[0].Message, "a.txt changed in the workspace after the preview") {
		t.Fatalf("result %+v", res)
	}
}

func TestPreviewByDefaultAsksOnlyAboutTheResult(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"s1", "shell_run", `{"command":"echo x > c.txt"}`}),
		openAIStyle("done"),
		openAIStyle("", call{"s2", "shell_run", `{"command":"echo x > d.txt"}`}),
		openAIStyle("done"),
	)
	h := sandboxedHarness(t, srv, nil, func(o *Options) { o.PreviewShell = true })
	ap := &previewApprover{final: approval.ApproveOnce}
	if err := h.run(context.Background(), "make c", ap); err != nil {
		t.Fatal(err)
	}
	if len(ap.requests) != 1 || !ap.requests[0].Previewed || h.file("c.txt") != "x\n" {
		t.Fatalf("requests %d (previewed %v), c=%q; want one question, about the preview's result", len(ap.requests), len(ap.requests) > 0 && ap.requests[0].Previewed, h.file("c.txt"))
	}
	// Headless, nothing is previewed: the call is denied without running.
	if err := h.run(context.Background(), "make d", approval.Headless{}); err != nil {
		t.Fatal(err)
	}
	res := h.results()
	last := res[len(res)-1]
	if last.Status != StatusDenied || strings.Contains(last.Message, "after previewing") {
		t.Fatalf("headless: %+v; want a denial without a preview", last)
	}
}
