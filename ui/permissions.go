package ui

import (
	"fmt"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/agent"
	"myclaw/tools"
)

// Permissions is what /permissions needs from the backend: the session
// grants and saved rules with where each lives, and taking one back.
// *agent.Agent implements it.
type Permissions interface {
	Permissions() (list []agent.Permission, others int, err error)
	RevokePermission(p agent.Permission) error
}

// permissionsCommand runs /permissions and /permissions remove N.
func (m Model) permissionsCommand(args []string) (Model, tea.Cmd) {
	pb, ok := m.backend.(Permissions)
	if !ok {
		m = m.addBlock(errorBlock("permissions are not available here", ""))
		return m, nil
	}
	switch {
	case len(args) == 0:
		return m, func() tea.Msg {
			list, others, err := pb.Permissions()
			return commandResultMsg{draw: func(c *common) []string { return drawPermissions(c, list, others) }, err: err}
		}
	case len(args) == 2 && args[0] == "remove":
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 {
			break
		}
		return m, func() tea.Msg {
			list, _, err := pb.Permissions()
			if err != nil {
				return commandResultMsg{err: err}
			}
			if n > len(list) {
				return commandResultMsg{err: fmt.Errorf("there is no permission #%d (/permissions lists %s)", n, tools.Count(len(list), "permission"))}
			}
			p := list[n-1]
			if err := pb.RevokePermission(p); err != nil {
				return commandResultMsg{err: err}
			}
			what := "ended the session grant"
			switch {
			case p.Server != "":
				what = "removed from " + p.Where
			case p.Scope != "session":
				what = "removed the rule from " + p.Where + " (and its session grant)"
			}
			return commandResultMsg{draw: textDraw(what + ": " + describeRule(p) + "; the next such call asks")}
		}
	}
	m = m.addBlock(errorBlock("usage: /permissions [remove N]", "lists the session grants and saved rules; remove N takes one back"))
	return m, nil
}

// describeRule is a rule on one line: "allow shell_run matching go test *".
func describeRule(p agent.Permission) string {
	if p.Server != "" {
		return "trust the read-only hints of " + oneLine(p.Server) + " (" + oneLine(strings.Join(p.Tools, ", ")) + ")"
	}
	s := p.Decision + " " + oneLine(p.Tool)
	if p.Match != "" {
		s += " matching " + oneLine(p.Match)
	}
	if p.Network != nil {
		if *p.Network {
			s += ", with network"
		} else {
			s += ", sandboxed without network"
		}
	}
	return s
}

func drawPermissions(c *common, list []agent.Permission, others int) []string {
	st := &c.styles
	w := c.contentWidth()
	var out []string
	if len(list) == 0 {
		out = append(out, "  "+st.Dim.Render("no session grants or saved rules: every call follows the autonomy level"))
	}
	for i, p := range list {
		num := fmt.Sprintf("%3d  ", i+1)
		for j, l := range wrapPlain(describeRule(p), w-len(num)-2) {
			if j == 0 {
				out = append(out, "  "+st.Key.Render(num)+l)
			} else {
				out = append(out, "  "+pad("", len(num))+l)
			}
		}
		scope := map[string]string{"session": "session grant", "project": "saved for this project", "user": "saved for every project"}[p.Scope]
		for _, l := range wrapPlain(scope+" · "+oneLine(p.Where), w-len(num)-2) {
			out = append(out, "  "+pad("", len(num))+st.Dim.Render(l))
		}
	}
	if others > 0 {
		out = append(out, "  "+st.Dim.Render(tools.Count(others, "rule")+" saved for other projects (not applied here)"))
	}
	if len(list) > 0 {
		out = append(out, "  "+st.Dim.Render("/permissions remove N takes one back"))
	}
	return out
}
