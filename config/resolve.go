package config

import (
	"fmt"
	"slices"
)

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

// CredentialVars names the variables c reads keys from: every provider's
// api_key_env (not only the active one's: /model may switch), supra_llm's,
// and the client_secret_env of MCP OAuth clients. myclaw holds their values
// as credentials, whatever the variables are called. MCP header and env
// references are resolved with the servers.
func (c *Config) CredentialVars() []string {
	var names []string
	add := func(n string) {
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, name := range sortedKeys(c.Providers) {
		add(c.Providers[name].APIKeyEnv)
	}
	add(c.SupraLLM.APIKeyEnv)
	for _, name := range sortedKeys(c.MCP.Servers) {
		if o := c.MCP.Servers[name].OAuth; o != nil {
			add(o.ClientSecretEnv)
		}
	}
	return names
}

// CredentialURLs are the URLs of c that may carry a credential in their
// user info or query (a search_url with ?token=..., a base_url with
// https://user:key@host).
func (c *Config) CredentialURLs() []string {
	var urls []string
	for _, name := range sortedKeys(c.Providers) {
		urls = append(urls, c.Providers[name].BaseURL)
	}
	urls = append(urls, c.SupraLLM.BaseURL, c.Web.SearchURL)
	for _, name := range sortedKeys(c.MCP.Servers) {
		urls = append(urls, c.MCP.Servers[name].URL)
	}
	return urls
}
