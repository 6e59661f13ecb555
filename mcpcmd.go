package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"myclaw/app"
	"myclaw/config"
)

const mcpUsageText = `Usage:
  myclaw mcp list [--timeout 15s]          the MCP servers, their state, tools and login
                                           (each is started, bounded by the timeout)
  myclaw mcp add [--project] [--env K=V]... NAME -- COMMAND [ARGS...]
                                           add a local (stdio) server
  myclaw mcp add [--project] NAME --url URL [--header K=V]... [--client-id ID [--client-secret-env VAR]]
                                           add a remote (streamable HTTP) server
  myclaw mcp remove [--project] NAME       remove a server (and forget its login)
  myclaw mcp login NAME                    log in to a remote server with OAuth in the browser
                                           ($BROWSER, else the system's); the URL is printed too
  myclaw mcp logout NAME                   forget a server's stored login

add and remove edit your config ($XDG_CONFIG_HOME/myclaw/config.toml, or --config FILE),
or with --project the workspace's .myclaw.toml.

Flags:
`

// envNameRE is the shape of a variable name given to --env.
var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// runMCP parses `myclaw mcp SUBCOMMAND ...` and runs it.
func runMCP(ctx context.Context, args []string, secrets map[string]string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return &app.UsageError{Msg: "mcp needs a command: list, add, remove, login or logout"}
	}
	sub, args := args[0], args[1:]
	var o app.Options
	c := app.MCPCommand{Sub: sub, Timeout: 15 * time.Second}
	fs := flag.NewFlagSet("myclaw mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.ConfigPath, "config", "", "config `file` (default $XDG_CONFIG_HOME/myclaw/config.toml)")
	fs.StringVar(&o.Workspace, "workspace", "", "workspace `dir` whose .myclaw.toml counts (default: the current directory)")
	var serverURL, clientID, secretEnv string
	headers, env := map[string]string{}, map[string]string{}
	var command []string
	dashDash := false
	switch sub {
	case "-h", "--help", "-help", "help":
		fmt.Fprint(stderr, mcpUsageText)
		printFlags(stderr, fs)
		return errHelp
	case "list":
		fs.DurationVar(&c.Timeout, "timeout", c.Timeout, "bound each server's start-up to this `duration`")
	case "add":
		if i := slices.Index(args, "--"); i >= 0 {
			command, args, dashDash = args[i+1:], args[:i], true
		}
		fs.BoolVar(&c.Project, "project", false, "write the workspace's .myclaw.toml instead of your config")
		fs.StringVar(&serverURL, "url", "", "the `URL` of a streamable HTTP server")
		fs.Func("header", "a `K=V` header sent with every request (repeatable; V may name ${VARIABLES})", keyValue("--header", headers))
		fs.Func("env", "a `K=V` variable for a local server (repeatable; V may name ${VARIABLES})", keyValue("--env", env))
		fs.StringVar(&clientID, "client-id", "", "an OAuth client `id` registered beforehand (default: dynamic registration)")
		fs.StringVar(&secretEnv, "client-secret-env", "", "the `variable` holding that client's secret")
	case "remove":
		fs.BoolVar(&c.Project, "project", false, "remove it from the workspace's .myclaw.toml")
	case "login", "logout":
	default:
		return &app.UsageError{Msg: fmt.Sprintf("mcp: unknown command %q: want list, add, remove, login or logout", sub)}
	}
	// Flags may come before or after NAME.
	var names []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stderr, mcpUsageText)
				printFlags(stderr, fs)
				return errHelp
			}
			return &app.UsageError{Msg: "mcp " + sub + ": " + err.Error()}
		}
		if fs.NArg() == 0 {
			break
		}
		names, args = append(names, fs.Arg(0)), fs.Args()[1:]
	}
	switch {
	case sub == "list" && len(names) > 0:
		return &app.UsageError{Msg: fmt.Sprintf("mcp list: unexpected argument %q", strings.Join(names, " "))}
	case sub == "list" && c.Timeout <= 0:
		return &app.UsageError{Msg: "mcp list: --timeout must be positive"}
	case sub != "list" && len(names) == 0:
		return &app.UsageError{Msg: "mcp " + sub + " needs the server's NAME"}
	case sub != "list" && len(names) > 1:
		hint := ""
		if sub == "add" {
			hint = " (put the server's command after --)"
		}
		return &app.UsageError{Msg: fmt.Sprintf("mcp %s: unexpected argument %q%s", sub, strings.Join(names[1:], " "), hint)}
	}
	if len(names) == 1 {
		c.Name = names[0]
	}
	if sub == "add" {
		s, err := serverOf(serverURL, command, dashDash, headers, env, clientID, secretEnv)
		if err != nil {
			return err
		}
		c.Server = s
	}
	if sub == "login" {
		c.Redirects = lines(stdin)
	}
	return app.RunMCP(ctx, o, c, secrets, stdout, stderr)
}

// serverOf checks what mcp add was given and makes the config table.
func serverOf(serverURL string, command []string, dashDash bool, headers, env map[string]string, clientID, secretEnv string) (config.MCPServer, error) {
	bad := func(msg string) (config.MCPServer, error) {
		return config.MCPServer{}, &app.UsageError{Msg: "mcp add: " + msg}
	}
	switch {
	case serverURL != "" && dashDash:
		return bad("give --url URL or a command after --, not both")
	case serverURL == "" && !dashDash:
		return bad("give the server: --url URL for a remote one, or -- COMMAND ARGS... for a local one")
	case dashDash && len(command) == 0:
		return bad("no command after --")
	case dashDash && (len(headers) > 0 || clientID != "" || secretEnv != ""):
		return bad("--header, --client-id and --client-secret-env are for --url servers")
	case serverURL != "" && len(env) > 0:
		return bad("--env is for local servers (a command after --)")
	case secretEnv != "" && clientID == "":
		return bad("--client-secret-env needs --client-id")
	case secretEnv != "" && !envNameRE.MatchString(secretEnv):
		return bad(fmt.Sprintf("--client-secret-env %q is not a variable name", secretEnv))
	}
	if serverURL != "" {
		u, err := url.Parse(serverURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad(fmt.Sprintf("--url %q is not an http:// or https:// URL", serverURL))
		}
	}
	s := config.MCPServer{URL: serverURL, Headers: headers, Env: env}
	if dashDash {
		s.Command, s.Args = command[0], command[1:]
	}
	if clientID != "" {
		s.OAuth = &config.MCPOAuth{ClientID: clientID, ClientSecretEnv: secretEnv}
	}
	return s, nil
}

// keyValue parses a repeatable K=V flag into m.
func keyValue(flagName string, m map[string]string) func(string) error {
	return func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		k = strings.TrimSpace(k)
		switch {
		case !ok || k == "":
			return fmt.Errorf("%s %q: want KEY=VALUE", flagName, s)
		case flagName == "--env" && !envNameRE.MatchString(k):
			return fmt.Errorf("--env %q: %q is not a variable name", s, k)
		}
		if _, dup := m[k]; dup {
			return fmt.Errorf("%s %s is given twice", flagName, k)
		}
		m[k] = v
		return nil
	}
}

// lines sends each line read from r; the channel closes at its end.
func lines(r io.Reader) <-chan string {
	ch := make(chan string)
	if r == nil {
		close(ch)
		return ch
	}
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 4096), 64<<10)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}
