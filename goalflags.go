package main

import (
	"errors"
	"flag"
	"strconv"
	"strings"
	"time"

	"myclaw/app"
)

// goalFlags adds the flags of a headless goal run.
func goalFlags(fs *flag.FlagSet, o *app.Options) {
	g := &o.Goal
	fs.StringVar(&g.Text, "goal", "", "work toward this `goal` headless until --check passes; exit 0 only when it does")
	fs.StringVar(&g.Check, "check", "", "with --goal: the `command` whose exit status alone says the goal is met (run sandboxed, no network)")
	// Zero is no budget at all, not the default: it is refused with the
	// negative numbers, where it used to leave the default in place.
	positive := func(dst *int) func(string) error {
		return func(s string) error {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return errors.New("must be a positive number")
			}
			*dst = n
			return nil
		}
	}
	fs.Func("max-iterations", "with --goal: stop after `N` iterations (default 10, or [goal] max_iterations)", positive(&g.MaxIterations))
	fs.Func("token-budget", "with --goal: stop once the run's requests used `N` tokens", positive(&g.TokenBudget))
	fs.Func("time-budget", "with --goal: stop once the run took this long (e.g. `30m`)", func(s string) error {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return errors.New("must be a positive duration such as 30m")
		}
		g.TimeBudget = d
		return nil
	})
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
	}
	return nil
}
