package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"myclaw/approval"
	"myclaw/sandbox"
)

// devServer is a loopback HTTP server standing for the user's own.
func devServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "healthy") })}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// hostTurn runs one confined command that asks myclaw's proxy for addr,
// with approver answering, under level.
func hostTurn(t *testing.T, level approval.Level, addr string, approver approval.Approver) *harness {
	t.Helper()
	line := fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && printf 'GET http://%s/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' >&3 && cat <&3`, sandbox.ProxyPort, addr)
	args, _ := json.Marshal(line)
	srv := newFakeServer(t,
		openAIStyle("", call{"t1", "shell_run", `{"command":` + string(args) + `}`}),
		openAIStyle("done"),
	)
	var sb *sandbox.Sandbox
	h := newHarness(t, level, srv, withSandbox(&sb, ""))
	st := sb.Check(context.Background())
	if !st.Active {
		t.Skip("no sandbox here: " + st.Why)
	}
	h.policy.SetSandbox(approval.Sandbox{Active: true, HostProxy: true})
	if err := h.run(context.Background(), "check the dev server", approver); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestConfinedCommandAsksOnceForEachNewHostAndRunsWhenAllowed(t *testing.T) {
	addr := devServer(t)
	ap := approveAll()
	h := hostTurn(t, approval.Ask, addr, ap)
	var hosts []approval.Request
	for _, r := range ap.requests {
		if r.Tool == approval.NetworkTool {
			hosts = append(hosts, r)
		}
	}
	if len(hosts) != 1 || hosts[0].Capability != "net:connect:"+addr || !strings.Contains(hosts[0].Summary, "wants to reach "+addr) {
		t.Fatalf("host requests %+v; want one naming %s", hosts, addr)
	}
	res := h.results()
	if len(res) != 1 || !strings.Contains(res[0].Content, "healthy") || !strings.Contains(res[0].Content, "reached through myclaw's proxy: "+addr) {
		t.Fatalf("results %+v; want the dev server's answer and the host named", res)
	}
}

func TestConfinedCommandCannotReachAHostNobodyAllowed(t *testing.T) {
	addr := devServer(t)
	deny := &recordingApprover{d: approval.Decision{Choice: approval.Deny, By: "headless"}}
	// full runs the command without asking; the host still needs a yes
	// from a rule, a grant or a person under ask and auto-edit.
	h := hostTurn(t, approval.AutoEdit, addr, approverFunc(func(_ context.Context, req approval.Request) (approval.Decision, error) {
		if req.Tool == approval.NetworkTool {
			return deny.Approve(context.Background(), req)
		}
		return approval.Decision{Choice: approval.ApproveOnce}, nil
	}))
	res := h.results()
	if len(res) != 1 || strings.Contains(res[0].Content, "healthy") {
		t.Fatalf("the command reached a host nobody allowed: %+v", res)
	}
	if !strings.Contains(res[0].Content, "myclaw's proxy refused "+addr) || !strings.Contains(res[0].Content, `tool = \"network\"`) {
		t.Errorf("the model is not told which host was refused and how to allow it: %s", res[0].Content)
	}
}

// A question about a host ends with the command that asked: the person is
// not left answering for a command that is gone.
func TestHostQuestionEndsWithItsCommand(t *testing.T) {
	addr := devServer(t)
	asked := make(chan struct{})
	var gone error
	approver := approverFunc(func(ctx context.Context, req approval.Request) (approval.Decision, error) {
		if req.Tool != approval.NetworkTool {
			return approval.Decision{Choice: approval.ApproveOnce}, nil
		}
		close(asked)
		<-ctx.Done() // nobody answers
		gone = ctx.Err()
		return approval.Decision{}, ctx.Err()
	})
	// The command gives up on the proxy after a moment, as a client
	// with a timeout does.
	line := fmt.Sprintf(`(exec 3<>/dev/tcp/127.0.0.1/%d && printf 'GET http://%s/ HTTP/1.1\r\nHost: x\r\n\r\n' >&3 && cat <&3) & sleep 1; kill %%1 2>/dev/null; echo gave up`, sandbox.ProxyPort, addr)
	args, _ := json.Marshal(line)
	srv := newFakeServer(t,
		openAIStyle("", call{"t1", "shell_run", `{"command":` + string(args) + `}`}),
		openAIStyle("done"),
	)
	var sb *sandbox.Sandbox
	h := newHarness(t, approval.Ask, srv, withSandbox(&sb, ""))
	if st := sb.Check(context.Background()); !st.Active {
		t.Skip("no sandbox here: " + st.Why)
	}
	h.policy.SetSandbox(approval.Sandbox{Active: true, HostProxy: true})
	if err := h.run(context.Background(), "check", approver); err != nil {
		t.Fatal(err)
	}
	<-asked
	if gone == nil {
		t.Fatal("the question about the host outlived its command")
	}
	res := h.results()
	if len(res) != 1 || !strings.Contains(res[0].Content, "gave up") || !strings.Contains(res[0].Content, "before anyone answered") {
		t.Fatalf("results %+v; want the command's end and the unanswered host named", res)
	}
}
