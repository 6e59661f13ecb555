package main

import (
	"flag"
	"strings"

	"myclaw/app"
)

// goalFlags adds the flags of a headless goal run.
func goalFlags(fs *flag.FlagSet, o *app.Options) {
	g := &o.Goal
	fs.StringVar(&g.Text, "goal", "", "work toward this `goal` headless until --check passes; exit 0 only when it does")
	fs.StringVar(&g.Check, "check", "", "with --goal: the `command` whose exit status alone says the goal is met (run sandboxed, no network)")
	fs.IntVar(&g.MaxIterations, "max-iterations", 0, "with --goal: stop after `N` iterations (default 10, or [goal] max_iterations)")
	fs.IntVar(&g.TokenBudget, "token-budget", 0, "with --goal: stop once the run's requests used `N` tokens")
	fs.DurationVar(&g.TimeBudget, "time-budget", 0, "with --goal: stop once the run took this long (e.g. `30m`)")
	fs.BoolVar(&g.CheckNetwork, "check-network", false, "with --goal: let the check use the network")
	fs.BoolVar(&g.RollbackWorse, "rollback-worse", false, "with --goal: take back an iteration whose check got worse")
}

// goalUsage checks the goal flags together; nil when no goal is asked for
// and none of its flags is set.
func goalUsage(o app.Options) error {
	g := o.Goal
	asked := g.Text != "" || g.Check != ""
	extra := g.MaxIterations != 0 || g.TokenBudget != 0 || g.TimeBudget != 0 || g.CheckNetwork || g.RollbackWorse
	switch {
	case !asked && extra:
		return &app.UsageError{Msg: "--max-iterations, --token-budget, --time-budget, --check-network and --rollback-worse go with --goal"}
	case !asked:
		return nil
	case o.HasPrompt:
		return &app.UsageError{Msg: "use -p or --goal, not both: --goal's text is the prompt"}
	case strings.TrimSpace(g.Text) == "":
		return &app.UsageError{Msg: "--check needs --goal TEXT: what to work toward"}
	case strings.TrimSpace(g.Check) == "":
		return &app.UsageError{Msg: "--goal needs --check CMD: the command whose exit status says the goal is met"}
	case g.MaxIterations < 0 || g.TokenBudget < 0 || g.TimeBudget < 0:
		return &app.UsageError{Msg: "--max-iterations, --token-budget and --time-budget must be positive"}
	}
	return nil
}
