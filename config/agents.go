package config

// Agents bounds the sub-agents the agent tool runs ([agents]).
type Agents struct {
	// Parallel is how many run at once (default 3).
	Parallel int `toml:"parallel"`
	// MaxRounds, MaxTokens and TimeoutS bound one sub-agent's work.
	MaxRounds int `toml:"max_rounds"`
	MaxTokens int `toml:"max_tokens"`
	TimeoutS  int `toml:"timeout_s"`
}

// negative names a key set below zero, or "".
func (a Agents) negative() string {
	for _, kv := range []struct {
		key string
		v   int
	}{{"parallel", a.Parallel}, {"max_rounds", a.MaxRounds}, {"max_tokens", a.MaxTokens}, {"timeout_s", a.TimeoutS}} {
		if kv.v < 0 {
			return kv.key
		}
	}
	return ""
}
