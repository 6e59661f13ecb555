package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sashabaranov/go-openai"

	"myclaw/tools"
)

// maxStopContinues bounds how often stop hooks may make the model go on
// in one turn: a hook that always says "go on" must not loop for ever.
const maxStopContinues = 3

// maxHookResult bounds the call result a post_tool hook reads.
const maxHookResult = 64 << 10

// Marks of what hooks add to what the model reads.
const (
	hookContextMark = "[myclaw hook context] "
	hookNoteMark    = "[myclaw hook note] "
	stopHookMark    = "[myclaw stop hook] "
)

// hookCommon fills what every hook reads.
func (a *Agent) hookCommon() hookInput {
	a.mu.Lock()
	defer a.mu.Unlock()
	return hookInput{Session: a.session.Info().ID, Workspace: a.opts.Workspace}
}

// hooksOf returns the agent's hooks as they are now.
func (a *Agent) hooksOf() []Hook {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hooks
}

// StartSession runs the session_start hooks: what they add reaches the
// model with the next prompt. It returns the warnings of hooks that failed
// (nothing is gated on them).
func (a *Agent) StartSession(ctx context.Context) []string {
	source := "new"
	a.mu.Lock()
	if len(a.messages) > 0 || a.rest != nil {
		source = "resume"
	}
	a.mu.Unlock()
	return a.startSession(ctx, source)
}

// sessionSwitched runs the session_start hooks for the session /clear or
// /resume switched to; failures are shown when the next turn starts.
func (a *Agent) sessionSwitched(source string) {
	for _, w := range a.startSession(context.Background(), source) {
		a.report(nil, NoticeEvent{Text: w, Warning: true})
	}
}

func (a *Agent) startSession(ctx context.Context, source string) []string {
	hooks := stageHooks(a.hooksOf(), StageSessionStart, "")
	if len(hooks) == 0 {
		return nil
	}
	in := a.hookCommon()
	in.Source, in.Model = source, a.Model()
	var warnings []string
	for _, h := range hooks {
		r := execHook(ctx, h, in)
		a.auditHook(h, r, "", nil)
		if r.fail != "" {
			warnings = append(warnings, r.fail+"; the session goes on without it.")
			continue
		}
		if add := r.out.added(); add != "" {
			a.addNote("session_start hook: " + add)
		}
	}
	return warnings
}

// addNote tells the model note with the next prompt, and keeps it in the
// transcript so a resumed session still does.
func (a *Agent) addNote(note string) {
	a.mu.Lock()
	a.notes = append(a.notes, note)
	s := a.session
	a.mu.Unlock()
	if err := s.Append("note", note); err != nil {
		a.opts.Logf("persist a note: %v", err)
	}
}

// userPromptHooks runs the user_prompt hooks before prompt is sent. It
// returns the context they add, or an error when one blocked the prompt or
// failed (a prompt guard that cannot answer blocks).
func (t *turn) userPromptHooks(prompt string) (string, error) {
	a := t.a
	in := a.hookCommon()
	in.Prompt = prompt
	var added []string
	for _, h := range stageHooks(t.hooks, StageUserPrompt, "") {
		r := execHook(t.ctx, h, in)
		a.auditHook(h, r, "", nil)
		switch r.decision() {
		case "failed":
			if t.ctx.Err() != nil {
				return "", t.ctx.Err()
			}
			return "", &UserError{Msg: r.fail + ", so the prompt was not sent.", Hint: "Fix the hook " + hookName(h) + ", or remove it from [[hooks.user_prompt]]."}
		case "deny":
			why := r.reason()
			if why == "" {
				why = "no reason given"
			}
			return "", &UserError{Msg: "A user_prompt hook blocked this prompt: " + why, Hint: "The prompt was not sent. Hook: " + hookName(h) + "."}
		}
		if add := r.out.added(); add != "" {
			added = append(added, add)
		}
	}
	if len(added) == 0 {
		return "", nil
	}
	return hookContextMark + strings.Join(added, "\n"+hookContextMark), nil
}

// withText appends text to the user message m.
func withText(m openai.ChatCompletionMessage, text string) openai.ChatCompletionMessage {
	if text == "" {
		return m
	}
	if len(m.MultiContent) > 0 {
		m.MultiContent = append([]openai.ChatMessagePart(nil), m.MultiContent...)
		m.MultiContent[0].Text += "\n\n" + text
		return m
	}
	m.Content += "\n\n" + text
	return m
}

// postToolHooks runs the post_tool hooks watching the call: they read the
// call and what the model reads of it, and may add a note for the model.
// A hook that fails is reported; the result stands.
func (t *turn) postToolHooks(p *passage, status, content string) string {
	hooks := stageHooks(t.hooks, StagePostTool, p.meta.Name)
	if len(hooks) == 0 {
		return content
	}
	in := t.a.hookCommon()
	in.CallID, in.Tool, in.Args, in.Status = p.call.ID, p.meta.Name, json.RawMessage(p.args), status
	in.Result = tools.CutUTF8(content, maxHookResult)
	for _, h := range hooks {
		r := execHook(t.ctx, h, in)
		t.a.auditHook(h, r, p.call.ID, p.args)
		if r.fail != "" {
			t.emit(NoticeEvent{Text: r.fail + "; the call's result stands.", Warning: true})
			continue
		}
		if add := r.out.added(); add != "" {
			content += "\n\n" + hookNoteMark + add
			t.emit(NoticeEvent{Text: "A post_tool hook added a note for the model: " + add})
		}
	}
	return content
}

// stopHooks runs the stop hooks when the model ends its turn. It reports
// whether one asked the model to go on (deny: "do not stop"), having
// added the reason as a prompt. A hook that fails lets the turn end.
func (t *turn) stopHooks() (bool, error) {
	hooks := stageHooks(t.hooks, StageStop, "")
	if len(hooks) == 0 {
		return false, nil
	}
	a := t.a
	in := a.hookCommon()
	msgs := a.Messages()
	if n := len(msgs); n > 0 && msgs[n-1].Role == openai.ChatMessageRoleAssistant {
		in.Answer = msgs[n-1].Content
	}
	continued := t.continues
	in.Continued = &continued
	for _, h := range hooks {
		r := execHook(t.ctx, h, in)
		a.auditHook(h, r, "", nil)
		switch r.decision() {
		case "failed":
			if t.ctx.Err() != nil {
				return false, t.ctx.Err()
			}
			t.emit(NoticeEvent{Text: r.fail + ", so the turn ends.", Warning: true})
			return false, nil
		case "deny":
			why := r.reason()
			if why == "" {
				why = "A stop hook asks you to go on."
			}
			if t.continues >= maxStopContinues {
				t.emit(NoticeEvent{Text: fmt.Sprintf("A stop hook asked the model to go on again (%s); it already did %d times this turn, so the turn ends.", why, maxStopContinues), Warning: true})
				return false, nil
			}
			t.continues++
			t.emit(NoticeEvent{Text: "A stop hook asked the model to go on: " + why})
			m := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: stopHookMark + "Do not stop yet: " + why}
			return true, a.appendMessage(m)
		}
	}
	return false, nil
}

// preCompactHooks runs the pre_compact hooks before a compaction. What
// they add is given to the summariser as what to keep. Nothing is gated
// on them: a failure is reported (on emit during a turn, else with the
// next turn) and the compaction goes on.
func (a *Agent) preCompactHooks(ctx context.Context, auto bool, focus string, replaced int, emit func(Event)) string {
	hooks := stageHooks(a.hooksOf(), StagePreCompact, "")
	if len(hooks) == 0 {
		return ""
	}
	in := a.hookCommon()
	in.Trigger, in.Focus, in.Messages = "manual", focus, replaced
	if auto {
		in.Trigger = "auto"
	}
	var added []string
	for _, h := range hooks {
		r := execHook(ctx, h, in)
		a.auditHook(h, r, "", nil)
		if r.fail != "" {
			a.report(emit, NoticeEvent{Text: r.fail + "; the compaction went on without it.", Warning: true})
			continue
		}
		if add := r.out.added(); add != "" {
			added = append(added, add)
		}
	}
	return strings.Join(added, "\n")
}

// report emits ev during a turn, or keeps it for the start of the next.
func (a *Agent) report(emit func(Event), ev NoticeEvent) {
	if emit != nil {
		emit(ev)
		return
	}
	a.mu.Lock()
	a.pending = append(a.pending, ev)
	a.mu.Unlock()
}

// notify runs the notification hooks in the background: myclaw wants the
// user's attention (kind "approval": a call waits for a decision). The
// turn waits for them before it ends; a failure is reported.
func (t *turn) notify(kind, message string) {
	hooks := stageHooks(t.hooks, StageNotification, "")
	if len(hooks) == 0 {
		return
	}
	in := t.a.hookCommon()
	in.Kind, in.Message = kind, message
	t.notifying.Add(1)
	go func() {
		defer t.notifying.Done()
		for _, h := range hooks {
			r := execHook(context.WithoutCancel(t.ctx), h, in)
			t.a.auditHook(h, r, "", nil)
			if r.fail != "" {
				t.emit(NoticeEvent{Text: r.fail + ".", Warning: true})
			}
		}
	}()
}

// takePending returns the hook reports kept since the last turn.
func (a *Agent) takePending() []NoticeEvent {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.pending
	a.pending = nil
	return p
}
