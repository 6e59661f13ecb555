package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"myclaw/tools"
	"myclaw/tools/mcp"
	"myclaw/tools/termtext"
)

// FormRequest is an MCP server's request for input (elicitation), shown to
// the person as a form. The answer goes to Reply (capacity 1), for the
// server only: it never reaches the model.
type FormRequest struct {
	Ctx   context.Context // ends when the server stops waiting
	Form  mcp.Elicitation
	Reply chan<- mcp.ElicitAnswer
}

// formRequestMsg carries a request from the backend to Update.
type formRequestMsg struct{ r FormRequest }

// formAnsweredMsg is the form's answer; the root model sends it on.
type formAnsweredMsg struct {
	f   *elicitForm
	ans mcp.ElicitAnswer
}

// waitForForm is re-armed after each request; a closed channel ends it.
func waitForForm(ch <-chan FormRequest) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		r, ok := <-ch
		if !ok {
			return nil
		}
		return formRequestMsg{r}
	}
}

// formKeys are the keys of the form; they render its footer.
type formKeys struct {
	Accept, Send, Back, Decline, Cancel, Next, Prev, Choose, Toggle key.Binding
}

func newFormKeys() formKeys {
	return formKeys{
		Accept:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "next field")),
		Send:    key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "send")),
		Back:    key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n/esc", "back to the form")),
		Decline: key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "decline")),
		Cancel:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Next:    key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab/↓", "next field")),
		Prev:    key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab/↑", "previous")),
		Choose:  key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←/→", "choose")),
		Toggle:  key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "toggle")),
	}
}

// The server's message is capped so that it cannot push the form's
// heading off the screen or pass for anything but its own text.
const (
	formMessageLines = 12
	formMessageChars = 1500
)

// elicitForm is the form of one FormRequest: a text per field, typed or
// chosen, checked by the field's Parse, then shown as a summary that the
// person confirms before anything is sent.
type elicitForm struct {
	c      *common
	r      FormRequest
	keys   formKeys
	values []string
	errs   []string
	secret []bool
	focus  int
	// content is what y sends, while the summary is shown (nil before).
	content map[string]any
	// decided is set once an answer is on its way: keys pressed before the
	// form closes must not answer twice.
	decided bool
	// armed is set paneArmDelay after the form came into view (arming
	// while that runs; shown counts the times it came into view): keys
	// typed before go to the prompt, where they were going.
	armed, arming bool
	shown         int

	msgLines []string // the message's wrapped lines for msgWidth
	msgWidth int
}

func newElicitForm(c *common, r FormRequest) *elicitForm {
	n := len(r.Form.Fields)
	f := &elicitForm{c: c, r: r, keys: newFormKeys(), values: make([]string, n), errs: make([]string, n), secret: make([]bool, n)}
	for i, fl := range r.Form.Fields {
		f.values[i] = fl.Default
		// Only typed values are masked: a choice shows what it is.
		f.secret[i] = fl.Secret() && fl.Kind != "boolean" && fl.Kind != "enum" && fl.Kind != "multi"
	}
	return f
}

func (f *elicitForm) answer(ans mcp.ElicitAnswer) tea.Cmd {
	f.decided = true
	return func() tea.Msg { return formAnsweredMsg{f: f, ans: ans} }
}

func (f *elicitForm) update(msg tea.KeyMsg) (*elicitForm, tea.Cmd) {
	if f.decided {
		return f, nil
	}
	k := &f.keys
	if f.content != nil {
		switch {
		case key.Matches(msg, k.Send) && !msg.Paste:
			return f, f.answer(mcp.ElicitAnswer{Action: mcp.ElicitAccept, Content: f.content})
		case key.Matches(msg, k.Back) && !msg.Paste:
			f.content = nil
		case key.Matches(msg, k.Decline):
			return f, f.answer(mcp.ElicitAnswer{Action: mcp.ElicitDecline})
		}
		return f, nil
	}
	var field *mcp.ElicitField
	if f.focus < len(f.r.Form.Fields) {
		field = &f.r.Form.Fields[f.focus]
	}
	switch {
	case msg.Paste && field != nil && (field.Kind == "boolean" || field.Kind == "enum"):
		return f, nil
	case msg.Paste:
		// Pasted text is typed into the field, never taken as keys.
	case key.Matches(msg, k.Cancel):
		return f, f.answer(mcp.ElicitAnswer{Action: mcp.ElicitCancel})
	case key.Matches(msg, k.Decline):
		return f, f.answer(mcp.ElicitAnswer{Action: mcp.ElicitDecline})
	case key.Matches(msg, k.Accept):
		if f.focus < len(f.values)-1 {
			f.focus++
			return f, nil
		}
		return f.review(), nil
	case key.Matches(msg, k.Next):
		if n := len(f.values); n > 0 {
			f.focus = (f.focus + 1) % n
		}
		return f, nil
	case key.Matches(msg, k.Prev):
		if n := len(f.values); n > 0 {
			f.focus = (f.focus + n - 1) % n
		}
		return f, nil
	case field == nil:
		return f, nil
	case field.Kind == "boolean" && (key.Matches(msg, k.Toggle) || key.Matches(msg, k.Choose)):
		if f.values[f.focus] == "true" {
			f.values[f.focus] = "false"
		} else {
			f.values[f.focus] = "true"
		}
		f.errs[f.focus] = ""
		return f, nil
	case field.Kind == "enum" && key.Matches(msg, k.Choose):
		f.values[f.focus] = cycle(field.Options, f.values[f.focus], msg.String() == "left")
		f.errs[f.focus] = ""
		return f, nil
	case field.Kind == "boolean" || field.Kind == "enum":
		return f, nil
	case msg.Type == tea.KeyBackspace:
		if r := []rune(f.values[f.focus]); len(r) > 0 {
			f.values[f.focus] = string(r[:len(r)-1])
		}
		f.errs[f.focus] = ""
		return f, nil
	}
	if field != nil && (msg.Type == tea.KeyRunes || msg.Type == tea.KeySpace) && len(f.values[f.focus]) < 4096 {
		f.values[f.focus] += strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return -1
			}
			return r
		}, string(msg.Runes))
		if msg.Type == tea.KeySpace && len(msg.Runes) == 0 {
			f.values[f.focus] += " "
		}
		f.errs[f.focus] = ""
	}
	return f, nil
}

// cycle returns the option after (or before) cur.
func cycle(opts []string, cur string, back bool) string {
	if len(opts) == 0 {
		return cur
	}
	i := -1
	for j, o := range opts {
		if o == cur {
			i = j
		}
	}
	switch {
	case i < 0 && back:
		return opts[len(opts)-1]
	case i < 0:
		return opts[0]
	case back:
		return opts[(i+len(opts)-1)%len(opts)]
	}
	return opts[(i+1)%len(opts)]
}

// review checks every field and, when all are good, shows the summary of
// what would be sent; a form with errors stays open, showing them.
func (f *elicitForm) review() *elicitForm {
	content := map[string]any{}
	bad := -1
	for i, fl := range f.r.Form.Fields {
		v, err := fl.Parse(f.values[i])
		if err != nil {
			f.errs[i] = err.Error()
			if bad < 0 {
				bad = i
			}
			continue
		}
		f.errs[i] = ""
		if v != nil {
			content[fl.Name] = v
		}
	}
	if bad >= 0 {
		f.focus = bad
		return f
	}
	f.content = content
	return f
}

// maxHeight is the most lines the form takes, as for the approval pane.
func (f *elicitForm) maxHeight() int { return max(f.c.height-5, 8) }

// view is the form: the heading naming the server, pinned as the first
// line; the server's message in the frame of untrusted text; the fields
// (or the summary of what will be sent); the keys. What does not fit is
// cut from the message first, then from the fields far from the focus.
func (f *elicitForm) view() []string {
	w := f.c.contentWidth()
	head, foot := f.header(w), f.footer(w)
	room := max(f.maxHeight()-len(head)-len(foot), 1)
	var body []string
	if f.content != nil {
		body = f.summary(w)
		if len(body) > room {
			body = append(body[:room-1], f.c.styles.Dim.Render("  … "+tools.Count(len(body)-room+1, "more line")))
		}
	} else {
		fields, from, to := f.fieldLines(w)
		// Many fields leave the message half the room, up to 7 lines.
		msg := f.message(w, max(room-len(fields), min(7, room/2)))
		body = append(msg, windowAround(fields, from, to, room-len(msg))...)
	}
	return append(append(head, body...), foot...)
}

// header is the server's name in a style of its own, above a line saying
// where the answer goes. A server's text never comes before it.
func (f *elicitForm) header(w int) []string {
	st := &f.c.styles
	server := oneLine(f.r.Form.Server)
	title, note := f.r.Form.Title, f.r.Form.Note
	if title == "" {
		title, note = "asks you", "your answer goes to "+server+" only, never to the model"
	}
	label := truncate(" MCP server "+server+" "+oneLine(title)+" ", w)
	rule := st.FenceBorder.Render(strings.Repeat("─", max(w-ansi.StringWidth(label), 0)))
	out := []string{st.FormLabel.Render(label) + rule}
	for _, l := range wrapPlain(oneLine(note), w-2) {
		out = append(out, "  "+st.Dim.Render(l))
	}
	return out
}

// message frames the server's message in at most room lines (three at
// least, when there is one): sanitised, wrapped, capped at
// formMessageLines lines and formMessageChars characters.
func (f *elicitForm) message(w, room int) []string {
	if strings.TrimSpace(f.r.Form.Message) == "" {
		return nil
	}
	fw := max(w-2, minWidth-2)
	if f.msgLines == nil || f.msgWidth != fw {
		f.msgWidth, f.msgLines = fw, nil
		text := strings.TrimRight(termtext.Screen(f.r.Form.Message), "\n")
		for l := range strings.SplitSeq(text, "\n") {
			f.msgLines = append(f.msgLines, wrapPlain(expandTabs(l), fw-4)...)
		}
	}
	lines := f.msgLines
	keep, chars := 0, 0
	for _, l := range lines {
		chars += utf8.RuneCountInString(l)
		if keep >= formMessageLines || chars > formMessageChars {
			break
		}
		keep++
	}
	keep = min(keep, max(room-2, 1))
	more := ""
	if keep < len(lines) {
		keep = max(min(keep, formMessageLines-1, room-3), 0)
		more = fmt.Sprintf("… %s", tools.Count(len(lines)-keep, "more line"))
	}
	label := truncate(fenceLabel("mcp:"+f.r.Form.Server, time.Time{}), fw-6)
	return indent(fenceFrame(f.c, fw, label, lines[:keep], more), "  ")
}

// windowAround returns at most n of lines, keeping lines[from:to] in view.
func windowAround(lines []string, from, to, n int) []string {
	n = max(n, 1)
	if len(lines) <= n {
		return lines
	}
	start := max(min(from, len(lines)-n), 0)
	if to-start > n {
		start = to - n
	}
	return lines[start : start+n]
}

// fieldLines draws the fields; from and to bound the focused field's lines.
func (f *elicitForm) fieldLines(w int) (out []string, from, to int) {
	st := &f.c.styles
	for i, fl := range f.r.Form.Fields {
		if i == f.focus {
			from = len(out)
		}
		mark := "  "
		if i == f.focus {
			mark = st.Bold.Render("> ")
		}
		label := oneLine(fl.Title)
		if fl.Required {
			label += "*"
		}
		val := oneLine(f.values[i])
		switch {
		case fl.Kind == "boolean":
			val = "[ ]"
			if f.values[i] == "true" {
				val = "[x]"
			}
		case fl.Kind == "enum":
			val = "‹ " + oneLine(enumLabel(fl, f.values[i])) + " ›"
		case f.secret[i]:
			val = strings.Repeat("•", utf8.RuneCountInString(f.values[i]))
		}
		if i == f.focus && fl.Kind != "boolean" && fl.Kind != "enum" {
			// The end of a long value, where the typing is, stays in view.
			room := w - ansi.StringWidth(mark+label+": ") - 1
			if ansi.StringWidth(val) > room && room > 1 {
				val = "…" + ansi.TruncateLeft(val, ansi.StringWidth(val)-room+1, "")
			}
			val += "▏"
		}
		line := mark + st.Bold.Render(label+": ") + val
		if h := fieldHint(fl, f.secret[i]); h != "" {
			line += "  " + st.Dim.Render(h)
		}
		out = append(out, truncate(line, w))
		if fl.Description != "" && i == f.focus {
			for _, l := range wrapPlain(oneLine(fl.Description), w-6) {
				out = append(out, "    "+st.Dim.Render(l))
			}
		}
		if f.errs[i] != "" {
			out = append(out, truncate("    "+st.Error.Render(f.errs[i]), w))
		}
		if i == f.focus {
			to = len(out)
		}
	}
	return out, from, to
}

// summary is exactly what y sends: each value as the server gets it
// (secrets masked), or that the server learns only of the accept.
func (f *elicitForm) summary(w int) []string {
	st := &f.c.styles
	server := oneLine(f.r.Form.Server)
	q := "Send to " + server + "?"
	if len(f.r.Form.Fields) == 0 {
		q = "Accept: MCP server " + server + " " + oneLine(cmpOr(f.r.Form.Title, "asks you")) + "?"
	}
	out := []string{truncate("  "+st.Warn.Render(q)+" "+st.Key.Render("y/n"), w)}
	sent := 0
	for i, fl := range f.r.Form.Fields {
		v, ok := f.content[fl.Name]
		if !ok {
			continue
		}
		sent++
		name := oneLine(fl.Title)
		if fl.Title != fl.Name {
			name += " (" + oneLine(fl.Name) + ")"
		}
		var text string
		if f.secret[i] {
			text = "•••••••• (" + tools.Count(utf8.RuneCountInString(strings.TrimSpace(f.values[i])), "character") + ", hidden)"
		} else {
			b, _ := json.Marshal(v)
			text = oneLine(string(b))
		}
		lines := wrapPlain(name+": "+text, w-6)
		if len(lines) > 4 {
			lines = append(lines[:3], "… "+tools.Count(utf8.RuneCountInString(text), "character")+" in all")
		}
		for j, l := range lines {
			if j == 0 {
				out = append(out, "    "+l)
			} else {
				out = append(out, "      "+l)
			}
		}
	}
	switch {
	case len(f.r.Form.Fields) == 0 && f.r.Form.Note != "":
		out = append(out, "    "+st.Dim.Render(truncate(oneLine(f.r.Form.Note), w-4)))
	case sent == 0:
		out = append(out, "    "+st.Dim.Render(truncate("nothing typed: "+server+" learns only that you accepted", w-4)))
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// footer names the keys that act now, wrapped to the width.
func (f *elicitForm) footer(w int) []string {
	k := &f.keys
	var keys []key.Binding
	switch {
	case f.content != nil:
		keys = []key.Binding{k.Send, k.Back, k.Decline}
	default:
		accept := k.Accept
		if f.focus >= len(f.values)-1 {
			accept.SetHelp("enter", "review and send")
		}
		keys = []key.Binding{accept, k.Decline, k.Cancel}
		if len(f.values) > 1 {
			keys = append(keys, k.Next, k.Prev)
		}
		if f.focus < len(f.r.Form.Fields) {
			switch f.r.Form.Fields[f.focus].Kind {
			case "enum":
				keys = append(keys, k.Choose)
			case "boolean":
				keys = append(keys, k.Toggle)
			}
		}
	}
	help := make([]string, 0, len(keys))
	for _, b := range keys {
		help = append(help, b.Help().Key+" "+b.Help().Desc)
	}
	var out []string
	for _, l := range wrapPlain(strings.Join(help, " · "), w-2) {
		out = append(out, "  "+f.c.styles.Dim.Render(l))
	}
	return out
}

func enumLabel(fl mcp.ElicitField, v string) string {
	for i, o := range fl.Options {
		if o == v && i < len(fl.Labels) && fl.Labels[i] != "" {
			return fl.Labels[i]
		}
	}
	if v == "" {
		return "choose"
	}
	return v
}

func fieldHint(fl mcp.ElicitField, secret bool) string {
	switch fl.Kind {
	case "multi":
		return "comma-separated: " + strings.Join(fl.Options, ", ")
	case "number", "integer":
		h := fl.Kind
		if fl.Min != nil && fl.Max != nil {
			h += fmt.Sprintf(" %v–%v", *fl.Min, *fl.Max)
		} else if fl.Min != nil {
			h += fmt.Sprintf(" ≥ %v", *fl.Min)
		} else if fl.Max != nil {
			h += fmt.Sprintf(" ≤ %v", *fl.Max)
		}
		return h
	case "string":
		if secret {
			return "hidden"
		}
		return oneLine(fl.Format)
	}
	return ""
}

// handleFormRequest queues a server's form and shows it when nothing else
// is on screen.
func (m Model) handleFormRequest(msg formRequestMsg) (Model, tea.Cmd) {
	m.forms = append(m.forms, msg.r)
	if m.form == nil {
		m = m.nextForm()
	}
	return m, waitForForm(m.formCh)
}

// handleFormAnswer sends the answer to the server and shows the next form.
func (m Model) handleFormAnswer(msg formAnsweredMsg) (Model, tea.Cmd) {
	r := msg.f.r
	select {
	case r.Reply <- msg.ans:
	default: // answered already
	}
	if m.form != msg.f {
		return m, nil
	}
	what := map[string]string{mcp.ElicitAccept: "sent", mcp.ElicitDecline: "declined", mcp.ElicitCancel: "cancelled"}[msg.ans.Action]
	if r.Ctx != nil && r.Ctx.Err() != nil {
		what += " (the server had stopped waiting)"
	}
	asked := "asked for input"
	if t := r.Form.Title; t != "" {
		asked = oneLine(t)
	}
	m = m.addBlock(noticeBlock("MCP server " + oneLine(r.Form.Server) + " " + asked + ": " + what))
	m.form = nil
	m = m.nextForm()
	return m, nil
}

func (m Model) nextForm() Model {
	for len(m.forms) > 0 {
		r := m.forms[0]
		m.forms = m.forms[1:]
		if r.Ctx == nil || r.Ctx.Err() == nil {
			m.form = newElicitForm(m.c, r)
			m.input.ta.blur()
			return m
		}
	}
	m.form = nil
	if m.pane == nil {
		m.input.ta.focus()
	}
	return m
}
