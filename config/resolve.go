package config

import "fmt"

// Settings is the effective model-server setup after the config, the
// environment and the flags are combined (flags win over the environment,
// which wins over the config).
type Settings struct {
	BaseURL string
	APIKey  string
	Model   string
	// ContextWindow in tokens (0: unknown, the agent's default applies).
	ContextWindow int
	Autonomy      string
	MaxToolRounds int
	// Vision says the model takes images; the prices are USD per million
	// prompt and completion tokens (0: unknown).
	Vision                  bool
	PriceInput, PriceOutput float64
	// Origin says where BaseURL came from, so an error can name the
	// setting to change.
	Origin string
}

// Overrides are the values given on the command line.
type Overrides struct {
	Model    string
	Autonomy string
}

// Resolve combines c with the environment (lookup returns a variable's
// value) and the command-line overrides.
func (c *Config) Resolve(lookup func(string) string, o Overrides) Settings {
	s := Settings{BaseURL: DefaultBaseURL, Origin: "the default (a local Ollama)", Autonomy: "ask", MaxToolRounds: c.MaxToolRounds}
	if p, ok := c.Providers[c.Provider]; ok && c.Provider != "" {
		s.BaseURL, s.Model, s.ContextWindow = p.BaseURL, p.Model, p.ContextWindow
		s.Vision, s.PriceInput, s.PriceOutput = p.Vision, p.PriceInput, p.PriceOutput
		s.Origin = fmt.Sprintf("base_url of [providers.%s] in %s", c.Provider, c.Path)
		if p.APIKeyEnv != "" {
			s.APIKey = lookup(p.APIKeyEnv)
		}
	}
	if c.Model != "" {
		s.Model = c.Model
	}
	if c.ContextWindow > 0 {
		s.ContextWindow = c.ContextWindow
	}
	if c.Autonomy != "" {
		s.Autonomy = c.Autonomy
	}
	if c.Vision != nil {
		s.Vision = *c.Vision
	}
	if c.PriceInput > 0 || c.PriceOutput > 0 {
		s.PriceInput, s.PriceOutput = c.PriceInput, c.PriceOutput
	}
	if v := lookup("OPENAI_BASE_URL"); v != "" {
		s.BaseURL, s.Origin = v, "OPENAI_BASE_URL"
	}
	if v := lookup("OPENAI_API_KEY"); v != "" {
		s.APIKey = v
	}
	if o.Model != "" {
		s.Model = o.Model
	}
	if o.Autonomy != "" {
		s.Autonomy = o.Autonomy
	}
	return s
}
