package ui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/history"
	"myclaw/internal/suggest"
	"myclaw/tools"
	"myclaw/tools/termtext"
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
	{name: "model", args: "[name [--save]]", desc: "show or switch the model; --save: as the default", busy: false},
	{name: "clear", args: "", desc: "start a new conversation", busy: false},
	{name: "sessions", args: "[ID]", desc: "the sessions of this workspace: pick one to continue it", busy: false},
	{name: "resume", args: "[ID]", desc: "continue another session of this workspace", busy: false},
	{name: "fork", args: "[N]", desc: "go on in a copy of this session (N: before prompt N)", busy: false},
	{name: "mcp", args: "[CMD] [NAME]", desc: "MCP servers; NAME: one, with its log; CMD: restart, resources, login, logout", busy: true},
	{name: "jobs", args: "[ID | stop ID]", desc: "background shell jobs: list, follow one's output, stop", busy: true},
	{name: "init", args: "", desc: "draft AGENTS.md: the model explores the repository", busy: false},
	{name: "cost", args: "", desc: "tokens and cost of this session so far", busy: true},
	{name: "context", args: "", desc: "what the prompt holds: instructions, tools, free room", busy: true},
	{name: "compact", args: "[focus]", desc: "summarise the older conversation to free room", busy: false},
	{name: "uncompact", args: "", desc: "put back what the last compaction replaced", busy: false},
	{name: "keep", args: "", desc: "pin your last prompt: compaction keeps it verbatim", busy: true},
	{name: "trust", args: "", desc: "trust this folder: .myclaw.toml, AGENTS.md, commands", busy: false},
	{name: "sandbox", args: "", desc: "what the shell sandbox enforces here", busy: true},
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
	m = m.addBlock(userBlock(line))
	if !ok {
		hint := "/help lists the commands; // at the start sends a prompt that begins with /"
		if near := closestCommand(m.c.allCommands(), name); near != "" {
			hint = "did you mean /" + near + "? " + hint
		}
		m = m.addBlock(errorBlock("unknown command /"+oneLine(name), hint))
		return m, nil
	}
	if !cmd.busy && m.turn != nil {
		m = m.addBlock(errorBlock("/"+cmd.name+" waits for the running turn to finish",
			"press "+m.c.keys.Cancel.Help().Key+" to cancel the turn, or wait for it to end"))
		return m, nil
	}
	if !cmd.busy && m.compactCancel != nil {
		m = m.addBlock(errorBlock("/"+cmd.name+" cannot run while the compaction runs",
			"press "+m.c.keys.Cancel.Help().Key+" to cancel the compaction, or run it again once it ends"))
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
	"model": func(m Model, cmd command, args []string) (Model, tea.Cmd) {
		return m.modelCommand(args, func() (Model, tea.Cmd) { return m.usageError(cmd) })
	},
	"diff": func(m Model, cmd command, args []string) (Model, tea.Cmd) {
		return m.diffCommand(args, func() (Model, tea.Cmd) { return m.usageError(cmd) })
	},
	"mcp":         func(m Model, _ command, args []string) (Model, tea.Cmd) { return m.mcpCommand(args) },
	"jobs":        func(m Model, _ command, args []string) (Model, tea.Cmd) { return m.jobsCommand(args) },
	"trust":       noArgs(Model.trustCommand),
	"sandbox":     noArgs(Model.sandboxCommand),
	"permissions": func(m Model, _ command, args []string) (Model, tea.Cmd) { return m.permissionsCommand(args) },
	"copy":        func(m Model, _ command, args []string) (Model, tea.Cmd) { return m.copyCommand(args) },
	"mouse":       runMouse,
	"init":        noArgs(Model.initCommand),
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

// runWalk runs /undo [N] [--force] and /redo [N].
func runWalk(m Model, cmd command, args []string) (Model, tea.Cmd) {
	n, force := 1, false
	for _, a := range args {
		switch v, err := strconv.Atoi(a); {
		case a == "--force" && cmd.name == "undo":
			force = true
		case err == nil && v > 0:
			n = v
		default:
			return m.usageError(cmd)
		}
	}
	b, ctx := m.backend, m.shared.base
	return m, func() tea.Msg {
		var out string
		var err error
		if cmd.name == "undo" {
			out, err = b.Undo(ctx, n, force)
		} else {
			out, err = b.Redo(ctx, n)
		}
		entries, _ := b.History()
		return commandResultMsg{draw: textDraw(out), err: err, refresh: true, journal: entries}
	}
}

func (m Model) historyCommand() (Model, tea.Cmd) {
	b := m.backend
	return m, func() tea.Msg {
		entries, err := b.History()
		return commandResultMsg{draw: func(c *common) []string { return drawHistory(c, entries) }, err: err}
	}
}

// runTools runs /tools and /tools NAME.
func runTools(m Model, cmd command, args []string) (Model, tea.Cmd) {
	b := m.backend
	switch len(args) {
	case 0:
		return m, func() tea.Msg {
			list := b.Tools()
			return commandResultMsg{draw: func(c *common) []string { return drawTools(c, list) }}
		}
	case 1:
		name := args[0]
		return m, func() tea.Msg {
			for _, t := range b.Tools() {
				if t.Meta.Name == name || t.Wire == name {
					return commandResultMsg{draw: func(c *common) []string { return drawToolDetails(c, t) }}
				}
			}
			return commandResultMsg{err: fmt.Errorf("no tool named %q; /tools lists them", name)}
		}
	}
	return m.usageError(cmd)
}

// runAutonomy shows the levels, or sets one.
func runAutonomy(m Model, cmd command, args []string) (Model, tea.Cmd) {
	b := m.backend
	switch len(args) {
	case 0:
		return m, func() tea.Msg {
			cur := b.Autonomy()
			return commandResultMsg{draw: func(c *common) []string { return drawLevels(c, cur) }}
		}
	case 1:
		level, err := approval.ParseLevel(args[0])
		if err != nil {
			m = m.addBlock(errorBlock(err.Error(), "/autonomy with no argument lists the levels"))
			return m, nil
		}
		return m, func() tea.Msg {
			b.SetAutonomy(level)
			return commandResultMsg{draw: textDraw("autonomy set to " + string(level) + ": " + levelHelp[level]), refresh: true}
		}
	}
	return m.usageError(cmd)
}

// runMouse toggles mouse capture, or sets it on or off.
func runMouse(m Model, cmd command, args []string) (Model, tea.Cmd) {
	switch {
	case len(args) == 0:
		return m.setMouse(m.c.mouseOff)
	case len(args) == 1 && (args[0] == "on" || args[0] == "off"):
		return m.setMouse(args[0] == "on")
	}
	return m.usageError(cmd)
}

// clearCommand starts a new conversation and says where the old one's
// undo history is.
func (m Model) clearCommand() (Model, tea.Cmd) {
	b := m.backend
	return m, func() tea.Msg {
		old := b.Status().SessionID
		if err := b.NewConversation(); err != nil {
			return commandResultMsg{err: err}
		}
		return commandResultMsg{draw: textDraw(clearedNote(old)), refresh: true, cleared: true}
	}
}

// textDraw shows plain text, one block line per line (wrapped).
func textDraw(s string) func(c *common) []string {
	s = strings.TrimRight(termtext.Screen(s), "\n")
	return func(c *common) []string {
		if s == "" {
			return []string{c.styles.Dim.Render("  (nothing to report)")}
		}
		var out []string
		for l := range strings.SplitSeq(s, "\n") {
			for _, w := range wrapPlain(expandTabs(l), c.contentWidth()-2) {
				out = append(out, "  "+w)
			}
		}
		return out
	}
}

// errorParts splits an error into what the user reads and the hint.
func errorParts(err error) (msg, hint string) {
	var te *tools.Error
	var ce *tools.Conflict
	var ue *agent.UserError
	var h interface{ Hint() string }
	switch {
	case errors.As(err, &te):
		return te.Text(), te.Hint
	case errors.As(err, &ue):
		return ue.Error(), ue.Hint
	case errors.As(err, &h):
		return err.Error(), h.Hint()
	case errors.As(err, &ce):
		return ce.Error(), "/undo --force reverts anyway (the current state is kept so /redo can bring it back)"
	case errors.Is(err, context.DeadlineExceeded):
		return err.Error(), "the operation took too long; try again"
	}
	return err.Error(), ""
}

func drawHelp(c *common) []string {
	st := &c.styles
	var out []string
	// The keys come from KeyMap.FullHelp, so what /help says is what the
	// bindings do.
	for g, group := range c.keys.FullHelp() {
		if g > 0 {
			out = append(out, "")
		}
		out = append(out, st.Bold.Render(helpGroups[g]))
		for _, b := range group {
			if b.Enabled() {
				out = append(out, helpLines(c, allKeys(b), b.Help().Desc)...)
			}
		}
	}
	out = append(out, "", st.Bold.Render("commands"))
	for _, cmd := range commands {
		out = append(out, helpLines(c, cmd.usage(), cmd.desc)...)
	}
	if len(c.customList) > 0 {
		out = append(out, "", st.Bold.Render("your commands")+st.Dim.Render("  (commands/NAME.md: $ARGUMENTS, $1…)"))
		for _, cmd := range c.customList {
			out = append(out, helpLines(c, cmd.usage(), cmd.desc)...)
		}
	}
	if len(c.prompts) > 0 {
		out = append(out, "", st.Bold.Render("MCP prompts")+st.Dim.Render("  (arguments in order, or NAME=value)"))
		for _, cmd := range c.prompts {
			out = append(out, helpLines(c, cmd.usage(), cmd.desc)...)
		}
	}
	out = append(out, "  "+st.Dim.Render("a prompt that begins with / is sent by typing // first"))
	for i, l := range out {
		out[i] = truncate(l, c.contentWidth())
	}
	return out
}

// helpKeyWidth is the width of /help's key column.
const helpKeyWidth = 24

// helpLines is one entry of /help: the keys, then the description wrapped
// beside them (below them when the keys fill their column).
func helpLines(c *common, keys, desc string) []string {
	st := &c.styles
	indent := strings.Repeat(" ", 2+helpKeyWidth)
	ws := wrapPlain(desc, max(c.contentWidth()-2-helpKeyWidth, 20))
	var out []string
	if ansi.StringWidth(keys) >= helpKeyWidth {
		out = append(out, "  "+st.Key.Render(keys))
	} else {
		out = append(out, "  "+st.Key.Render(pad(keys, helpKeyWidth))+ws[0])
		ws = ws[1:]
	}
	for _, w := range ws {
		out = append(out, indent+w)
	}
	return out
}

// allKeys lists every key of the bindings: "alt+enter, ctrl+j".
func allKeys(bs ...key.Binding) string {
	var names []string
	for _, b := range bs {
		names = append(names, b.Keys()...)
	}
	return strings.Join(names, ", ")
}

// pad fills s with spaces to width columns (at least one space follows).
func pad(s string, width int) string {
	return s + strings.Repeat(" ", max(width-ansi.StringWidth(s), 1))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "-"
}

// drawToolDetails shows one tool's full description, key by key.
func drawToolDetails(c *common, t agent.ToolInfo) []string {
	st := &c.styles
	w := c.contentWidth()
	details := t.Details
	if len(details) == 0 {
		details = [][2]string{{"name", t.Meta.Name}, {"description", t.Meta.Description}}
	}
	keyW := 0
	for _, kv := range details {
		keyW = max(keyW, len(kv[0]))
	}
	var out []string
	for _, kv := range details {
		// A description's own lines (lists, paragraphs) are kept.
		var lines []string
		for l := range strings.SplitSeq(strings.TrimRight(termtext.Screen(kv[1]), "\n"), "\n") {
			lines = append(lines, wrapPlain(expandTabs(oneLine(l)), max(w-keyW-5, 10))...)
		}
		if len(lines) == 0 {
			lines = []string{""}
		}
		for i, l := range lines {
			k := ""
			if i == 0 {
				k = kv[0]
			}
			out = append(out, "  "+st.Dim.Render(pad(k, keyW+2))+l)
		}
	}
	if t.Wire != "" && t.Wire != t.Meta.Name {
		out = append(out, "  "+st.Dim.Render(pad("wire_name", keyW+2))+t.Wire)
	}
	if !t.Visible {
		why := t.Hidden
		if why == "" {
			why = "not offered to the model"
		}
		out = append(out, "  "+st.Dim.Render(pad("hidden", keyW+2))+oneLine(why))
	}
	if len(t.Meta.Schema) > 0 {
		out = append(out, "", "  "+st.Bold.Render("input"))
		for _, p := range schemaParams(t.Meta.Schema) {
			head := "  " + st.Key.Render(p.name) + st.Dim.Render(" "+p.kind)
			out = append(out, truncate(head, w))
			for _, l := range wrapPlain(p.desc, w-6) {
				out = append(out, "      "+l)
			}
		}
	}
	return out
}

// drawTools renders the catalog as a table that fits the width: the
// capability column takes what is left, and why a tool is hidden goes on
// a line of its own.
func drawTools(c *common, list []agent.ToolInfo) []string {
	st := &c.styles
	w := c.contentWidth()
	if len(list) == 0 {
		return []string{"  no tools are registered"}
	}
	nameW := len("tool")
	for _, t := range list {
		w := ansi.StringWidth(oneLine(t.Meta.Name))
		if !t.Visible {
			w += 2 // the parentheses
		}
		nameW = max(nameW, w)
	}
	// Names take what they need, as long as the capability keeps 12 columns.
	nameW = min(nameW, max(w-2-(8+4+7+5+5+4)-13, 16))
	cols := []struct {
		title string
		width int
	}{{"tool", nameW}, {"source", 7}, {"fx", 3}, {"risk", 6}, {"untr", 4}, {"idem", 4}, {"dry", 3}}
	fixed := 2
	for _, col := range cols {
		fixed += col.width + 1
	}
	capW := max(w-fixed, 10)
	row := func(cells []string) string {
		var b strings.Builder
		b.WriteString("  ")
		for i, col := range cols {
			b.WriteString(pad(truncate(cells[i], col.width), col.width+1))
		}
		b.WriteString(truncate(cells[len(cols)], capW))
		return strings.TrimRight(b.String(), " ")
	}
	titles := make([]string, 0, len(cols)+1)
	for _, col := range cols {
		titles = append(titles, col.title)
	}
	out := []string{st.Bold.Render(row(append(titles, "capability")))}
	for _, t := range list {
		m := t.Meta
		name := oneLine(m.Name)
		if !t.Visible {
			name = "(" + name + ")"
		}
		out = append(out, row([]string{
			name, oneLine(string(m.Source)), yesNo(m.HasSideEffects()), string(m.EffectiveRisk()),
			yesNo(m.ReturnsUntrusted), yesNo(m.Idempotent), yesNo(m.SupportsDryRun), oneLine(m.Capability),
		}))
		if !t.Visible {
			why := t.Hidden
			if why == "" {
				why = "not offered to the model"
			}
			for _, l := range wrapPlain("hidden: "+oneLine(why), w-6) {
				out = append(out, "      "+st.Dim.Render(l))
			}
		}
	}
	legend := "fx: has side effects · untr: returns untrusted content · idem: idempotent · " +
		"dry: faithful dry run · (name): hidden from the model · /tools NAME shows one in full"
	for _, l := range wrapPlain(legend, w-2) {
		out = append(out, "  "+st.Dim.Render(l))
	}
	return out
}

func drawHistory(c *common, entries []history.Entry) []string {
	st := &c.styles
	if len(entries) == 0 {
		return []string{"  " + st.Dim.Render("no calls yet in this session")}
	}
	w := c.contentWidth()
	var out []string
	for _, e := range entries {
		state := string(e.State)
		style := st.Dim
		switch e.State {
		case history.StateApplied, history.StatePending:
			style = st.OK
		case history.StateFailed:
			style = st.Failed
		case history.StateIrreversible:
			style = st.Warn
		}
		line := fmt.Sprintf("  #%-3d %s  %s %s %s", e.Seq, e.Time.Format("15:04:05"),
			pad(oneLine(e.Tool), 12), style.Render(pad(state, 13)), oneLine(e.Summary))
		out = append(out, truncate(line, w))
		if e.Reason != "" {
			out = append(out, truncate("        "+st.Dim.Render(oneLine(e.Reason)), w))
		}
	}
	return out
}

func drawSessions(c *common, list []history.SessionInfo) []string {
	st := &c.styles
	if len(list) == 0 {
		return []string{"  " + st.Dim.Render("no stored sessions for this workspace")}
	}
	w := c.contentWidth()
	var out []string
	for _, s := range list {
		line := "  " + pad(truncate(oneLine(s.ID), 20), 21) + s.Updated.Format("2006-01-02 15:04") + "  " +
			st.Dim.Render(pad(truncate(oneLine(s.Model), 16), 17)) + oneLine(s.Title)
		out = append(out, truncate(line, w))
	}
	return out
}

func drawLevels(c *common, cur approval.Level) []string {
	st := &c.styles
	out := []string{"  autonomy: " + st.Bold.Render(string(cur))}
	for _, l := range approval.Levels {
		mark := "  "
		if l == cur {
			mark = "› "
		}
		// Wrapped under its own column, never cut: it is what the level does.
		for i, t := range wrapPlain(levelHelp[l], max(c.contentWidth()-14, 20)) {
			if i == 0 {
				out = append(out, "  "+mark+st.Key.Render(pad(string(l), 10))+t)
			} else {
				out = append(out, strings.Repeat(" ", 14)+t)
			}
		}
	}
	out = append(out, "  "+st.Dim.Render("/autonomy <level> switches · "+c.keys.CycleLevel.Help().Key+" steps through ask, auto-edit, full"))
	return out
}
