package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"myclaw/agent"
	"myclaw/config"
	"myclaw/tools"
	"myclaw/tools/mcp"
	"myclaw/tools/termtext"
)

// MCPCommand is what a `myclaw mcp` subcommand asks for.
type MCPCommand struct {
	// Sub is list, add, remove, login or logout.
	Sub string
	// Name is the server's name (all but list).
	Name string
	// Project: add to (or remove from) the workspace's .myclaw.toml
	// instead of the user's config.
	Project bool
	// Server is the table add writes.
	Server config.MCPServer
	// Timeout bounds each server's start-up in list.
	Timeout time.Duration
	// Redirects are addresses pasted during a login (see mcp.Options).
	Redirects <-chan string
}

// mcpScope is one config that declares MCP servers.
type mcpScope struct {
	name    string // "user" or "project"
	path    string
	cfg     *config.Config // nil: the file is missing
	trusted bool
	state   projectState
}

// RunMCP runs a `myclaw mcp` subcommand: results on stdout, progress (a
// login URL) on stderr.
func RunMCP(ctx context.Context, o Options, c MCPCommand, secrets map[string]string, stdout, stderr io.Writer) error {
	a, err := newApp(o, secrets)
	if err != nil {
		return err
	}
	defer a.close()
	user := mcpScope{name: "user", path: a.cfg.Path, cfg: a.cfg, trusted: true}
	project, err := a.projectScope()
	if err != nil {
		return err
	}
	if project.state.skipped != "" {
		fmt.Fprintln(stderr, "warning: "+projectSkipNotice(project.state.skipped))
	}
	switch c.Sub {
	case "list":
		return a.mcpList(ctx, c, user, project, stdout)
	case "add":
		return a.mcpAdd(c, user, project, stdout)
	case "remove":
		return a.mcpRemove(c, user, project, stdout)
	case "login":
		return a.mcpLogin(ctx, c, user, project, stdout, stderr)
	case "logout":
		return a.mcpLogout(c, user, project, stdout)
	}
	return &UsageError{Msg: fmt.Sprintf("unknown mcp command %q: want list, add, remove, login or logout", c.Sub)}
}

// projectScope reads the workspace's .myclaw.toml whether or not the
// folder is trusted: list shows its servers either way, and only a trusted
// one's are started.
func (a *app) projectScope() (mcpScope, error) {
	s := mcpScope{name: "project", path: filepath.Join(a.workspace.Dir(), projectConfigName)}
	st, src, err := a.readProjectConfig()
	if err != nil {
		return s, err
	}
	s.state, s.trusted = st, st.trusted
	if st.exists {
		if s.cfg, err = config.Parse(s.path, src); err != nil {
			return s, &agent.UserError{Msg: "The project config is not valid: " + err.Error(), Hint: "Fix " + s.path + "."}
		}
	}
	return s, nil
}

func (s mcpScope) has(name string) bool {
	if s.cfg == nil {
		return false
	}
	_, ok := s.cfg.MCP.Servers[name]
	return ok
}

// find returns the scope that declares name, preferring the user's.
func findServer(name string, scopes ...mcpScope) (mcpScope, error) {
	for _, s := range scopes {
		if s.has(name) {
			return s, nil
		}
	}
	var names []string
	for _, s := range scopes {
		if s.cfg != nil {
			names = append(names, s.cfg.MCPServerNames()...)
		}
	}
	if len(names) == 0 {
		return mcpScope{}, &agent.UserError{Msg: fmt.Sprintf("No MCP server %q: none is configured.", name), Hint: "Add one with myclaw mcp add NAME --url URL, or myclaw mcp add NAME -- COMMAND ARGS..."}
	}
	return mcpScope{}, &agent.UserError{Msg: fmt.Sprintf("No MCP server %q; configured: %s.", name, strings.Join(names, ", "))}
}

func (a *app) mcpAdd(c MCPCommand, user, project mcpScope, stdout io.Writer) error {
	if err := mcp.CheckName(c.Name); err != nil {
		return &UsageError{Msg: fmt.Sprintf("mcp add %q: %v", c.Name, err)}
	}
	target, other := user, project
	if c.Project {
		target, other = project, user
	}
	if other.has(c.Name) {
		return &agent.UserError{Msg: fmt.Sprintf("The %s config (%s) already declares an MCP server named %q: two servers cannot share a name.", other.name, other.path, c.Name), Hint: "Pick another name."}
	}
	if c.Project {
		if fi, err := os.Lstat(target.path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return &agent.UserError{Msg: target.path + " is a symlink: myclaw does not edit a project config through one.", Hint: "Edit it by hand."}
		}
	}
	text, err := config.AddMCPServer(target.path, c.Name, c.Server)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Added MCP server %s to %s:\n%s", c.Name, target.path, text)
	if c.Project {
		a.retrust(project, stdout)
	}
	if c.Server.URL != "" && !hasKey(c.Server.Headers, "Authorization") {
		fmt.Fprintf(stdout, "If it asks for a login: myclaw mcp login %s\n", c.Name)
	}
	for k, v := range c.Server.Headers {
		if !strings.Contains(v, "$") {
			fmt.Fprintf(stdout, "Note: the value of header %s is written in the file as given; to keep a key out of it, write it as ${VARIABLE} and set the variable.\n", k)
		}
	}
	fmt.Fprintf(stdout, "Check it with: myclaw mcp list\n")
	return nil
}

// retrust keeps the folder trusted after myclaw itself edited its
// .myclaw.toml, but only if the file it edited was the one trusted: a
// change made by someone else since stays untrusted.
func (a *app) retrust(before mcpScope, stdout io.Writer) {
	after, _, err := a.readProjectConfig()
	if err != nil {
		return
	}
	if !before.trusted {
		fmt.Fprintf(stdout, "This folder is not trusted: its %s is ignored until you review it and run myclaw --trust (or /trust).\n", projectConfigName)
		return
	}
	if err := a.trustStore().trust(a.workspace.Dir(), after.sum); err != nil {
		fmt.Fprintf(stdout, "Could not keep the folder trusted (%v): myclaw --trust trusts it again.\n", err)
	}
}

func (a *app) mcpRemove(c MCPCommand, user, project mcpScope, stdout io.Writer) error {
	target := user
	if c.Project {
		target = project
	}
	if !target.has(c.Name) {
		if !c.Project && project.has(c.Name) {
			return &agent.UserError{Msg: fmt.Sprintf("MCP server %q is in the project's config (%s), not yours.", c.Name, project.path), Hint: "Remove it from there with myclaw mcp remove --project " + c.Name + "."}
		}
		if c.Project && user.has(c.Name) {
			return &agent.UserError{Msg: fmt.Sprintf("MCP server %q is in your config (%s), not the project's.", c.Name, user.path), Hint: "Remove it with myclaw mcp remove " + c.Name + "."}
		}
		_, err := findServer(c.Name, target)
		return err
	}
	if c.Project {
		if fi, err := os.Lstat(target.path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return &agent.UserError{Msg: target.path + " is a symlink: myclaw does not edit a project config through one.", Hint: "Edit it by hand."}
		}
	}
	if err := config.RemoveMCPServer(target.path, c.Name); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Removed MCP server %s from %s.\n", c.Name, target.path)
	if c.Project && project.trusted {
		a.retrust(project, stdout)
	}
	other := project
	if c.Project {
		other = user
	}
	if !other.has(c.Name) {
		// Nothing uses the login any more: a token left behind is a
		// credential lying about.
		if had, err := mcp.ForgetLogin(a.stateDir, c.Name); err != nil {
			return err
		} else if had {
			fmt.Fprintf(stdout, "Its stored login is forgotten too.\n")
		}
	}
	return nil
}

// loginTarget finds the URL server name for login and logout.
func loginTarget(name string, user, project mcpScope) (mcpScope, error) {
	if err := mcp.CheckName(name); err != nil {
		return mcpScope{}, &UsageError{Msg: fmt.Sprintf("%q: %v", name, err)}
	}
	s, err := findServer(name, user, project)
	if err != nil {
		return s, err
	}
	srv := s.cfg.MCP.Servers[name]
	switch {
	case srv.URL == "":
		return s, &agent.UserError{Msg: fmt.Sprintf("MCP server %s is a local command: it has no login.", name)}
	case hasKey(srv.Headers, "Authorization"):
		return s, &agent.UserError{Msg: fmt.Sprintf("MCP server %s takes its credentials from the Authorization header in %s: it has no login.", name, s.path)}
	}
	return s, nil
}

func hasKey(m map[string]string, key string) bool {
	for k := range m {
		if strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}

func (a *app) mcpLogin(ctx context.Context, c MCPCommand, user, project mcpScope, stdout, stderr io.Writer) error {
	scope, err := loginTarget(c.Name, user, project)
	if err != nil {
		return err
	}
	if !scope.trusted {
		return &agent.UserError{Msg: fmt.Sprintf("MCP server %s is in %s, and this folder is not trusted.", c.Name, scope.path), Hint: "Review the file, then trust the folder with myclaw --trust (or /trust)."}
	}
	var sc mcp.ServerConfig
	for _, s := range a.mcpServers(scope.cfg) {
		if s.Name == c.Name {
			sc = s
		}
	}
	sc.Enabled = true // logging in to a disabled server is fine: it will be enabled later
	m := mcp.NewManager(tools.NewRegistry(), []mcp.ServerConfig{sc}, a.logf)
	defer m.Close()
	m.SetOptions(mcp.Options{
		StateDir: a.stateDir, Workspace: a.workspace.Dir(), Interactive: true, Login: c.Name, Redirects: c.Redirects,
		Notify: func(_, text string) { fmt.Fprintln(stderr, text) },
	})
	m.Start(ctx, nil)
	st := waitSettled(ctx, m)
	if err := ctx.Err(); err != nil {
		return err
	}
	switch {
	case st.State == mcp.StateRunning && st.Auth == mcp.AuthLoggedIn:
		fmt.Fprintf(stdout, "Logged in to MCP server %s (%s). The login is stored in %s; myclaw and myclaw -p use it.\n",
			c.Name, tools.Count(len(st.Tools), "tool"), mcp.LoginFile(a.stateDir, c.Name))
		return nil
	case st.State == mcp.StateRunning:
		fmt.Fprintf(stdout, "MCP server %s asked for no login: it runs without one (%s).\n", c.Name, tools.Count(len(st.Tools), "tool"))
		return nil
	}
	why := st.LastError
	if st.AuthNote != "" {
		why = st.AuthNote
	}
	return &agent.UserError{Msg: fmt.Sprintf("Logging in to MCP server %s failed: %s", c.Name, why)}
}

// waitSettled waits until the manager's one server is no longer starting
// (its start-up timeout bounds it) or ctx ends.
func waitSettled(ctx context.Context, m *mcp.Manager) mcp.ServerStatus {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		st := m.Status()
		if len(st) == 0 || st[0].State != mcp.StateStarting {
			if len(st) == 0 {
				return mcp.ServerStatus{}
			}
			return st[0]
		}
		select {
		case <-ctx.Done():
			return st[0]
		case <-tick.C:
		}
	}
}

func (a *app) mcpLogout(c MCPCommand, user, project mcpScope, stdout io.Writer) error {
	if _, err := loginTarget(c.Name, user, project); err != nil {
		var ue *agent.UserError
		if !errors.As(err, &ue) || !strings.HasPrefix(ue.Msg, "No MCP server") {
			return err
		}
		// A server gone from the config may have left its login behind.
	}
	had, err := mcp.ForgetLogin(a.stateDir, c.Name)
	switch {
	case err != nil:
		return err
	case had:
		fmt.Fprintf(stdout, "Logged out of MCP server %s: its stored login is forgotten.\n", c.Name)
	default:
		fmt.Fprintf(stdout, "MCP server %s has no stored login.\n", c.Name)
	}
	return nil
}

// mcpList starts every configured server (a trusted project's too) with a
// bounded start-up, and prints its state, tools and login.
func (a *app) mcpList(ctx context.Context, c MCPCommand, user, project mcpScope, stdout io.Writer) error {
	type row struct {
		scope  string
		status mcp.ServerStatus
		note   string // a state that is not the manager's
	}
	var rows []row
	type started struct {
		scope string
		m     *mcp.Manager
	}
	var managers []started
	disabled, remote := map[string]bool{}, map[string]bool{}
	defer func() {
		for _, s := range managers {
			s.m.Close()
		}
	}()
	for _, s := range []mcpScope{user, project} {
		if s.cfg == nil || len(s.cfg.MCP.Servers) == 0 {
			continue
		}
		if !s.trusted {
			for _, n := range s.cfg.MCPServerNames() {
				rows = append(rows, row{scope: s.name, status: mcp.ServerStatus{Name: n}, note: "not loaded (folder not trusted)"})
			}
			continue
		}
		servers := a.mcpServers(s.cfg)
		for i := range servers {
			disabled[servers[i].Name] = !servers[i].Enabled
			remote[servers[i].Name] = servers[i].URL != ""
			if servers[i].Timeout <= 0 || servers[i].Timeout > c.Timeout {
				servers[i].Timeout = c.Timeout
			}
		}
		slices.SortFunc(servers, func(x, y mcp.ServerConfig) int { return strings.Compare(x.Name, y.Name) })
		m := mcp.NewManager(tools.NewRegistry(), servers, a.logf)
		m.SetOptions(mcp.Options{StateDir: a.stateDir, Workspace: a.workspace.Dir()})
		m.Start(ctx, nil)
		managers = append(managers, started{s.name, m})
	}
	if len(managers) == 0 && len(rows) == 0 {
		fmt.Fprintln(stdout, "No MCP servers are configured. Add one with: myclaw mcp add NAME --url URL, or myclaw mcp add NAME -- COMMAND ARGS...")
		return nil
	}
	for _, sm := range managers {
		m := sm.m
		for {
			starting := false
			for _, st := range m.Status() {
				starting = starting || st.State == mcp.StateStarting
			}
			if !starting || ctx.Err() != nil {
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
		for _, st := range m.Status() {
			r := row{scope: sm.scope, status: st}
			if disabled[st.Name] {
				r.note = "disabled"
			}
			rows = append(rows, r)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tSCOPE\tSTATE\tTOOLS\tAUTH")
	var reasons []string
	for _, r := range rows {
		st := r.status
		state, toolsN, auth := string(st.State), fmt.Sprint(len(st.Tools)), string(st.Auth)
		if r.note != "" {
			state, toolsN = r.note, "-"
		}
		if st.State != mcp.StateRunning && r.note == "" {
			toolsN = "-"
		}
		switch {
		case auth == "" && (r.note != "" || !remote[st.Name]):
			auth = "-"
		case auth == "":
			auth = "none"
		case st.Auth == mcp.AuthNeeded || st.Auth == mcp.AuthExpired:
			auth += " (myclaw mcp login " + st.Name + ")"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", termtext.OneLine(st.Name, 64), r.scope, state, toolsN, auth)
		if st.State == mcp.StateFailed && st.LastError != "" {
			reasons = append(reasons, fmt.Sprintf("%s: %s", st.Name, termtext.OneLine(st.LastError, 300)))
		}
	}
	w.Flush()
	for _, r := range reasons {
		fmt.Fprintln(stdout, r)
	}
	return nil
}
