package ui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/approval"
	"myclaw/history"
	"myclaw/internal/suggest"
)

// command is one slash command.
type command struct {
	name string
	args string
	desc string
	// busy says the command may run while a turn is running; the others
	// change what the turn works with and wait for it.
	busy bool
	// run does it (see handlers).
	run handler
}

func (c command) usage() string {
	if c.args == "" {
		return "/" + c.name
	}
	return "/" + c.name + " " + c.args
}

var commands = []command{
	{name: "help", args: "", desc: "keys and commands", busy: true},
	{name: "undo", args: "[N] [--force]", desc: "revert the newest N reversible calls", busy: false},
	{name: "redo", args: "[N]", desc: "re-apply the newest N undone calls", busy: false},
	{name: "history", args: "", desc: "list the calls of this session", busy: true},
	{name: "diff", args: "[N]", desc: "what this session changed, one diff per file; call #N alone", busy: true},
	{name: "tools", args: "[name]", desc: "the tool catalog: what each tool may do; one tool in full", busy: true},
	{name: "autonomy", args: "[level]", desc: "show or set what runs without asking", busy: false},
	{name: "plan", args: "[off]", desc: "plan mode: the model explores read-only and submits a plan to accept", busy: false},
	{name: "model", args: "[name [--save]]", desc: "show or switch the model; --save: as the default", busy: false},
	{name: "clear", args: "", desc: "start a new conversation", busy: false},
	{name: "sessions", args: "[ID]", desc: "the sessions of this workspace: pick one to continue it", busy: false},
	{name: "resume", args: "[ID]", desc: "continue another session of this workspace", busy: false},
	{name: "fork", args: "[N]", desc: "go on in a copy of this session (N: before prompt N)", busy: false},
	{name: "mcp", args: "[CMD] [NAME]", desc: "MCP servers; NAME: one, with its log; CMD: restart, resources, login, logout", busy: true},
	{name: "jobs", args: "[ID | stop ID]", desc: "background shell jobs: list, follow one's output, stop", busy: true},
	{name: "agents", args: "[ID | stop ID]", desc: "sub-agents: list, follow one's transcript, cancel", busy: true},
	{name: "init", args: "", desc: "draft AGENTS.md: the model explores the repository", busy: false},
	{name: "goal", args: "TEXT --check CMD", desc: "work toward TEXT until the check CMD passes, sandboxed", busy: false},
	{name: "cost", args: "", desc: "tokens and cost of this session so far", busy: true},
	{name: "context", args: "", desc: "what the prompt holds: instructions, tools, free room", busy: true},
	{name: "compact", args: "[focus]", desc: "summarise the older conversation to free room", busy: false},
	{name: "uncompact", args: "", desc: "put back what the last compaction replaced", busy: false},
	{name: "keep", args: "", desc: "pin your last prompt: compaction keeps it verbatim", busy: true},
	{name: "trust", args: "", desc: "trust this folder: .myclaw.toml, AGENTS.md, commands", busy: false},
	{name: "sandbox", args: "", desc: "what the shell sandbox enforces here", busy: true},
	{name: "skills", args: "", desc: "the Agent Skills found, where each came from", busy: true},
	{name: "copy", args: "[N] | code [N]", desc: "copy the last answer, or a code block, to the clipboard", busy: true},
	{name: "mouse", args: "[on|off]", desc: "mouse capture; off lets the terminal select text", busy: true},
	{name: "permissions", args: "[remove N]", desc: "session grants and saved rules, where each lives", busy: true},
	{name: "quit", args: "", desc: "leave myclaw", busy: true},
	{name: "exit", args: "", desc: "leave myclaw (as /quit)", busy: true},
}

// levelHelp says what each autonomy level lets through.
var levelHelp = map[approval.Level]string{
	approval.ReadOnly: "tools with side effects are hidden; nothing changes",
	approval.Ask:      "every call with side effects asks (the default)",
	approval.AutoEdit: "undoable edits in the workspace and confined commands run; the rest asks",
	approval.Full:     "everything runs without asking, commands confined to the workspace; deny rules still hold",
	approval.Plan:     "only read-only tools, commands run read-only; the model submits a plan for you to accept, edit or reject",
}

// matchCommands returns the commands of list whose name starts with prefix.
func matchCommands(list []command, prefix string) []command {
	var out []command
	for _, c := range list {
		if strings.HasPrefix(c.name, prefix) {
			out = append(out, c)
		}
	}
	return out
}

func lookupCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// closestCommand is the command name of list nearest to name by edit
// distance, or "" when none is near enough to be what was meant.
func closestCommand(list []command, name string) string {
	best, bestD := "", -1
	for _, c := range list {
		d := suggest.EditDistance(name, c.name)
		if strings.HasPrefix(c.name, name) {
			d = 0
		}
		if bestD < 0 || d < bestD {
			best, bestD = c.name, d
		}
	}
	if bestD > max(2, len([]rune(name))/3) {
		return ""
	}
	return best
}

// commandResultMsg carries what a command run in a Cmd produced. draw
// renders the output (a closure over plain data, drawn per width); err
// is shown as an error line with its hint.
type commandResultMsg struct {
	draw    func(c *common) []string
	err     error
	refresh bool // the status line may have changed
	cleared bool // a new conversation started
	// journal, after /undo or /redo, is the journal as it now stands, for
	// the cards of the calls walked.
	journal []history.Entry
}

// runCommand parses and runs a slash command line.
func (m Model) runCommand(line string) (Model, tea.Cmd) {
	fields := strings.Fields(line)
	name := strings.TrimPrefix(fields[0], "/")
	args := fields[1:]
	cmd, ok := lookupCommand(name)
	if cc, custom := m.c.custom[name]; !ok && custom {
		return m.runCustom(cc, line)
	}
	if !ok {
		if m2, cmd, prompt := m.runPrompt(name, line); prompt {
			return m2, cmd
		}
	}
	if ok && !cmd.busy && (m.turn != nil || m.compactCancel != nil) {
		return m.keptWhileBusy(line), nil
	}
	m = m.addBlock(userBlock(line))
	if !ok {
		hint := "/help lists the commands; // at the start sends a prompt that begins with /"
		if near := closestCommand(m.c.allCommands(), name); near != "" {
			hint = "did you mean /" + near + "? " + hint
		}
		m = m.addBlock(errorBlock("unknown command /"+oneLine(name), hint))
		return m, nil
	}
	return cmd.run(m, cmd, args)
}

// usageError shows how cmd is used.
func (m Model) usageError(cmd command) (Model, tea.Cmd) {
	m = m.addBlock(errorBlock("usage: "+cmd.usage(), cmd.desc))
	return m, nil
}

// handler runs one slash command with its arguments.
type handler func(m Model, cmd command, args []string) (Model, tea.Cmd)

// noArgs adapts a command that takes no arguments.
func noArgs(run func(m Model) (Model, tea.Cmd)) handler {
	return func(m Model, cmd command, args []string) (Model, tea.Cmd) {
		if len(args) > 0 {
			return m.usageError(cmd)
		}
		return run(m)
	}
}

// handlers are the commands' implementations, by name. They are joined to
// the table in init: a handler may draw the table (/help), and a
// package-level table that held them would refer to itself.
var handlers = map[string]handler{
	"help":     noArgs(func(m Model) (Model, tea.Cmd) { m = m.addBlock(newFuncBlock(drawHelp)); return m, nil }),
	"quit":     noArgs(Model.quit),
	"exit":     noArgs(Model.quit),
	"undo":     runWalk,
	"redo":     runWalk,
	"history":  noArgs(Model.historyCommand),
	"sessions": func(m Model, cmd command, args []string) (Model, tea.Cmd) { return m.sessionsCommand(cmd.name, args) },
	"resume":   func(m Model, cmd command, args []string) (Model, tea.Cmd) { return m.sessionsCommand(cmd.name, args) },
	"fork":     func(m Model, _ command, args []string) (Model, tea.Cmd) { return m.forkCommand(args) },
	"tools":    runTools,
	"autonomy": runAutonomy,
	"plan":     planCommand,
	"model": func(m Model, cmd command, args []string) (Model, tea.Cmd) {
		return m.modelCommand(args, func() (Model, tea.Cmd) { return m.usageError(cmd) })
	},
	"diff": func(m Model, cmd command, args []string) (Model, tea.Cmd) {
		return m.diffCommand(args, func() (Model, tea.Cmd) { return m.usageError(cmd) })
	},
	"mcp":         func(m Model, _ command, args []string) (Model, tea.Cmd) { return m.mcpCommand(args) },
	"jobs":        func(m Model, _ command, args []string) (Model, tea.Cmd) { return m.jobsCommand(args) },
	"agents":      func(m Model, _ command, args []string) (Model, tea.Cmd) { return m.agentsCommand(args) },
	"trust":       noArgs(Model.trustCommand),
	"sandbox":     noArgs(Model.sandboxCommand),
	"skills":      noArgs(Model.skillsCommand),
	"permissions": func(m Model, _ command, args []string) (Model, tea.Cmd) { return m.permissionsCommand(args) },
	"copy":        func(m Model, _ command, args []string) (Model, tea.Cmd) { return m.copyCommand(args) },
	"mouse":       runMouse,
	"init":        noArgs(Model.initCommand),
	"goal":        func(m Model, _ command, args []string) (Model, tea.Cmd) { return m.goalCommand(args) },
	"context":     noArgs(Model.contextCommand),
	"compact": func(m Model, _ command, args []string) (Model, tea.Cmd) {
		return m.compactCommand("compact", strings.Join(args, " "))
	},
	"uncompact": noArgs(func(m Model) (Model, tea.Cmd) { return m.compactCommand("uncompact", "") }),
	"keep":      noArgs(func(m Model) (Model, tea.Cmd) { return m.compactCommand("keep", "") }),
	"cost":      noArgs(Model.costCommand),
	"clear":     noArgs(Model.clearCommand),
}

func init() {
	for i := range commands {
		commands[i].run = handlers[commands[i].name]
	}
}
