package ui

import (
	"strings"
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/agent"
	"myclaw/approval"
)

// mentionToken is the word before the cursor when it starts with "@":
// what the @ completion matches. ok is false otherwise.
func (e *editor) mentionToken() (string, bool) {
	l := e.lines[e.row]
	start := e.col
	for start > 0 && !unicode.IsSpace(l[start-1]) {
		start--
	}
	if start == e.col || l[start] != '@' {
		return "", false
	}
	// A word that goes on after the cursor is not being completed.
	if e.col < len(l) && !unicode.IsSpace(l[e.col]) {
		return "", false
	}
	return string(l[start+1 : e.col]), true
}

// replaceMention puts s in place of the @word before the cursor.
func (e *editor) replaceMention(s string) {
	l := e.lines[e.row]
	start := e.col
	for start > 0 && !unicode.IsSpace(l[start-1]) {
		start--
	}
	rest := append([]rune(nil), l[e.col:]...)
	e.lines[e.row] = append(append(l[:start:start], []rune(s)...), rest...)
	e.col = start + len([]rune(s))
	e.rev++
	e.scrollToCursor()
}

// refreshMentions recomputes the @ popup; it reports whether the popup
// is about files (so that a stale index is built again).
func (in *inputModel) refreshMentions() bool {
	in.files = nil
	tok, ok := in.ta.mentionToken()
	if !ok || len(in.matches) > 0 {
		return false
	}
	in.files = in.c.files.match(tok, maxPopupRows)
	in.sel = min(in.sel, max(len(in.files)-1, 0))
	return true
}

// completeMention takes the selected path: a file is followed by a space,
// a folder is left open to go on typing. The space is the one a person
// types after a word out of habit, so that space, typed next, is taken as
// already there rather than doubled.
func (in *inputModel) completeMention() {
	p := in.files[in.sel]
	if !strings.HasSuffix(p, "/") {
		p += " "
	}
	in.ta.replaceMention("@" + p)
	in.closed = true
	in.refresh()
	in.spaceAdded = strings.HasSuffix(p, " ")
}

// mentionPopupView lists the matching paths.
func (in *inputModel) mentionPopupView() []string {
	st := &in.c.styles
	w := max(in.c.width, minWidth)
	var out []string
	for i, p := range in.files {
		mark, style := "  ", st.PopupName
		if i == in.sel {
			mark, style = "› ", st.PopupActive
		}
		out = append(out, truncate(mark+style.Render("@"+oneLine(p)), w))
	}
	if in.c.files.partial {
		out = append(out, st.PopupDesc.Render(truncate("  (the tree is large: only part of it is indexed)", w)))
	}
	return out
}

// maybeIndex builds the file index again when the @ popup shows and the
// index is stale.
func (m Model) maybeIndex() tea.Cmd {
	if !m.input.wantsFiles || !m.c.files.stale(time.Now()) {
		return nil
	}
	m.c.files.pending = true
	return buildIndex(m.shared.base, m.fsys, m.c.workspace)
}

// attachEvent draws the events of an @mention as a chip instead of a
// card; it reports whether ev was one.
func (m Model) attachEvent(ev agent.Event) (Model, bool) {
	switch ev := ev.(type) {
	case agent.ToolCallEvent:
		return m, ev.Call.Attached
	case agent.ToolResultEvent:
		if !ev.Call.Attached {
			return m, false
		}
		m = m.addTurnBlock(newChip(ev))
		return m, true
	}
	return m, false
}

// chip is an attached mention in the transcript: one line, and with the
// results expanded (Ctrl+O) the fenced content the model reads.
type chip struct {
	ev    agent.ToolResultEvent
	arg   string
	cache lineCache
}

func newChip(ev agent.ToolResultEvent) *chip {
	return &chip{ev: ev, arg: keyArg(ev.Call.Args)}
}

func (ch *chip) lines(c *common) []string {
	if l, ok := ch.cache.get(c); ok {
		return l
	}
	return ch.cache.put(c, withGap(ch.draw(c)))
}

func (ch *chip) draw(c *common) []string {
	st := &c.styles
	w := c.contentWidth()
	ev := ch.ev
	name := "@" + ch.arg
	if strings.Contains(string(ev.Call.Args), `"pattern"`) {
		name += "/"
	}
	if server, ok := strings.CutSuffix(ev.Call.Tool, "/read_resource"); ok {
		name = "@" + oneLine(server) + ":" + ch.arg // an MCP resource
	}
	if ev.Status != agent.StatusOK {
		out := []string{truncate("  "+st.Failed.Render("✗ "+name+" not attached: "+oneLine(ev.Message)), w)}
		if ev.Hint != "" {
			for _, l := range wrapPlain(oneLine(ev.Hint), w-4) {
				out = append(out, "    "+st.Hint.Render(l))
			}
		}
		return out
	}
	line := "  " + st.Key.Render("[ "+name+" ]") + " " + st.Dim.Render(oneLine(ev.Summary)+" · attached for the model")
	out := []string{truncate(line, w)}
	if c.expandTools && ev.Untrusted {
		for _, l := range renderFence(c, w-2, ev.Source, ev.RetrievedAt, ev.Body, false, approval.QuietSource(ev.Source)) {
			out = append(out, "  "+l)
		}
	} else if c.expandTools {
		out = append(out, "  "+st.Dim.Render(truncate(oneLine(prettyContent(ev.Content)), w-2)))
	}
	return out
}
