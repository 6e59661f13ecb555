package ui

import (
	"context"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/agent"
)

// Direct is what a backend may offer for input that runs without the
// model: `!command` and `@path` mentions. *agent.Agent implements it.
type Direct interface {
	// RunShell runs a command the user typed, without asking, through the
	// shell tool's path (containment, caps, scrubbed environment); its
	// output goes to the model with the next message.
	RunShell(ctx context.Context, command string, emit func(agent.Event)) error
	// Mention attaches a workspace file (or, for "dir/", a listing) to the
	// next message, exactly as the model's read tool returns it.
	Mention(ctx context.Context, path string, emit func(agent.Event)) error
}

// submitShell runs "!command".
func (m Model) submitShell(text string) (Model, tea.Cmd) {
	command := strings.TrimSpace(strings.TrimPrefix(text, "!"))
	d, ok := m.backend.(Direct)
	switch {
	case command == "":
		m.addBlock(userBlock(text))
		m.addBlock(errorBlock("usage: !command", "runs the command in the workspace shell; its output goes to the model with your next message"))
		return m, nil
	case !ok:
		m.addBlock(userBlock(text))
		m.addBlock(errorBlock("running commands directly is not available here", ""))
		return m, nil
	case m.turn != nil:
		return m.keptWhileBusy(text), nil
	}
	return m.startRun(text, func(ctx context.Context, emit func(agent.Event)) error {
		return d.RunShell(ctx, command, emit)
	})
}

// keptWhileBusy puts a command back in the input while a turn runs.
func (m Model) keptWhileBusy(text string) Model {
	m.input.setValue(text)
	m.addBlock(errorBlock("a turn is running: your command is kept in the input",
		"press "+m.c.keys.Cancel.Help().Key+" to cancel the turn, or wait for it to end and press "+m.c.keys.Send.Help().Key))
	return m
}

// mentionsOf finds the @path mentions of a prompt: "@" at the start of a
// word, up to the next space, trailing punctuation left out.
func (m Model) mentionsOf(prompt string) []string {
	if _, ok := m.backend.(Direct); !ok {
		return nil
	}
	return parseMentions(prompt)
}

func parseMentions(prompt string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.Fields(prompt) {
		if !strings.HasPrefix(w, "@") {
			continue
		}
		p := strings.TrimRight(w[1:], ",;:!?)\"'`")
		if strings.HasSuffix(p, ".") && !strings.HasSuffix(p, "..") {
			p = strings.TrimRight(p, ".")
		}
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// attachMentions attaches each mention before the turn starts; one that
// fails shows as a failed chip and is left out, and the turn goes on.
func attachMentions(ctx context.Context, b Backend, mentions []string, emit func(agent.Event)) error {
	d, ok := b.(Direct)
	if !ok {
		return nil
	}
	for _, p := range mentions {
		if err := d.Mention(ctx, p, emit); err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}
