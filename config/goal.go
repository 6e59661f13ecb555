package config

import (
	"fmt"
	"time"
)

// Goal is [goal]: the defaults of goal runs (/goal, --goal), which the
// command line overrides.
type Goal struct {
	// MaxIterations bounds a run's iterations (default 10).
	MaxIterations int `toml:"max_iterations"`
	// TokenBudget bounds the tokens of a run's requests (0: none).
	TokenBudget int `toml:"token_budget"`
	// TimeBudget bounds a run's time, as "30m" or "1h30m" ("": none).
	TimeBudget string `toml:"time_budget"`
	// RollbackWorse takes back an iteration whose check counted more
	// failures than the one before it.
	RollbackWorse bool `toml:"rollback_worse"`
	// CheckNetwork lets the check command use the network.
	CheckNetwork bool `toml:"check_network"`
}

// TimeBudgetDuration is TimeBudget parsed (checked at load).
func (g Goal) TimeBudgetDuration() time.Duration {
	d, _ := time.ParseDuration(g.TimeBudget)
	return d
}

// check says which key is wrong and why ("" when none is).
func (g Goal) check() (string, string) {
	switch {
	case g.MaxIterations < 0:
		return "max_iterations", "must be positive"
	case g.TokenBudget < 0:
		return "token_budget", "must be positive"
	}
	if g.TimeBudget != "" {
		d, err := time.ParseDuration(g.TimeBudget)
		if err != nil || d <= 0 {
			return "time_budget", fmt.Sprintf("%q: want a positive duration such as \"30m\" or \"1h30m\"", g.TimeBudget)
		}
	}
	return "", ""
}
