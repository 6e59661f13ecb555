package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/config"
	"myclaw/tools"
	"myclaw/tools/mcp"
	"myclaw/tools/proc"
	"myclaw/tools/secret"
)

// mcpServers turns the [mcp.servers] tables into the manager's configs.
// Environment and header values may name variables ($GITHUB_TOKEN),
// including the secrets taken out of myclaw's own environment. What they
// name is a credential (a.reference): only the server whose env names it
// gets it, and no output shows it.
func (a *app) mcpServers(cfg *config.Config) []mcp.ServerConfig {
	var out []mcp.ServerConfig
	for name, s := range cfg.MCP.Servers {
		addURLSecrets(s.URL)
		env := map[string]string{}
		for k, v := range s.Env {
			env[k] = os.Expand(v, a.reference)
			// A value written in the config for a variable named like a
			// secret is one too.
			if proc.IsSecretName(k) {
				secret.Add(env[k])
			}
		}
		headers, unset := mcp.ExpandHeaders(s.Headers, a.reference)
		for k, v := range headers {
			addHeaderSecret(k, v)
		}
		var oauth *mcp.OAuthConfig
		if o := s.OAuth; o != nil {
			oauth = &mcp.OAuthConfig{ClientID: o.ClientID, Scopes: o.Scopes, CallbackPort: o.CallbackPort}
			if o.ClientSecretEnv != "" {
				if oauth.ClientSecret = a.credential(o.ClientSecretEnv); oauth.ClientSecret == "" {
					unset = append(unset, "$"+o.ClientSecretEnv)
				}
			}
		}
		timeout := time.Duration(s.TimeoutS) * time.Second
		out = append(out, mcp.ServerConfig{
			Name: name, Command: s.Command, Args: s.Args, Env: env, URL: s.URL,
			Enabled: s.IsEnabled(), Timeout: timeout, Trust: s.Trust, Dir: a.workspace.Dir(),
			Headers: headers, Unset: unset, OAuth: oauth, LogLevel: s.LogLevel, Sampling: s.Sampling,
		})
	}
	return out
}

// startMCP starts the configured MCP servers in the background.
func (a *app) startMCP(ctx context.Context, onChange func(mcp.ServerStatus)) {
	servers := a.mcpServers(a.cfg)
	for _, pc := range a.projectConfigs() {
		servers = append(servers, a.mcpServers(pc)...)
	}
	a.startServers(ctx, servers, onChange)
}

func (a *app) startServers(ctx context.Context, servers []mcp.ServerConfig, onChange func(mcp.ServerStatus)) {
	if len(servers) == 0 {
		return
	}
	m := mcp.NewManager(a.registry, servers, a.logf)
	o := a.mcpOpts
	o.StateDir, o.Workspace = a.stateDir, a.workspace.Dir()
	if o.Sample == nil {
		// Nobody to ask: a server with sampling = true is declined, and
		// the audit log says so.
		o.Sample = func(_ context.Context, r mcp.SamplingRequest) (mcp.SamplingAnswer, error) {
			a.auditSampling(r, "deny", "headless")
			return mcp.SamplingAnswer{}, mcp.ErrSamplingDeclined
		}
	}
	m.SetOptions(o)
	a.mcpMu.Lock()
	a.mcps = append(a.mcps, m)
	a.mcpMu.Unlock()
	m.Start(ctx, onChange)
}

// auditSampling records a decision on a server's request to use the
// model in the audit log, beside the approvals of calls.
func (a *app) auditSampling(r mcp.SamplingRequest, decision, by string) {
	if a.audit == nil {
		return
	}
	req, _ := json.Marshal(r)
	e := approval.AuditEntry{Tool: "mcp:" + r.Server + "/sampling", ArgsSHA: approval.ArgsDigest(req), Decision: decision, By: by,
		Summary:   fmt.Sprintf("MCP server %s asks to use the model (messages: %d, at most %d tokens)", r.Server, len(r.Messages), r.MaxTokens),
		Workspace: a.workspace.Dir()}
	if err := a.audit.Append(e); err != nil {
		a.logf("audit log: %v", err)
	}
}

// mcpStatus lists every MCP server's state.
func (a *app) mcpStatus() []mcp.ServerStatus {
	a.mcpMu.Lock()
	defer a.mcpMu.Unlock()
	var out []mcp.ServerStatus
	for _, m := range a.mcps {
		out = append(out, m.Status()...)
	}
	return out
}

// restartMCP restarts the server called name.
func (a *app) restartMCP(ctx context.Context, name string) error {
	m, err := a.mcpOwner(name)
	if err != nil {
		return err
	}
	return m.Restart(ctx, name)
}

// loginMCP logs in to the server called name in the browser.
func (a *app) loginMCP(ctx context.Context, name string) error {
	m, err := a.mcpOwner(name)
	if err != nil {
		return err
	}
	return m.Login(ctx, name)
}

// logoutMCP forgets the login of the server called name.
func (a *app) logoutMCP(ctx context.Context, name string) error {
	m, err := a.mcpOwner(name)
	if err != nil {
		return err
	}
	return m.Logout(ctx, name)
}

// resourceReader is the tool that reads the resources of the server
// called name (@name:uri).
func (a *app) resourceReader(name string) (tools.Tool, error) {
	m, err := a.mcpOwner(name)
	if err != nil {
		return nil, err
	}
	return m.ResourceReader(name)
}

// mcpOwner finds the manager that runs the server called name.
func (a *app) mcpOwner(name string) (*mcp.Manager, error) {
	a.mcpMu.Lock()
	var names []string
	var owner *mcp.Manager
	for _, m := range a.mcps {
		for _, s := range m.Status() {
			names = append(names, s.Name)
			if s.Name == name {
				owner = m
			}
		}
	}
	a.mcpMu.Unlock()
	if owner == nil {
		if len(names) == 0 {
			return nil, fmt.Errorf("no MCP server %q: none is configured", name)
		}
		return nil, fmt.Errorf("no MCP server %q; configured: %s", name, strings.Join(names, ", "))
	}
	return owner, nil
}

// waitMCP waits until no MCP server is still starting (each has its own
// start-up timeout) or ctx ends.
func (a *app) waitMCP(ctx context.Context) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		starting := false
		for _, s := range a.mcpStatus() {
			starting = starting || s.State == mcp.StateStarting
		}
		if !starting {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// rememberTools keeps the tools of a server that runs, for withdrawn.
func (a *app) rememberTools(s mcp.ServerStatus) {
	a.toolsMu.Lock()
	defer a.toolsMu.Unlock()
	if a.lastTools == nil {
		a.lastTools = map[string][]string{}
	}
	a.lastTools[s.Name] = append([]string(nil), s.Tools...)
}

// withdrawn lists the tools of the MCP servers that are down (withdrawn
// from the catalog) and those left out for their size, with the reason,
// for the agent's /tools.
func (a *app) withdrawn() []agent.Withdrawn {
	a.toolsMu.Lock()
	defer a.toolsMu.Unlock()
	var out []agent.Withdrawn
	for _, s := range a.mcpStatus() {
		for _, h := range s.Hidden {
			out = append(out, agent.Withdrawn{Meta: tools.Meta{Name: h.Name, Source: tools.SourceMCP}, Why: h.Why})
		}
		if s.State != mcp.StateFailed && s.State != mcp.StateStopped {
			continue
		}
		why := fmt.Sprintf("the MCP server %s is %s", s.Name, s.State)
		if s.LastError != "" {
			why += ": " + s.LastError
		}
		for _, name := range a.lastTools[s.Name] {
			out = append(out, agent.Withdrawn{Meta: tools.Meta{Name: name, Source: tools.SourceMCP}, Why: why})
		}
	}
	return out
}
