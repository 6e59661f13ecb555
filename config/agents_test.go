package config

import (
	"strings"
	"testing"
)

func TestAgentsSection(t *testing.T) {
	cfg, err := Parse("c.toml", []byte("[agents]\nparallel = 2\nmax_rounds = 5\nmax_tokens = 1000\ntimeout_s = 60\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Agents != (Agents{Parallel: 2, MaxRounds: 5, MaxTokens: 1000, TimeoutS: 60}) {
		t.Errorf("agents = %+v", cfg.Agents)
	}
	if _, err := Parse("c.toml", []byte("[agents]\nparallel = -1\n")); err == nil || !strings.Contains(err.Error(), "agents.parallel") {
		t.Errorf("a negative limit: %v; want an error naming agents.parallel", err)
	}
	if err := cfg.CheckProjectScope(); err == nil || !strings.Contains(err.Error(), "agents limits") {
		t.Errorf("a project config setting [agents]: %v; want it refused", err)
	}
}
