package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"myclaw/approval"
	"myclaw/tools"
)

// hostGate decides, for one confined shell call, each host its command
// asks myclaw's proxy for: through the same gate as a call (rules, grants,
// the level, hooks, then a person), each host on a passage of its own,
// audited the same way. Asks are put one at a time; once the turn is over
// (a background job that goes on), nobody can be asked, and only rules
// and grants can allow a host.
func (t *turn) hostGate(call Call, args json.RawMessage) tools.HostGate {
	var mu sync.Mutex
	var line struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(args, &line) // the registry validated args; no command, no host
	return func(ctx context.Context, hostport string) error {
		mu.Lock()
		defer mu.Unlock()
		p := &passage{call: call, req: approval.NetworkRequest(call.ID, line.Command, hostport)}
		defer t.audit(p)
		t.judge(p)
		switch v := p.verdict; v.Outcome {
		case approval.OutcomeAllow:
			p.decided(p.req, v)
			return nil
		case approval.OutcomeDeny:
			p.decided(p.req, v)
			return errors.New("denied by " + v.By)
		}
		if t.ctx.Err() != nil || ctx.Err() != nil {
			return errors.New("no one could be asked: the turn has ended")
		}
		if strings.HasPrefix(p.verdict.By, "rule: ") {
			p.req.Why = p.verdict.Why
		}
		// The question ends with the command: a pane must not go on
		// asking about a host for a command that is gone.
		askCtx, cancel := context.WithCancel(t.ctx)
		defer cancel()
		defer context.AfterFunc(ctx, cancel)()
		dec, ok := t.putIn(askCtx, p, p.req)
		switch {
		case ok:
		case askCtx.Err() != nil:
			return errors.New("the command ended, or the turn did, before anyone answered")
		case dec.By == "headless":
			return fmt.Errorf("nobody to ask in a headless run; a rule allows it: [[approval.rules]] tool = %q, match = %q, decision = \"allow\"", approval.NetworkTool, p.req.Capability)
		case dec.Reason != "":
			return errors.New("the user denied it: " + dec.Reason)
		default:
			return errors.New("the user denied it")
		}
		t.settle(p)
		return nil
	}
}
