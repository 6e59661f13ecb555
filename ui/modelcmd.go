package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/tools/termtext"
)

// modelsMsg brings the server's models, for /model and its completion.
type modelsMsg struct{ list []string }

// fetchModels asks the server for its models behind the first frame; a
// server that cannot list them leaves the list empty.
func fetchModels(base context.Context, b Backend) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(base, 15*time.Second)
		defer cancel()
		list, err := b.Models(ctx)
		if err != nil {
			return nil
		}
		return modelsMsg{list: list}
	}
}

// hasModel reports whether the server offers name (Ollama's ":latest" may
// be left out).
func hasModel(list []string, name string) bool {
	return slices.ContainsFunc(list, func(m string) bool { return isModel(m, name) })
}

// completeModel completes prefix to the one model it starts, or to the
// longest prefix its models share. A name that cannot be typed as itself
// (a blank, a control or hidden character) is not completed to: the
// input would hold another name; the /model picker offers it.
func completeModel(list []string, prefix string) (string, bool) {
	var hits []string
	for _, m := range list {
		if strings.HasPrefix(m, prefix) && !strings.ContainsFunc(m, unicode.IsSpace) && !termtext.HasHidden(m) {
			hits = append(hits, m)
		}
	}
	if len(hits) == 0 {
		return "", false
	}
	common := hits[0]
	for _, h := range hits[1:] {
		for !strings.HasPrefix(h, common) {
			common = common[:len(common)-1]
		}
	}
	return common, len(common) > len(prefix) || len(hits) == 1
}

// ModelSaver is what a backend may offer for /model NAME --save: make the
// model the default in the user's config. It says what it wrote where.
type ModelSaver interface {
	SaveModel(name string) (string, error)
}

// modelCommand runs /model: with no argument a picker of the server's
// models; with a name, a switch to it, refused (keeping the old one) when
// the server does not offer it.
func (m Model) modelCommand(args []string, usage func() (Model, tea.Cmd)) (Model, tea.Cmd) {
	b, base := m.backend, m.shared.base
	save := len(args) == 2 && args[1] == "--save"
	if save {
		args = args[:1]
	}
	saver, canSave := b.(ModelSaver)
	if save && !canSave {
		m = m.addBlock(errorBlock("the model cannot be saved here", "set model in the config"))
		return m, nil
	}
	switch len(args) {
	case 0:
		return m, func() tea.Msg {
			ctx, cancel := context.WithTimeout(base, 15*time.Second)
			defer cancel()
			list, err := b.Models(ctx)
			return modelListMsg{cur: b.Model(), list: list, err: err}
		}
	case 1:
		return m, switchModel(base, b, args[0], save, saver)
	}
	return usage()
}

// switchModel switches to name, refused (keeping the old one) when the
// server does not offer it; save also makes it the default.
func switchModel(base context.Context, b Backend, name string, save bool, saver ModelSaver) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(base, 15*time.Second)
		defer cancel()
		list, err := b.Models(ctx)
		if err == nil && len(list) > 0 && !hasModel(list, name) {
			return commandResultMsg{err: fmt.Errorf("the server has no model %q, so the model stays %s; it offers: %s", name, b.Model(), strings.Join(list, ", "))}
		}
		b.SetModel(name)
		text := "model set to " + b.Model() + " for this session (/model " + name + " --save makes it the default)"
		if save {
			where, err := saver.SaveModel(name)
			if err != nil {
				return commandResultMsg{draw: textDraw("model set to " + b.Model() + " for this session"), err: err, refresh: true}
			}
			text = "model set to " + b.Model() + ", and saved as the default: " + where
		}
		return commandResultMsg{draw: textDraw(text), err: b.CheckServer(ctx), refresh: true}
	}
}

// modelListMsg brings the server's models for the /model picker.
type modelListMsg struct {
	cur  string
	list []string
	err  error
}

// isModel reports whether l names the model cur (Ollama's ":latest" may
// be left out of cur).
func isModel(l, cur string) bool { return l == cur || strings.TrimSuffix(l, ":latest") == cur }

// modelPicker offers the server's models to pick one for the session,
// the one in use first selected; without a list it says why.
func (m Model) modelPicker(msg modelListMsg) (Model, tea.Cmd) {
	text := "model: " + msg.cur
	switch {
	case msg.err != nil:
		text += "\n(the server's models could not be listed: " + msg.err.Error() + ")\n/model NAME switches"
	case len(msg.list) == 0:
		text += "\n(the server lists no models)\n/model NAME switches"
	}
	if msg.err != nil || len(msg.list) == 0 {
		m = m.addBlock(newFuncBlock(textDraw(text)))
		return m, nil
	}
	items := make([]pickItem, 0, len(msg.list))
	sel := 0
	for i, l := range msg.list {
		label := oneLine(l)
		if isModel(l, msg.cur) {
			label += "  (in use)"
			sel = i
		}
		items = append(items, pickItem{label: label, value: l})
	}
	b, base, cur := m.backend, m.shared.base, msg.cur
	m.c.models = msg.list
	m.picker = &picker{c: m.c, title: "Pick a model for this session (/model NAME --save also makes it the default)",
		items: items, sel: sel, filterable: true, verb: "takes it", pick: func(name string) tea.Cmd {
			if isModel(name, cur) {
				return nil
			}
			return switchModel(base, b, name, false, nil)
		}}
	return m, nil
}
