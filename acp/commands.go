package acp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"myclaw/tools/mcp"
	"myclaw/ui"
)

// command is a slash command the editor offers: myclaw's own that make
// sense without the TUI, then the custom prompt files, then the prompts of
// the running MCP servers (/SERVER:PROMPT, as the TUI names them).
type command struct {
	name, desc, hint string
	// run does the command; nil for a custom command or an MCP prompt,
	// whose prompt is sent as a turn.
	run    func(ss *session, ctx context.Context, args string) (string, error)
	custom *ui.CustomCommand
	prompt *mcp.Prompt
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
// shadow a builtin one, and an MCP prompt neither (as in the TUI).
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
		desc := c.Desc
		if c.Mode != "" {
			desc += " (runs in " + modeTitle(c.Mode) + " mode)"
		}
		have[c.Name] = true
		out = append(out, command{name: c.Name, desc: desc, hint: c.Hint, custom: &c})
	}
	for _, p := range ss.mcpPrompts() {
		if have[p.Command()] {
			continue
		}
		p := p
		have[p.Command()] = true
		out = append(out, command{name: p.Command(), desc: ui.MCPPromptDesc(p), hint: p.Usage(), prompt: &p})
	}
	return out
}

// mcpPrompts are the prompts of the running MCP servers.
func (ss *session) mcpPrompts() []mcp.Prompt {
	var out []mcp.Prompt
	for _, s := range ss.es.MCPServers() {
		if s.State == mcp.StateRunning {
			out = append(out, s.Prompts...)
		}
	}
	return out
}

// announceCommands tells the editor the slash commands, when they are not
// what it was last told. It reads them as they stand when it runs, one
// call at a time, so the last update sent is the newest list.
func (ss *session) announceCommands() {
	ss.announceMu.Lock()
	defer ss.announceMu.Unlock()
	ss.mu.Lock()
	closed := ss.closed
	ss.mu.Unlock()
	if closed {
		return
	}
	var list []acpsdk.AvailableCommand
	var sig strings.Builder
	for _, c := range ss.commands() {
		ac := acpsdk.AvailableCommand{Name: c.name, Description: c.desc}
		if c.hint != "" {
			ac.Input = &acpsdk.AvailableCommandInput{Unstructured: &acpsdk.UnstructuredCommandInput{Hint: c.hint}}
		}
		list = append(list, ac)
		fmt.Fprintf(&sig, "%q %q %q\n", c.name, c.desc, c.hint)
	}
	if ss.announced != nil && *ss.announced == sig.String() {
		return
	}
	s := sig.String()
	ss.announced = &s
	ss.send(acpsdk.SessionUpdate{AvailableCommandsUpdate: &acpsdk.SessionAvailableCommandsUpdate{AvailableCommands: list}})
}

// mcpChanged announces the commands again after an MCP server changed
// (started, stopped, listed its prompts anew). It runs apart from the
// server's notifier: reading the servers waits while they are closed.
func (ss *session) mcpChanged() { go ss.announceCommands() }

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
// its prompt to the model (at the level its mode says), an MCP prompt the
// server's messages, as the TUI does.
func (ss *session) runCommand(ctx context.Context, c *command, line, args string) (acpsdk.PromptResponse, error) {
	if c.custom != nil {
		if !ss.enterMode(c.custom) {
			return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonEndTurn}, nil
		}
		return ss.run(ctx, c.custom.Expand(args), nil)
	}
	if p := c.prompt; p != nil {
		msg, note, err := ui.MCPPromptMessage(ctx, ss.es, p.Server, p.Name, line)
		if err != nil {
			if ctx.Err() != nil {
				return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonCancelled}, nil
			}
			ss.text(fmt.Sprintf("%v\nNothing was sent to the model.\n", err))
			return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonEndTurn}, nil
		}
		ss.text(strings.ToUpper(note[:1]) + note[1:] + ".\n\n")
		return ss.run(ctx, msg, nil)
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
