package approval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestPolicyConcurrentUse(t *testing.T) {
	denyRm := Rule{Tool: "shell_run", Match: "rm *", Decision: "deny"}
	p := mustPolicy(t, Ask, denyRm, Rule{Tool: "github/*", Decision: "deny"})
	const workers, rounds = 8, 50
	rm := shellReq("rm -rf build")
	read := callReq(readMeta, "fs:read:a.go")

	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(4)
		go func() { // the agent: evaluate, then remember what ran
			defer wg.Done()
			for i := range rounds {
				if v := p.Evaluate(rm); v.Outcome != OutcomeDeny {
					t.Errorf("Evaluate(rm) = %+v; want deny at every level", v)
					return
				}
				if v := p.Evaluate(read); v.Outcome != OutcomeAllow {
					t.Errorf("Evaluate(fs_read) = %+v; want allow at every level", v)
					return
				}
				req := shellReq(fmt.Sprintf("tool%d sub%d --flag", w, i%10))
				p.Evaluate(req)
				p.Remember(req, Decision{Choice: ApproveSession})
				p.Remember(callReq(webMeta, fmt.Sprintf("net:http:h%d.example", i)), Decision{Choice: ApproveOnce})
			}
		}()
		go func() { // the /autonomy command
			defer wg.Done()
			for i := range rounds {
				p.SetLevel(Levels[(w+i)%len(Levels)])
				_ = p.Level()
			}
		}()
		go func() { // the catalog and the grants display
			defer wg.Done()
			for range rounds {
				if ok, _ := p.Visible(mcpMeta); ok {
					t.Errorf("Visible(github/create_issue) = true; want hidden by the deny rule")
					return
				}
				_ = p.Grants()
			}
		}()
		go func() { // a tainted fetch racing the hosts being remembered
			defer wg.Done()
			for i := range rounds {
				r := callReq(webMeta, fmt.Sprintf("net:http:h%d.example", i))
				r.Taint = &Taint{Source: "web:x"}
				// The level changes under it: deny (readonly), ask or allow
				// are all right, but never a verdict without its grounds.
				if v := p.Evaluate(r); v.By == "" || (v.Outcome != OutcomeAllow && v.Why == "") {
					t.Errorf("Evaluate(web_fetch) = %+v; want a verdict with By and Why", v)
					return
				}
			}
		}()
	}
	wg.Wait()

	// Each worker granted "toolW *" once, however often it was approved.
	if got := len(p.Grants()); got != workers {
		t.Errorf("len(Grants()) = %d; want %d", got, workers)
	}
	p.SetLevel(Ask)
	if v := p.Evaluate(shellReq("tool3 other")); v.Outcome != OutcomeAllow || v.By != "session grant" {
		t.Errorf("Evaluate(tool3 other) = %+v; want allow by session grant", v)
	}
}

func TestHeadless(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		req     Request
		wantErr error
		reason  []string
	}{
		{"asks become denials", context.Background(), callReq(writeMeta, "fs:write:a"), nil,
			[]string{"without a person to approve", "[[approval.rules]]", "--autonomy"}},
		{"the policy's reason is passed on", context.Background(),
			Request{Tool: "shell_run", Why: "auto-edit asks for shell commands after untrusted content from web:x"}, nil,
			[]string{"without a person", "(It asked because auto-edit asks for shell commands after untrusted content from web:x.)"}},
		{"cancelled", cancelled, callReq(writeMeta, "fs:write:a"), context.Canceled, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a Approver = Headless{}
			d, err := a.Approve(tt.ctx, tt.req)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Approve error = %v; want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if d.Choice != Deny || d.By != "headless" || d.Approved() {
				t.Errorf("Approve = %+v; want a denial by headless", d)
			}
			for _, w := range tt.reason {
				if !strings.Contains(d.Reason, w) {
					t.Errorf("Reason = %q; want it to contain %q", d.Reason, w)
				}
			}
		})
	}
}
