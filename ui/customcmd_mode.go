package ui

import (
	"fmt"

	"myclaw/approval"
)

// A command file may say which level its prompt runs at (mode: plan or
// mode: readonly). It can only narrow what the model may do: a file in a
// workspace is the workspace's text, so no mode raises the level, and a
// plan command at readonly is refused rather than let commands run that
// readonly hides. The level the session had comes back when the command
// is over: for plan, when its plan is answered.

// parseMode reads the front matter's mode.
func parseMode(v string) (approval.Level, error) {
	switch l := approval.Level(v); l {
	case approval.Plan, approval.ReadOnly:
		return l, nil
	}
	return "", fmt.Errorf("mode %q is not allowed: a command's mode may be plan or readonly, which narrow what the model may do; no command can widen it", v)
}

// modeName is how a mode is named beside the command.
func modeName(l approval.Level) string {
	if l == approval.Plan {
		return "plan mode"
	}
	return string(l)
}

// ModeFor decides the level the command's prompt runs at when the session
// is at cur: the command's mode, and whether that is a switch (false when
// the command has none or cur is it already). A mode that would widen cur
// is an error saying what to do.
func (c CustomCommand) ModeFor(cur approval.Level) (approval.Level, bool, error) {
	switch {
	case c.Mode == "" || c.Mode == cur:
		return cur, false, nil
	case c.Mode == approval.ReadOnly:
		return approval.ReadOnly, true, nil
	case c.Mode == approval.Plan && (cur == approval.Ask || cur == approval.AutoEdit || cur == approval.Full):
		return approval.Plan, true, nil
	case c.Mode == approval.Plan:
		return cur, false, fmt.Errorf("/%s runs in plan mode, where read-only commands run, and the level is %s, where none do: a command never widens the level. Switch to plan mode (/plan) or to ask first, then run it again", c.Name, cur)
	}
	return cur, false, fmt.Errorf("/%s has the mode %q, which no command may have", c.Name, c.Mode)
}

// modeHold is a level a command set for its prompt, and the one to go
// back to.
type modeHold struct {
	cmd  string
	mode approval.Level
	prev approval.Level
	// from is, when prev is plan, the level plan mode was entered from:
	// going back to plan mode keeps it.
	from approval.Level
}

// planFromer is a backend that says which level plan mode was entered
// from (*agent.Agent).
type planFromer interface{ PlanFrom() approval.Level }

// enterCommandMode switches to the level the command's mode asks for
// before its prompt is sent, and returns the note saying so ("" when the
// level stays). A mode that would widen the level is refused: the line
// goes back to the input, with an error, and ok is false. The backend is
// set here, not in a Cmd, so the turn that follows cannot start first.
func (m Model) enterCommandMode(cc CustomCommand, line string) (Model, string, bool) {
	cur := m.status.level
	level, change, err := cc.ModeFor(cur)
	if err != nil {
		m = m.addBlock(userBlock(line))
		m = m.addBlock(errorBlock(err.Error(), "the mode comes from "+cc.Path))
		m.input.setValue(line)
		return m, "", false
	}
	if !change {
		return m, "", true
	}
	if m.cmdMode == nil {
		h := &modeHold{prev: cur}
		if pf, ok := m.backend.(planFromer); ok && cur == approval.Plan {
			h.from = pf.PlanFrom()
		}
		m.cmdMode = h
	}
	m.cmdMode.cmd, m.cmdMode.mode = "/"+cc.Name, level
	m.backend.SetAutonomy(level)
	m.status.level = level
	m.welcome.setLevel(level)
	if level == approval.Plan {
		return m, fmt.Sprintf("/%s runs in plan mode, as its file says; back to %s once you answer its plan (accepting goes on at the level you choose), or when it ends without one", cc.Name, m.cmdMode.prev), true
	}
	return m, fmt.Sprintf("/%s runs at %s, as its file says: nothing changes; back to %s when it ends", cc.Name, level, m.cmdMode.prev), true
}

// settleCommandMode runs when a turn ends: the level a command set goes
// back unless its plan waits for an answer. A level the person chose
// meanwhile is theirs: nothing goes back.
func (m Model) settleCommandMode(cancelled bool) Model {
	h := m.cmdMode
	switch {
	case h == nil:
		return m
	case m.status.level != h.mode:
		m.cmdMode = nil
		return m
	case !cancelled && h.mode == approval.Plan && m.review != nil && !m.review.aside:
		return m
	}
	return m.restoreCommandMode()
}

// restoreCommandMode goes back to the level the session had before the
// command switched it.
func (m Model) restoreCommandMode() Model {
	h := m.cmdMode
	if h == nil {
		return m
	}
	m.cmdMode = nil
	if m.status.level != h.mode {
		return m
	}
	if h.prev == approval.Plan && h.from != "" {
		m.backend.SetAutonomy(h.from)
	}
	m.backend.SetAutonomy(h.prev)
	m.status.level = h.prev
	m.welcome.setLevel(h.prev)
	m.tr.add(noticeBlock(fmt.Sprintf("%s is over: back to %s (%s)", h.cmd, h.prev, levelHelp[h.prev])))
	return m
}
