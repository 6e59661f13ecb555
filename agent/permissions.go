package agent

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"myclaw/approval"
	"myclaw/config"
)

// Permission is a session grant or a saved rule, as /permissions lists it.
type Permission struct {
	approval.Rule
	// Scope is "session", "project" (a rule saved for this workspace) or
	// "user" (a rule for every project).
	Scope string
	// Where says where it lives: "this session", or the config file and
	// line.
	Where string
	// Server is set, instead of a rule, for the trust of an MCP server's
	// read-only hints in this project; Tools are the tools it covers.
	Server string
	Tools  []string
}

// Permissions lists the session grants, then this project's saved rules,
// then the user-wide ones. others counts the rules saved for other
// projects (kept in the same file, not applied here).
func (a *Agent) Permissions() (list []Permission, others int, err error) {
	for _, g := range a.opts.Policy.Grants() {
		list = append(list, Permission{Rule: g, Scope: "session", Where: "this session (gone when myclaw exits)"})
	}
	if hp := a.opts.HintGrants; hp != "" {
		grants, err := approval.LoadHintGrants(hp, a.opts.Workspace)
		if err != nil {
			return list, 0, err
		}
		for _, g := range grants {
			list = append(list, Permission{Scope: "project", Where: hp, Server: g.Server, Tools: slices.Sorted(maps.Keys(g.Tools))})
		}
	}
	path := a.opts.ConfigPath
	if path == "" {
		return list, 0, nil
	}
	saved, err := config.ReadRules(path)
	if err != nil {
		return list, 0, err
	}
	var user []Permission
	for _, r := range saved {
		where := path
		if r.Line > 0 {
			where = fmt.Sprintf("%s:%d", path, r.Line)
		}
		switch {
		case r.Workspace == "":
			user = append(user, Permission{Rule: r.Rule, Scope: "user", Where: where})
		case r.AppliesIn(a.opts.Workspace):
			list = append(list, Permission{Rule: r.Rule, Scope: "project", Where: where})
		default:
			others++
		}
	}
	return append(list, user...), others, nil
}

// RevokePermission takes p back: a session grant ends now; a saved rule is
// removed from its file and stops applying, and so does the session grant
// the same key press made.
func (a *Agent) RevokePermission(p Permission) error {
	pol := a.opts.Policy
	if p.Server != "" {
		ok, err := approval.RemoveHintGrant(a.opts.HintGrants, a.opts.Workspace, p.Server)
		if err == nil && !ok {
			err = errors.New("that hint grant is no longer there")
		}
		pol.UntrustHints(p.Server)
		return err
	}
	if p.Scope == "session" {
		if !pol.Revoke(p.Rule) {
			return errors.New("that session grant is no longer there")
		}
		return nil
	}
	if err := config.RemoveRule(a.opts.ConfigPath, p.Rule); err != nil {
		return err
	}
	pol.DropRule(p.Rule)
	grant := p.Rule
	grant.Workspace = ""
	pol.Revoke(grant)
	return nil
}
