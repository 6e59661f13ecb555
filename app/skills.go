package app

import (
	"fmt"
	"strings"

	"myclaw/config"
	"myclaw/skills"
	"myclaw/tools"
	"myclaw/tools/builtin"
	"myclaw/tools/termtext"
	"myclaw/ui"
)

// loadSkills finds the user's and the workspace's skills and, when there
// are any, registers the skill tool that loads them. The workspace's are
// loadable only in a trusted folder; the others are listed in /skills with
// the reason.
func (a *app) loadSkills() {
	userDir := ""
	if d := config.File("skills"); d != "" {
		userDir = d
	}
	a.skills = skills.Discover(skills.Options{Root: a.workspace.Root(), UserDir: userDir, Trusted: a.project.trusted})
	for _, err := range a.skills.Errors() {
		a.notices = append(a.notices, ui.Notice{Text: "Skipped a skill: " + termtext.Strip(err.Error()), Warning: true})
	}
	all := a.skills.All()
	if len(all) == 0 {
		return
	}
	a.registry.MustRegister(builtin.NewSkill(a.skills))
	untrusted := 0
	for _, sk := range all {
		if sk.Project && !a.project.trusted {
			untrusted++
		}
	}
	if untrusted > 0 {
		how := "/trust"
		if a.opts.HasPrompt {
			how = "--trust"
		}
		a.notices = append(a.notices, ui.Notice{Text: fmt.Sprintf("Found %s in this folder, not loaded because it is not trusted: /skills lists them; %s to load them.", tools.Count(untrusted, "skill"), how), Warning: true})
	}
}

// SkillsReport implements ui.SkillsReporter: every skill found, where it
// came from, and why one cannot be loaded.
func (b *tuiBackend) SkillsReport() string { return skillsReport(b.app.skills) }

func skillsReport(set *skills.Set) string {
	all, errs := set.All(), set.Errors()
	if len(all)+len(errs) == 0 {
		return "No skills. A skill is a folder with a SKILL.md in .myclaw/skills/, .agents/skills/ or .claude/skills/ of the workspace (trusted folders only), or in " + config.File("skills") + "."
	}
	var b strings.Builder
	for _, sk := range all {
		state := "loadable"
		if !sk.Loadable() {
			state = "not loaded: " + sk.Why
		}
		fmt.Fprintf(&b, "%s — %s\n  from %s (%s)\n", termtext.Strip(sk.Name), termtext.OneLine(sk.Description, 160), termtext.Strip(sk.Origin), state)
		if len(sk.AllowedTools) > 0 {
			fmt.Fprintf(&b, "  allowed-tools: %s (informative: the rules and the autonomy level decide)\n", termtext.Strip(strings.Join(sk.AllowedTools, ", ")))
		}
	}
	for _, err := range errs {
		fmt.Fprintf(&b, "skipped: %s\n", termtext.Strip(err.Error()))
	}
	return strings.TrimRight(b.String(), "\n")
}
