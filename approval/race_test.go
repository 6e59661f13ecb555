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

// pendingApproval is what a channel-based approver hands to the person's
// side: the request and a reply channel with room for one answer, so that
// answering never blocks, even after the agent has stopped waiting.
type pendingApproval struct {
	req   Request
	reply chan Decision
}

// chanApprover is the smallest Approver built the way the TUI builds its
// own: requests go out on a channel, decisions come back on the reply.
type chanApprover struct {
	requests chan pendingApproval
}

func (a chanApprover) Approve(ctx context.Context, req Request) (Decision, error) {
	pa := pendingApproval{req: req, reply: make(chan Decision, 1)}
	select {
	case a.requests <- pa:
	case <-ctx.Done():
		return Decision{}, ctx.Err()
	}
	select {
	case d := <-pa.reply:
		return d, nil
	case <-ctx.Done():
		return Decision{}, ctx.Err()
	}
}

func TestChannelApprover(t *testing.T) {
	type result struct {
		d   Decision
		err error
	}
	const rounds = 60
	a := chanApprover{requests: make(chan pendingApproval)}
	p := mustPolicy(t, Ask)

	var wg sync.WaitGroup
	results := make([]result, rounds)
	cancels := make([]context.CancelFunc, rounds)
	done := make([]chan struct{}, rounds)
	for i := range rounds {
		ctx, cancel := context.WithCancel(context.Background())
		cancels[i], done[i] = cancel, make(chan struct{})
		wg.Add(1)
		go func() { // one agent call waiting for a decision
			defer wg.Done()
			defer close(done[i])
			req := shellReq(fmt.Sprintf("job%d run", i))
			req.CallID = fmt.Sprint(i)
			d, err := a.Approve(ctx, req)
			results[i] = result{d, err}
			if err == nil {
				p.Remember(req, d)
			}
		}()
	}
	// The person's side answers in whatever order the requests arrive.
	for range rounds {
		pa := <-a.requests
		var i int
		fmt.Sscan(pa.req.CallID, &i)
		switch i % 3 {
		case 0:
			pa.reply <- Decision{Choice: ApproveSession, By: "user"}
		case 1:
			pa.reply <- Decision{Choice: Deny, Reason: "not now", By: "user"}
		case 2:
			cancels[i]() // Esc while the pane is open
			<-done[i]
			pa.reply <- Decision{Choice: ApproveOnce} // a late answer must not block
		}
	}
	wg.Wait()
	for _, c := range cancels {
		c()
	}

	for i, r := range results {
		switch i % 3 {
		case 0:
			if r.err != nil || r.d.Choice != ApproveSession {
				t.Errorf("call %d = %+v, %v; want approve_session", i, r.d, r.err)
			}
			if v := p.Evaluate(shellReq(fmt.Sprintf("job%d again", i))); v.Outcome != OutcomeAllow {
				t.Errorf("after the grant, Evaluate(job%d again) = %+v; want allow", i, v)
			}
		case 1:
			if r.err != nil || r.d.Choice != Deny || r.d.Reason != "not now" {
				t.Errorf("call %d = %+v, %v; want deny with the reason", i, r.d, r.err)
			}
		case 2:
			if !errors.Is(r.err, context.Canceled) {
				t.Errorf("call %d error = %v; want context.Canceled", i, r.err)
			}
			if v := p.Evaluate(shellReq(fmt.Sprintf("job%d again", i))); v.Outcome != OutcomeAsk {
				t.Errorf("after a cancelled question, Evaluate(job%d again) = %+v; want ask", i, v)
			}
		}
	}
	if got := len(p.Grants()); got != (rounds+2)/3 {
		t.Errorf("len(Grants()) = %d; want %d", got, (rounds+2)/3)
	}
}

func TestChannelApproverCancelledBeforePickup(t *testing.T) {
	a := chanApprover{requests: make(chan pendingApproval)} // nobody reads it
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := a.Approve(ctx, shellReq("ls"))
		errc <- err
	}()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Approve error = %v; want context.Canceled", err)
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
