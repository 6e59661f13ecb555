package builtin

import (
	"context"
	"errors"
	"myclaw/tools"
	"os/exec"
	"strings"
	"testing"
)

// fakeSandbox records what Confine was asked and reports a fixed note; it
// leaves the command as it is.
type fakeSandbox struct {
	network  []bool
	stderr   string
	note     string
	err      error
	finished int
}

func (f *fakeSandbox) Confine(cmd *exec.Cmd, network bool) (func(string) (string, string), error) {
	if f.err != nil {
		return nil, f.err
	}
	f.network = append(f.network, network)
	return func(stderr string) (string, string) {
		f.finished++
		f.stderr = stderr
		return "sandbox: test", f.note
	}, nil
}

func TestShellRunConfinedByContext(t *testing.T) {
	sb := &fakeSandbox{note: "permission_denied: the sandbox blocked a write to /etc/x (Permission denied). more"}
	tool, _ := shellTestTool(t, ShellOptions{Sandbox: sb})
	ctx := tools.WithConfinement(context.Background(), tools.Confinement{Sandboxed: true, Network: true})
	res, err := tool.Execute(ctx, shellArgsJSON(t, "echo oops >&2; exit 1", 0))
	if err != nil {
		t.Fatal(err)
	}
	out := res.Output.(shellOutput)
	if len(sb.network) != 1 || !sb.network[0] || sb.finished != 1 {
		t.Fatalf("Confine calls %v, finished %d; want one with network, finished once", sb.network, sb.finished)
	}
	if sb.stderr != "oops\n" {
		t.Errorf("finish got stderr %q; want the command's", sb.stderr)
	}
	if out.Sandbox != "sandbox: test" || !strings.HasPrefix(out.Note, "permission_denied: the sandbox blocked a write to /etc/x") {
		t.Errorf("sandbox %q, note %q; want the confinement and the denial first", out.Sandbox, out.Note)
	}
	if !strings.HasSuffix(res.Summary, " · the sandbox blocked a write to /etc/x") {
		t.Errorf("summary %q; want the denial on the card", res.Summary)
	}

	// Without a confinement in the context the command runs as before.
	res, err = tool.Execute(context.Background(), shellArgsJSON(t, "true", 0))
	if err != nil || len(sb.network) != 1 || res.Output.(shellOutput).Sandbox != "" {
		t.Errorf("an unconfined call went through the sandbox (err %v, calls %v)", err, sb.network)
	}
}

func TestShellRunConfinedFailsClosed(t *testing.T) {
	ctx := tools.WithConfinement(context.Background(), tools.Confinement{Sandboxed: true})
	for name, opts := range map[string]ShellOptions{
		"no sandbox":     {},
		"sandbox failed": {Sandbox: &fakeSandbox{err: errors.New("boom")}},
	} {
		tool, dir := shellTestTool(t, opts)
		_, err := tool.Execute(ctx, shellArgsJSON(t, "touch ran", 0))
		var te *tools.Error
		if !errors.As(err, &te) || te.Kind != tools.KindUnsupported {
			t.Errorf("%s: err = %v; want an unsupported error", name, err)
		}
		if _, serr := exec.Command("test", "-e", dir+"/ran").Output(); serr == nil {
			t.Errorf("%s: the command ran unconfined", name)
		}
	}
}
