package acp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"myclaw/ui"
)

// command is a slash command the editor offers: myclaw's own that make
// sense without the TUI, then the custom prompt files.
type command struct {
	name, desc, hint string
	// run does the command; nil for a custom command, whose prompt is sent
	// as a turn.
	run    func(ss *session, ctx context.Context, args string) (string, error)
	custom *ui.CustomCommand
}

// builtinCommands are offered in every session.
var builtinCommands = []command{
	{name: "undo", desc: "Revert the newest N reversible calls of this session", hint: "N", run: func(ss *session, ctx context.Context, args string) (string, error) {
		n, err := count(args)
		if err != nil {
			return "", err
		}
		return ss.es.Agent.Undo(ctx, n, false)
	}},
	{name: "redo", desc: "Re-apply the newest N undone calls", hint: "N", run: func(ss *session, ctx context.Context, args string) (string, error) {
		n, err := count(args)
		if err != nil {
			return "", err
		}
		return ss.es.Agent.Redo(ctx, n)
	}},
	{name: "compact", desc: "Summarise the conversation so far to free the context window", hint: "focus", run: func(ss *session, ctx context.Context, args string) (string, error) {
		ev, err := ss.es.Agent.Compact(ctx, strings.TrimSpace(args))
		if err != nil {
			if ctx.Err() != nil {
				return "", errors.New("compaction cancelled: nothing was compacted")
			}
			return "", err
		}
		return fmt.Sprintf("Compacted %d earlier messages into a summary (~%d tokens); /undo brings them back.", ev.Replaced, ev.Tokens), nil
	}},
	{name: "diff", desc: "What this session changed (or the change of call #N), as a unified diff", hint: "N", run: func(ss *session, _ context.Context, args string) (string, error) {
		seq := 0
		if a := strings.TrimPrefix(strings.TrimSpace(args), "#"); a != "" {
			n, err := strconv.Atoi(a)
			if err != nil || n < 1 {
				return "", fmt.Errorf("/diff takes a call number, not %q", args)
			}
			seq = n
		}
		d, err := ss.es.Agent.Diff(seq)
		if err != nil {
			return "", err
		}
		if d == "" {
			return "No changes in place: nothing this session wrote is applied now.", nil
		}
		return fence("diff", d), nil
	}},
}

// count reads the optional count of /undo and /redo.
func count(args string) (int, error) {
	a := strings.TrimSpace(args)
	if a == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(a)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("want a positive count, not %q", a)
	}
	return n, nil
}

// commands lists the session's slash commands; a custom command cannot
// shadow a builtin one.
func (ss *session) commands() []command {
	out := append([]command(nil), builtinCommands...)
	have := map[string]bool{}
	for _, c := range out {
		have[c.name] = true
	}
	for _, c := range ss.es.Commands() {
		if have[c.Name] {
			continue
		}
		c := c
		out = append(out, command{name: c.Name, desc: c.Desc, hint: c.Hint, custom: &c})
	}
	return out
}

// announceCommands tells the editor the slash commands.
func (ss *session) announceCommands() {
	var list []acpsdk.AvailableCommand
	for _, c := range ss.commands() {
		ac := acpsdk.AvailableCommand{Name: c.name, Description: c.desc}
		if c.hint != "" {
			ac.Input = &acpsdk.AvailableCommandInput{Unstructured: &acpsdk.UnstructuredCommandInput{Hint: c.hint}}
		}
		list = append(list, ac)
	}
	ss.send(acpsdk.SessionUpdate{AvailableCommandsUpdate: &acpsdk.SessionAvailableCommandsUpdate{AvailableCommands: list}})
}

// slashCommand splits "/name args".
func slashCommand(text string) (name, args string, ok bool) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "/") || len(t) < 2 {
		return "", "", false
	}
	name, args, _ = strings.Cut(t[1:], " ")
	return name, args, name != "" && !strings.ContainsAny(name, "/\n\t")
}

func (ss *session) findCommand(name string) *command {
	for _, c := range ss.commands() {
		if c.name == name {
			return &c
		}
	}
	return nil
}

// runCommand runs a slash command as a prompt turn; a custom one sends
// its prompt to the model.
func (ss *session) runCommand(ctx context.Context, c *command, args string) (acpsdk.PromptResponse, error) {
	if c.custom != nil {
		return ss.run(ctx, c.custom.Expand(args), nil)
	}
	out, err := c.run(ss, ctx, args)
	if strings.TrimSpace(out) != "" {
		ss.text(out + "\n")
	}
	if err != nil {
		if ctx.Err() != nil {
			return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonCancelled}, nil
		}
		ss.text(fmt.Sprintf("/%s failed: %v\n", c.name, err))
	}
	return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonEndTurn}, nil
}

// fence quotes s as a Markdown code block that s cannot close.
func fence(lang, s string) string {
	f := "```"
	for strings.Contains(s, f) {
		f += "`"
	}
	return f + lang + "\n" + strings.TrimRight(s, "\n") + "\n" + f
}
