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
		m = m.addBlock(userBlock(text))
		m = m.addBlock(errorBlock("usage: !command", "runs the command in the workspace shell; its output goes to the model with your next message"))
		return m, nil
	case !ok:
		m = m.addBlock(userBlock(text))
		m = m.addBlock(errorBlock("running commands directly is not available here", ""))
		return m, nil
	case m.turn != nil:
		return m.keptWhileBusy(text), nil
	}
	return m.startRun(text, func(ctx context.Context, emit func(agent.Event)) error {
		return d.RunShell(ctx, command, emit)
	})
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

// ResourceMentioner is what a backend may offer for @server:uri
// mentions of MCP resources. *agent.Agent implements it.
type ResourceMentioner interface {
	// MentionResources attaches every resource ("server:uri") to the next
	// message, or none, with an error naming the one that failed.
	MentionResources(ctx context.Context, refs []string, emit func(agent.Event)) error
}

// attachAll attaches the mentions of a prompt before its turn starts:
// MCP resources first, all or nothing (a failure stops the turn before
// anything is sent), then files.
func attachAll(ctx context.Context, b Backend, mentions []string, emit func(agent.Event)) error {
	if ext, ok := b.(Extensions); ok && len(mentions) > 0 {
		var names []string
		for _, s := range ext.MCPServers() {
			names = append(names, s.Name)
		}
		var resources []string
		mentions, resources = splitResourceMentions(mentions, names)
		if len(resources) > 0 {
			rm, ok := b.(ResourceMentioner)
			if !ok {
				return &agent.UserError{Msg: "MCP resources cannot be attached here; the prompt was not sent."}
			}
			if err := rm.MentionResources(ctx, resources, emit); err != nil {
				return err
			}
		}
	}
	return attachMentions(ctx, b, mentions, emit)
}

// splitResourceMentions tells @server:uri mentions from file mentions:
// one is a resource's when what comes before its first ':' names a
// configured server, or could be a server name and a URI follows
// ("scheme://...": a server that is not configured is then an error, not a
// missing file).
func splitResourceMentions(mentions, servers []string) (files, resources []string) {
	known := map[string]bool{}
	for _, s := range servers {
		known[s] = true
	}
	for _, p := range mentions {
		server, rest, ok := strings.Cut(p, ":")
		switch {
		case ok && rest != "" && known[server]:
			resources = append(resources, p)
		case ok && rest != "" && len(server) > 1 && serverLike(server) && strings.Contains(rest, "://"):
			resources = append(resources, p)
		default:
			files = append(files, p)
		}
	}
	return files, resources
}

// serverLike reports whether s has the shape of an MCP server name.
func serverLike(s string) bool {
	for i, r := range s {
		alnum := r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		if !alnum && (i == 0 || r != '_' && r != '.' && r != '-') {
			return false
		}
	}
	return s != ""
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
