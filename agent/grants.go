package agent

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"myclaw/approval"
	"myclaw/config"
	"myclaw/tools"
)

// saveRule writes the grant of dec as a rule to the user's config: for
// this workspace only, unless dec asks for every project. It says what it
// wrote where, for the audit log.
func (t *turn) saveRule(req approval.Request, dec approval.Decision) (string, error) {
	rule := approval.SessionRule(req)
	if dec.Network && req.Confinement != nil {
		yes := true
		rule.Network = &yes
	}
	scope := "every project"
	if !dec.UserWide && t.a.opts.Workspace != "" {
		rule.Workspace, scope = t.a.opts.Workspace, "this project"
	}
	path := t.a.opts.ConfigPath
	if path == "" {
		err := errors.New("no config file path is known")
		t.emit(NoticeEvent{Text: "Could not save the rule: " + err.Error() + ".", Warning: true})
		return "", err
	}
	text, err := config.SaveRule(path, rule, approval.CheckRule)
	if err != nil {
		t.emit(NoticeEvent{Text: "Could not save the rule: " + err.Error(), Warning: true})
		return "", err
	}
	if text == "" {
		t.emit(NoticeEvent{Text: fmt.Sprintf("%s already holds this rule (for %s).", path, scope)})
	} else {
		t.emit(NoticeEvent{Text: fmt.Sprintf("Saved for %s to %s (/permissions lists and removes rules):\n%s", scope, path, strings.TrimSpace(text))})
	}
	return fmt.Sprintf("for %s to %s: %s", scope, path, strings.ReplaceAll(rule.String(), "\n", ", ")), nil
}

// trustHints trusts the read-only hints of server's tools as listed now,
// for the rest of the session and, when a path is known, in the project.
func (t *turn) trustHints(server string) {
	a := t.a
	var listed []tools.Meta
	for _, tool := range a.opts.Registry.List() {
		listed = append(listed, tool.Meta())
	}
	g := approval.NewHintGrant(server, listed, a.opts.Now())
	a.opts.Policy.TrustHints(g)
	names := slices.Sorted(maps.Keys(g.Tools))
	what := fmt.Sprintf("Trusting the read-only hints of %s: its tools that claim to be read-only (%s) run without asking while their definitions stay the same", server, strings.Join(names, ", "))
	if a.opts.HintGrants == "" {
		t.emit(NoticeEvent{Text: what + " (this session only: no state directory)."})
		return
	}
	if err := approval.SaveHintGrant(a.opts.HintGrants, a.opts.Workspace, g); err != nil {
		t.emit(NoticeEvent{Text: what + " (this session only: " + err.Error() + ")."})
		return
	}
	t.emit(NoticeEvent{Text: what + "; saved for this project in " + a.opts.HintGrants + "."})
}
