package ui

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"myclaw/tools/mcp"
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
	r   FormRequest
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
	Accept, Decline, Cancel, Next, Prev, Choose, Toggle key.Binding
}

func newFormKeys() formKeys {
	return formKeys{
		Accept:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		Decline: key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "decline")),
		Cancel:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Next:    key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab/↓", "next field")),
		Prev:    key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab/↑", "previous")),
		Choose:  key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←/→", "choose")),
		Toggle:  key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "toggle")),
	}
}

// elicitForm is the form of one FormRequest: a text per field, typed or
// chosen, checked by the field's Parse when sent.
type elicitForm struct {
	c      *common
	r      FormRequest
	keys   formKeys
	values []string
	errs   []string
	focus  int
}

func newElicitForm(c *common, r FormRequest) *elicitForm {
	f := &elicitForm{c: c, r: r, keys: newFormKeys(), values: make([]string, len(r.Form.Fields)), errs: make([]string, len(r.Form.Fields))}
	for i, fl := range r.Form.Fields {
		f.values[i] = fl.Default
	}
	return f
}

func (f *elicitForm) answer(ans mcp.ElicitAnswer) tea.Cmd {
	r := f.r
	return func() tea.Msg { return formAnsweredMsg{r: r, ans: ans} }
}

func (f *elicitForm) update(msg tea.KeyMsg) (*elicitForm, tea.Cmd) {
	k := &f.keys
	var field *mcp.ElicitField
	if f.focus < len(f.r.Form.Fields) {
		field = &f.r.Form.Fields[f.focus]
	}
	switch {
	case key.Matches(msg, k.Cancel):
		return f, f.answer(mcp.ElicitAnswer{Action: mcp.ElicitCancel})
	case key.Matches(msg, k.Decline):
		return f, f.answer(mcp.ElicitAnswer{Action: mcp.ElicitDecline})
	case key.Matches(msg, k.Accept):
		return f.submit()
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
	case msg.Type == tea.KeyRunes || msg.Type == tea.KeySpace:
		if len(f.values[f.focus]) < 4096 {
			f.values[f.focus] += strings.Map(func(r rune) rune {
				if r < 0x20 || r == 0x7f {
					return -1
				}
				return r
			}, string(msg.Runes))
			if msg.Type == tea.KeySpace && len(msg.Runes) == 0 {
				f.values[f.focus] += " "
			}
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

// submit checks every field; a form with errors stays open, showing them.
func (f *elicitForm) submit() (*elicitForm, tea.Cmd) {
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
		return f, nil
	}
	return f, f.answer(mcp.ElicitAnswer{Action: mcp.ElicitAccept, Content: content})
}

func (f *elicitForm) view() []string {
	st := &f.c.styles
	w := f.c.contentWidth()
	server := oneLine(f.r.Form.Server)
	title, note := f.r.Form.Title, f.r.Form.Note
	if title == "" {
		title, note = "asks you", "your answer goes to "+server+" only, never to the model"
	}
	head := st.PaneTitle.Render("MCP server "+server+" "+oneLine(title)) + st.Dim.Render(" · "+oneLine(note))
	if ansi.StringWidth(head) > w {
		head = st.PaneTitle.Render("MCP server "+server+" "+oneLine(title)) + "\n  " + st.Dim.Render(oneLine(note))
	}
	out := []string{
		st.PaneRule.Render(strings.Repeat("─", max(w, 1))),
	}
	for _, l := range strings.Split(head, "\n") {
		out = append(out, truncate(l, w))
	}
	for _, l := range wrapPlain(f.r.Form.Message, w-2) {
		out = append(out, "  "+l)
	}
	for i, fl := range f.r.Form.Fields {
		mark := "  "
		if i == f.focus {
			mark = st.Bold.Render("> ")
		}
		label := oneLine(fl.Title)
		if fl.Required {
			label += "*"
		}
		val := f.values[i]
		switch fl.Kind {
		case "boolean":
			val = "[ ]"
			if f.values[i] == "true" {
				val = "[x]"
			}
		case "enum":
			val = "‹ " + enumLabel(fl, f.values[i]) + " ›"
		default:
			if i == f.focus {
				val += "▏"
			}
		}
		line := mark + st.Bold.Render(label+": ") + oneLine(val)
		if h := fieldHint(fl); h != "" {
			line += "  " + st.Dim.Render(h)
		}
		out = append(out, truncate(line, w))
		if fl.Description != "" && i == f.focus {
			for _, l := range wrapPlain(fl.Description, w-6) {
				out = append(out, "    "+st.Dim.Render(l))
			}
		}
		if f.errs[i] != "" {
			out = append(out, truncate("    "+st.Error.Render(f.errs[i]), w))
		}
	}
	k := &f.keys
	var help []string
	keys := []key.Binding{k.Accept, k.Decline, k.Cancel}
	if len(f.r.Form.Fields) > 0 {
		keys = append(keys, k.Next, k.Choose, k.Toggle)
	}
	for _, b := range keys {
		help = append(help, b.Help().Key+" "+b.Help().Desc)
	}
	return append(out, truncate("  "+st.Dim.Render(strings.Join(help, " · ")), w))
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

func fieldHint(fl mcp.ElicitField) string {
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
		return fl.Format
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
	select {
	case msg.r.Reply <- msg.ans:
	default: // answered already
	}
	what := map[string]string{mcp.ElicitAccept: "sent", mcp.ElicitDecline: "declined", mcp.ElicitCancel: "cancelled"}[msg.ans.Action]
	if msg.r.Ctx != nil && msg.r.Ctx.Err() != nil {
		what += " (the server had stopped waiting)"
	}
	asked := "asked for input"
	if t := msg.r.Form.Title; t != "" {
		asked = oneLine(t)
	}
	m = m.addBlock(noticeBlock("MCP server " + oneLine(msg.r.Form.Server) + " " + asked + ": " + what))
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
