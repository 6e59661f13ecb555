package ui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/agent"
	"myclaw/tools"
)

// ContextReporter is what a backend may offer for /context.
// *agent.Agent implements it.
type ContextReporter interface {
	Context() agent.ContextReport
}

// initPrompt is what /init asks of the model. The file goes through
// fs_write, so it is previewed, approved and undoable like any write.
const initPrompt = `Explore this repository and write an AGENTS.md at the workspace root with fs_write: a concise guide for coding agents working here.

First look around: glob_list for the layout, then fs_read the README, the build files (go.mod, package.json, Makefile, pyproject.toml, Cargo.toml, ...), the CI configuration and the main entry points; grep_search for test and lint commands. If an AGENTS.md (or CLAUDE.md, GEMINI.md, .github/copilot-instructions.md) exists, read it and improve it instead of starting over.

Then write AGENTS.md with:
- what the project is, in two or three sentences;
- how to build, test, lint and run it: the exact commands you found;
- the layout: the main folders and what lives where;
- conventions that are not obvious from the code (style, naming, error handling, commits);
- pitfalls and things not to do.

Keep it under 150 lines, state only what you verified in the files, and do not invent commands.`

// initCommand runs /init.
func (m Model) initCommand() (Model, tea.Cmd) {
	return m.startTurnAs("", initPrompt) // runCommand showed "/init"
}

// contextCommand runs /context.
func (m Model) contextCommand() (Model, tea.Cmd) {
	r, ok := m.backend.(ContextReporter)
	if !ok {
		m = m.addBlock(errorBlock("/context is not available here", ""))
		return m, nil
	}
	return m, func() tea.Msg {
		rep := r.Context()
		return commandResultMsg{draw: func(c *common) []string { return drawContext(c, rep) }}
	}
}

func drawContext(c *common, r agent.ContextReport) []string {
	st := &c.styles
	w := c.contentWidth()
	share := func(n int) string {
		if r.Window <= 0 {
			return ""
		}
		return fmt.Sprintf("%5.1f%%", float64(n)*100/float64(r.Window))
	}
	row := func(label string, n int, note string) string {
		line := "  " + pad(label, 22) + pad("~"+shortCount(n), 9) + pad(share(n), 8) + st.Dim.Render(note)
		return truncate(line, w)
	}
	// note is a dim line of its own, wrapped at spaces under its indent.
	note := func(text string) []string {
		var out []string
		for _, l := range wrapWords(text, w-2) {
			out = append(out, "  "+st.Dim.Render(l))
		}
		return out
	}
	out := []string{st.Bold.Render("  in the prompt now") + st.Dim.Render("  (tokens estimated at 4 bytes each)")}
	out = append(out, row("system prompt", r.System, "rules, workspace, instruction files"))
	untrusted := false
	for _, f := range r.Instructions {
		how := "instructions"
		if f.Untrusted {
			how, untrusted = "untrusted notes", true
		}
		if f.Truncated {
			how += ", cut"
		}
		out = append(out, row("  "+truncate(oneLine(f.Path), 19), f.Tokens, f.Scope+" · "+how))
	}
	if len(r.Instructions) == 0 {
		out = append(out, "  "+st.Dim.Render("  no instruction files (AGENTS.md); /init drafts one"))
	}
	out = append(out, row("tool catalog", r.Catalog, tools.Count(r.Tools, "tool")))
	out = append(out, row("conversation", r.Conversation, fmt.Sprintf("%d messages", r.Messages)))
	if r.Attached > 0 {
		out = append(out, row("attached", r.Attached, "goes with your next message"))
	}
	out = append(out, row("free", r.Free, "of a "+shortCount(r.Window)+"-token window"))
	switch r.WindowSource {
	case "estimated", "":
		out = append(out, note("the window is a guess: the server did not say; set context_window in the config")...)
	default:
		out = append(out, note("window from "+oneLine(r.WindowSource))...)
	}
	if r.CompactCatalog {
		out = append(out, note("a small window: the system prompt and tool descriptions are sent in short form")...)
	}
	if r.LastUsage > 0 {
		out = append(out, note("the last request counted "+shortCount(r.LastUsage)+" tokens")...)
	}
	if untrusted {
		out = append(out, note("untrusted notes are data for the model, not orders; /trust makes them instructions")...)
	}
	return out
}
