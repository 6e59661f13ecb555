package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/history"
	"myclaw/tools"
	"myclaw/tools/termtext"
)

// textDraw shows plain text, one block line per line (wrapped).
func textDraw(s string) func(c *common) []string {
	s = strings.TrimRight(termtext.Screen(s), "\n")
	return func(c *common) []string {
		if s == "" {
			return []string{c.styles.Dim.Render("  (nothing to report)")}
		}
		var out []string
		for l := range strings.SplitSeq(s, "\n") {
			for _, w := range hangLine(expandTabs(l), c.contentWidth()-2) {
				out = append(out, "  "+w)
			}
		}
		return out
	}
}

// hangLine wraps one line at spaces to width, its later lines starting
// under its text: past its indent and, in a list, past its bullet.
func hangLine(l string, width int) []string {
	if ansi.StringWidth(l) <= width {
		return []string{l}
	}
	rest := strings.TrimLeft(l, " ")
	hang := len(l) - len(rest)
	for _, b := range []string{"- ", "• ", "* "} {
		if strings.HasPrefix(rest, b) {
			hang += ansi.StringWidth(b)
			break
		}
	}
	if hang > width/2 {
		return wrapPlain(l, width)
	}
	lines := wrapWords(rest, width-hang)
	for i := range lines {
		p := strings.Repeat(" ", hang)
		if i == 0 {
			p = l[:len(l)-len(rest)]
		}
		lines[i] = p + lines[i]
	}
	return lines
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
	// The keys are the bindings in force, [keys] applied, each with the
	// name [keys] rebinds it by.
	out = append(out, keysHelp(c)...)
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
		summary := oneLine(e.Summary)
		if g := agent.GroupLabel(e.Group); g != "" {
			// One /undo takes back the calls of its group together.
			summary = st.Dim.Render("["+oneLine(g)+"] ") + summary
		}
		line := fmt.Sprintf("  #%-3d %s  %s %s %s", e.Seq, e.Time.Format("15:04:05"),
			pad(oneLine(e.Tool), 12), style.Render(pad(state, 13)), summary)
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
	for _, l := range append(slices.Clone(approval.Levels), approval.Plan) {
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
	out = append(out, "  "+st.Dim.Render("/autonomy <level> switches · "+c.keys.CycleLevel.Help().Key+" steps through ask, auto-edit, full, plan · /plan enters plan mode"))
	return out
}
