package acp

import (
	"fmt"

	acpsdk "github.com/coder/acp-go-sdk"

	"myclaw/approval"
	"myclaw/ui"
)

// modeHold is the level a custom command set for its prompt (mode: plan
// or readonly), and the one to go back to. As in the terminal, a command
// only narrows the level, and the level comes back when the command is
// over: for plan, when its plan is answered (switching the mode accepts
// it, as ever; a prompt in Plan mode revises it; a cancel drops it).
type modeHold struct {
	cmd  string
	mode approval.Level
	prev approval.Level
	// from is, when prev is plan, the level plan mode was entered from.
	from approval.Level
}

// enterMode switches to the level the command's mode asks for, telling
// the editor; a mode that would widen the level is refused, saying why,
// and ok is false.
func (ss *session) enterMode(c *ui.CustomCommand) bool {
	ag := ss.es.Agent
	ss.mu.Lock()
	cur := ag.Autonomy()
	level, change, err := c.ModeFor(cur)
	if err != nil {
		ss.mu.Unlock()
		ss.text(fmt.Sprintf("%v (the mode comes from %s). Nothing was sent to the model.\n", err, c.Path))
		return false
	}
	if !change {
		ss.mu.Unlock()
		return true
	}
	if ss.hold == nil {
		ss.hold = &modeHold{prev: cur}
		if cur == approval.Plan {
			ss.hold.from = ag.PlanFrom()
		}
	}
	ss.hold.cmd, ss.hold.mode = "/"+c.Name, level
	prev := ss.hold.prev
	if level == approval.Plan {
		ss.proposal = nil // a plan of earlier, left unaccepted, is not this command's
	}
	ag.SetAutonomy(level)
	ss.mu.Unlock()
	ss.es.Logf("acp: session %s: /%s runs at %s", ss.id, c.Name, level)
	ss.send(acpsdk.SessionUpdate{CurrentModeUpdate: &acpsdk.SessionCurrentModeUpdate{CurrentModeId: acpsdk.SessionModeId(level)}})
	if level == approval.Plan {
		ss.text(fmt.Sprintf("/%s runs in Plan mode, as its command file says. Back to %s once its plan is answered, or when it ends without one.\n\n", c.Name, modeTitle(prev)))
	} else {
		ss.text(fmt.Sprintf("/%s runs in %s mode, as its command file says. Back to %s when it ends.\n\n", c.Name, modeTitle(level), modeTitle(prev)))
	}
	return true
}

// settleMode runs when a prompt ends: the level a command set goes back,
// unless its plan waits for an answer or the turn waits for a reason. A
// level chosen meanwhile stays.
func (ss *session) settleMode(cancelled bool) {
	ag := ss.es.Agent
	ss.mu.Lock()
	h := ss.hold
	switch {
	case h == nil:
		ss.mu.Unlock()
		return
	case ag.Autonomy() != h.mode:
		ss.hold = nil
		ss.mu.Unlock()
		return
	case ss.stopped:
		ss.mu.Unlock()
		return
	case !cancelled && h.mode == approval.Plan && ss.proposal != nil:
		ss.mu.Unlock()
		return
	}
	ss.hold = nil
	if h.prev == approval.Plan && h.from != "" {
		ag.SetAutonomy(h.from)
	}
	ag.SetAutonomy(h.prev)
	ss.mu.Unlock()
	ss.es.Logf("acp: session %s: %s is over: autonomy %s", ss.id, h.cmd, h.prev)
	ss.send(acpsdk.SessionUpdate{CurrentModeUpdate: &acpsdk.SessionCurrentModeUpdate{CurrentModeId: acpsdk.SessionModeId(h.prev)}})
	ss.text(fmt.Sprintf("\n%s is over: back to %s mode.\n", h.cmd, modeTitle(h.prev)))
}

// modeTitle is a level as the editor names the mode.
func modeTitle(l approval.Level) string {
	if m, ok := findMode(acpsdk.SessionModeId(l)); ok {
		return m.name
	}
	return string(l)
}
