// Package config reads myclaw's TOML configuration: the user's file at
// $XDG_CONFIG_HOME/myclaw/config.toml (or --config FILE) and, once its folder
// is trusted, the project's .myclaw.toml. Unknown keys and bad values are
// errors that name the file, the key, the line and what is allowed.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// DefaultBaseURL is where myclaw looks for a model server when nothing is
// configured: a local Ollama.
const DefaultBaseURL = "http://localhost:11434/v1"

// Config is the whole configuration.
type Config struct {
	// Provider names the [providers.NAME] entry to use.
	Provider string `toml:"provider"`
	// Model overrides the provider's model.
	Model         string `toml:"model"`
	Autonomy      string `toml:"autonomy"`
	MaxToolRounds int    `toml:"max_tool_rounds"`
	// ContextWindow in tokens overrides the provider's.
	ContextWindow int                 `toml:"context_window"`
	Providers     map[string]Provider `toml:"providers"`
	Shell         Shell               `toml:"shell"`
	Web           Web                 `toml:"web"`
	SupraLLM      SupraLLM            `toml:"supra_llm"`
	Approval      Approval            `toml:"approval"`
	MCP           MCP                 `toml:"mcp"`
	Tools         []ToolSpec          `toml:"tools"`
	Hooks         Hooks               `toml:"hooks"`
	// Vision and the prices override the provider's.
	Vision       *bool        `toml:"vision"`
	PriceInput   float64      `toml:"price_input"`
	PriceOutput  float64      `toml:"price_output"`
	Instructions Instructions `toml:"instructions"`
	UI           UI           `toml:"ui"`
	Goal         Goal         `toml:"goal"`
	// Theme, Themes, Keys and Status shape the TUI (looks.go).
	Theme  ThemeChoice          `toml:"theme"`
	Themes map[string]ThemeSpec `toml:"themes"`
	Keys   map[string]any       `toml:"keys"`
	Status StatusLine           `toml:"status"`
	Agents Agents               `toml:"agents"`

	// Path is the file this was read from ("" when none).
	Path string `toml:"-"`
}

// Provider is one OpenAI-compatible server.
type Provider struct {
	BaseURL string `toml:"base_url"`
	Model   string `toml:"model"`
	// APIKeyEnv names the environment variable holding the key; the key
	// itself never appears in the config.
	APIKeyEnv     string `toml:"api_key_env"`
	ContextWindow int    `toml:"context_window"`
	// Vision says the model takes images (image_url content parts).
	Vision bool `toml:"vision"`
	// PriceInput and PriceOutput are USD per million prompt and
	// completion tokens, for /cost.
	PriceInput  float64 `toml:"price_input"`
	PriceOutput float64 `toml:"price_output"`
}

// Instructions configures the instruction files put in the prompt.
type Instructions struct {
	// Files are the names looked for in the workspace root (and in
	// subdirectories the model works in), first found wins.
	Files []string `toml:"files"`
	// MaxBytes bounds each file.
	MaxBytes int `toml:"max_bytes"`
}

// UI configures the terminal interface.
type UI struct {
	// Notify is how myclaw calls for attention when a turn ends or an
	// approval waits while the terminal is not focused: off, bell or osc.
	Notify string `toml:"notify"`
	// EditorKey opens $VISUAL/$EDITOR on the prompt.
	EditorKey string `toml:"editor_key"`
	// Screen is how the session uses the terminal: "auto" (the default;
	// "scrollback" is its old name) runs on the alternate screen and
	// writes the conversation to the normal screen on exit, into the
	// terminal's own scrollback; "alternate" leaves only the summary;
	// "inline" stays on the normal screen and prints each finished block
	// into the scrollback as it finishes. ScreenMode reads it.
	Screen string `toml:"screen"`
}

// The screen modes of [ui] screen.
const (
	ScreenAuto      = "auto"
	ScreenAlternate = "alternate"
	ScreenInline    = "inline"
)

// ScreenMode is the screen mode asked for: ScreenAuto, ScreenAlternate or
// ScreenInline ("" and the old "scrollback" are ScreenAuto).
func (u UI) ScreenMode() string {
	if u.Screen == "" || u.Screen == "scrollback" {
		return ScreenAuto
	}
	return u.Screen
}

// Shell configures shell_run.
type Shell struct {
	TimeoutS    int `toml:"timeout_s"`
	MaxTimeoutS int `toml:"max_timeout_s"`
	// Undo records each command's changes to the workspace for /undo
	// (default on).
	Undo *bool `toml:"undo"`
	// Preview runs a command that asks first in a preview, where the
	// sandbox allows one, so the pane shows what it changed.
	Preview bool    `toml:"preview"`
	Sandbox Sandbox `toml:"sandbox"`
}

// Sandbox is [shell.sandbox]: how shell commands are confined.
type Sandbox struct {
	// Enabled turns the sandbox on where the system supports it; unset
	// means on.
	Enabled *bool `toml:"enabled"`
	// Writable lists directories commands may write besides the workspace
	// and their temp dir (absolute or ~/...); unset means the usual
	// toolchain caches.
	Writable []string `toml:"writable"`
	// Hidden adds files and directories commands cannot read to the
	// default credential stores (absolute or ~/...).
	Hidden []string `toml:"hidden"`
	// Visible takes paths off the hidden list (absolute or ~/...).
	Visible []string `toml:"visible"`
	// Network gives sandboxed commands network without asking for it.
	Network bool `toml:"network"`
	// Always is read only to say it is no longer needed: autonomy full
	// confines commands whenever the sandbox is on.
	Always *bool `toml:"always"`
}

// On reports whether the sandbox is enabled (the default).
func (s Sandbox) On() bool { return s.Enabled == nil || *s.Enabled }

// Deprecated says what in [shell.sandbox] no longer does anything, or "".
func (s Sandbox) Deprecated() string {
	if s.Always == nil {
		return ""
	}
	return "[shell.sandbox] always is no longer used: autonomy full always runs commands sandboxed; " +
		"to run them unsandboxed, say so with --sandbox off or [shell.sandbox] enabled = false. Remove the line."
}

func (s Shell) isZero() bool {
	return s.TimeoutS == 0 && s.MaxTimeoutS == 0 && s.Undo == nil && s.Sandbox.Enabled == nil && s.Sandbox.Writable == nil && s.Sandbox.Hidden == nil && s.Sandbox.Visible == nil && !s.Sandbox.Network && s.Sandbox.Always == nil
}

// Web configures web_fetch and web_search.
type Web struct {
	AllowPrivateHosts []string `toml:"allow_private_hosts"`
	// SearchURL is a SearXNG endpoint; web_search exists only when it is set.
	SearchURL string `toml:"search_url"`
	TimeoutS  int    `toml:"timeout_s"`
	MaxBytes  int64  `toml:"max_bytes"`
}

// SupraLLM configures the stronger model supra_llm asks; it exists only when
// a provider or base URL is set.
type SupraLLM struct {
	Provider string `toml:"provider"`
	BaseURL  string `toml:"base_url"`
	Model    string `toml:"model"`
	// APIKeyEnv names the variable holding its key.
	APIKeyEnv string `toml:"api_key_env"`
}

// Approval holds the approval rules.
type Approval struct {
	Rules []Rule `toml:"rules"`
}

// Rule is one [[approval.rules]] entry of the config.
//
// Tool is a glob on the display name ("shell_run", "fs_*", "github/*").
// Match is optional: a glob on the call's concrete capability
// ("fs:write:src/**"), or for shell_run a command pattern ("git status*",
// "go test *") that every command of the command line must match. Decision is
// allow, ask or deny. See approval/glob.go for the pattern syntax.
//
// Network, on an allow rule for shell commands, states the sandbox: true
// runs the allowed commands with network, false allows them only when the
// sandbox confines them without network; unset, they run as the level and
// [shell.sandbox] say.
//
// Workspace, when set (an absolute path), limits the rule to sessions in
// that folder: what the pane's "save rule" writes by default, so a grant
// made in one project does not follow you into every other.
type Rule struct {
	Tool      string `toml:"tool"`
	Match     string `toml:"match"`
	Decision  string `toml:"decision"`
	Network   *bool  `toml:"network"`
	Workspace string `toml:"workspace"`
}

// MCP declares MCP servers.
type MCP struct {
	Servers map[string]MCPServer `toml:"servers"`
}

// MCPServer is one [mcp.servers.NAME] entry: Command (stdio) or URL
// (streamable HTTP).
type MCPServer struct {
	Command  string            `toml:"command"`
	Args     []string          `toml:"args"`
	Env      map[string]string `toml:"env"`
	URL      string            `toml:"url"`
	Enabled  *bool             `toml:"enabled"`
	TimeoutS int               `toml:"timeout_s"`
	Trust    bool              `toml:"trust"`
	// Headers are sent with every request to a url server; values may
	// name variables ("Bearer ${GITHUB_TOKEN}").
	Headers map[string]string `toml:"headers"`
	// OAuth sets up the login of a url server that asks for one; without
	// it myclaw registers itself with the server's authorization server.
	OAuth *MCPOAuth `toml:"oauth"`
	// LogLevel is the level of the log messages asked of the server
	// (debug ... emergency; default info).
	LogLevel string `toml:"log_level"`
	// Sampling lets the server ask to use the model, each request
	// approved in the TUI (declined headless). Off by default.
	Sampling bool `toml:"sampling"`
}

// MCPOAuth is the oauth table of an [mcp.servers.NAME] entry.
type MCPOAuth struct {
	// ClientID is a client registered beforehand with the authorization
	// server (instead of dynamic registration).
	ClientID string `toml:"client_id"`
	// ClientSecretEnv names the variable holding that client's secret.
	ClientSecretEnv string `toml:"client_secret_env"`
	// Scopes replace the scopes the server asks for.
	Scopes []string `toml:"scopes"`
	// CallbackPort fixes the port of the loopback redirect
	// (http://127.0.0.1:PORT/callback), for clients registered with one.
	CallbackPort int `toml:"callback_port"`
}

// IsEnabled reports whether the server should start (default true).
func (s MCPServer) IsEnabled() bool { return s.Enabled == nil || *s.Enabled }

// ToolSpec is one [[tools]] entry: a config-defined command tool.
type ToolSpec struct {
	Name             string         `toml:"name"`
	Description      string         `toml:"description"`
	Source           string         `toml:"source"`
	Command          []string       `toml:"command"`
	InputSchema      any            `toml:"input_schema"`
	Capability       ToolCapability `toml:"capability"`
	Risk             string         `toml:"risk"`
	ReturnsUntrusted bool           `toml:"returns_untrusted"`
	Timeout          int            `toml:"timeout"`
}

// ToolCapability mirrors the tool domain model's ToolCapability.
type ToolCapability struct {
	ReadOnly              bool     `toml:"read_only"`
	Writes                bool     `toml:"writes"`
	WriteScope            string   `toml:"write_scope"`
	Checkpointable        bool     `toml:"checkpointable"`
	SideEffects           []string `toml:"side_effects"`
	Idempotent            bool     `toml:"idempotent"`
	Unsafe                bool     `toml:"unsafe"`
	HumanApprovalRequired bool     `toml:"human_approval_required"`
}

// SchemaJSON returns the tool's input schema as JSON: a TOML table, or a
// string holding JSON.
func (t ToolSpec) SchemaJSON() (json.RawMessage, error) {
	switch s := t.InputSchema.(type) {
	case nil:
		return nil, nil
	case string:
		if !json.Valid([]byte(s)) {
			return nil, errors.New("input_schema is a string but not valid JSON")
		}
		return json.RawMessage(s), nil
	default:
		b, err := json.Marshal(s)
		if err != nil {
			return nil, fmt.Errorf("input_schema: %w", err)
		}
		return b, nil
	}
}

// Hooks holds the hook commands, by stage.
type Hooks struct {
	PreTool      []Hook `toml:"pre_tool"`
	PostTool     []Hook `toml:"post_tool"`
	UserPrompt   []Hook `toml:"user_prompt"`
	SessionStart []Hook `toml:"session_start"`
	Stop         []Hook `toml:"stop"`
	PreCompact   []Hook `toml:"pre_compact"`
	Notification []Hook `toml:"notification"`
}

// ByStage lists the hooks of each stage, stages in a fixed order.
func (h Hooks) ByStage() []StageHooks {
	return []StageHooks{
		{"pre_tool", h.PreTool}, {"post_tool", h.PostTool}, {"user_prompt", h.UserPrompt},
		{"session_start", h.SessionStart}, {"stop", h.Stop}, {"pre_compact", h.PreCompact},
		{"notification", h.Notification},
	}
}

// Count is the number of hooks of every stage.
func (h Hooks) Count() int {
	n := 0
	for _, s := range h.ByStage() {
		n += len(s.Hooks)
	}
	return n
}

// StageHooks are the hooks of one stage.
type StageHooks struct {
	Stage string
	Hooks []Hook
}

// Hook is one [[hooks.STAGE]] entry: a command run at that stage.
type Hook struct {
	// Tool is a glob on the display name ("" or "*": every tool); only
	// pre_tool and post_tool hooks select tools.
	Tool     string   `toml:"tool"`
	Command  []string `toml:"command"`
	TimeoutS int      `toml:"timeout_s"`
}

// DefaultPath returns $XDG_CONFIG_HOME/myclaw/config.toml, or the default
// of Dir; "" (no config) when there is no home directory to put it in.
func DefaultPath() string {
	return File("config.toml")
}

// Error is a configuration problem, pointing at the file, line and key.
type Error struct {
	Path string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	loc := e.Path
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.Path, e.Line)
	}
	if e.Key != "" {
		return fmt.Sprintf("%s: %s: %s", loc, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}

// Load reads the config at path. A missing file at the default path is not
// an error (an empty config results); a missing file named explicitly is.
func Load(path string, explicit bool) (*Config, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !explicit {
			return &Config{}, nil
		}
		return nil, fmt.Errorf("read config: %w", err)
	}
	cfg, err := Parse(path, src)
	if err != nil {
		return nil, err
	}
	return cfg, nil
}

// Parse decodes and checks a config document.
func Parse(path string, src []byte) (*Config, error) {
	var cfg Config
	dec := toml.NewDecoder(bytes.NewReader(src))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return nil, decodeError(path, err)
	}
	cfg.Path = path
	if err := cfg.check(src); err != nil {
		return nil, err
	}
	return &cfg, nil
}

func decodeError(path string, err error) error {
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		// The first key is the error's own (its line is in the location);
		// any others follow with their lines.
		var msgs []string
		first := &Error{Path: path}
		for i, de := range sm.Errors {
			row, _ := de.Position()
			keys := de.Key()
			msg := fmt.Sprintf("unknown key %q", strings.Join(keys, "."))
			if near := nearestKey(keys); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
			if i == 0 {
				first.Line = row
			} else {
				msg = fmt.Sprintf("line %d: %s", row, msg)
			}
			msgs = append(msgs, msg)
		}
		first.Msg = strings.Join(msgs, "; ") + "; see config.example.toml for every option"
		return first
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		return &Error{Path: path, Line: row, Key: strings.Join(de.Key(), "."), Msg: strings.TrimPrefix(de.Error(), "toml: ")}
	}
	return &Error{Path: path, Msg: err.Error()}
}

var (
	levels       = []string{"readonly", "ask", "auto-edit", "full"}
	notifyModes  = []string{"off", "bell", "osc"}
	screenModes  = []string{ScreenAuto, ScreenAlternate, ScreenInline, "scrollback"}
	decisions    = []string{"allow", "ask", "deny"}
	risks        = []string{"low", "medium", "high"}
	serverNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	headerNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*$`)
	mcpLogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
)

func (c *Config) check(src []byte) error {
	bad := func(table, key, msg string) error {
		line := lineOf(src, table, key)
		if line == 0 && table != "" {
			line = lineOf(src, table, "")
		}
		return &Error{Path: c.Path, Line: line, Key: joinKey(table, key), Msg: msg}
	}
	if c.Autonomy != "" && !slices.Contains(levels, c.Autonomy) {
		return bad("", "autonomy", fmt.Sprintf("%q is not a level: want one of %s", c.Autonomy, strings.Join(levels, ", ")))
	}
	if c.MaxToolRounds < 0 {
		return bad("", "max_tool_rounds", "must be positive")
	}
	if c.ContextWindow < 0 {
		return bad("", "context_window", "must be positive")
	}
	// "ollama" alone is the built-in default: a local Ollama.
	if c.Provider != "" && (c.Provider != BuiltinProvider || len(c.Providers) > 0) {
		if _, ok := c.Providers[c.Provider]; !ok {
			return bad("", "provider", fmt.Sprintf("no [providers.%s] table: define it or pick one of %s", c.Provider, strings.Join(sortedKeys(c.Providers), ", ")))
		}
	}
	for name, p := range c.Providers {
		table := "providers." + name
		if p.BaseURL == "" {
			return bad(table, "base_url", "is required (e.g. http://localhost:11434/v1)")
		}
		if !strings.HasPrefix(p.BaseURL, "http://") && !strings.HasPrefix(p.BaseURL, "https://") {
			return bad(table, "base_url", fmt.Sprintf("%q must start with http:// or https://", p.BaseURL))
		}
		if p.ContextWindow < 0 {
			return bad(table, "context_window", "must be positive")
		}
	}
	if key := c.Agents.negative(); key != "" {
		return bad("agents", key, "must be positive")
	}
	if c.Shell.TimeoutS < 0 {
		return bad("shell", "timeout_s", "must be positive")
	}
	if c.Shell.MaxTimeoutS < 0 {
		return bad("shell", "max_timeout_s", "must be positive")
	}
	if c.Shell.TimeoutS > 0 && c.Shell.MaxTimeoutS > 0 && c.Shell.TimeoutS > c.Shell.MaxTimeoutS {
		return bad("shell", "timeout_s", "is above max_timeout_s")
	}
	// In a fixed order, so that of two bad lists the same one is named.
	for _, kv := range []struct {
		key  string
		list []string
	}{{"writable", c.Shell.Sandbox.Writable}, {"hidden", c.Shell.Sandbox.Hidden}, {"visible", c.Shell.Sandbox.Visible}} {
		key := kv.key
		for _, d := range kv.list {
			if !filepath.IsAbs(d) && d != "~" && !strings.HasPrefix(d, "~/") {
				return bad("shell.sandbox", key, fmt.Sprintf("%q must be an absolute path or start with ~/", d))
			}
		}
	}
	if key, msg := c.Goal.check(); key != "" {
		return bad("goal", key, msg)
	}
	if c.Web.SearchURL != "" && !strings.HasPrefix(c.Web.SearchURL, "http://") && !strings.HasPrefix(c.Web.SearchURL, "https://") {
		return bad("web", "search_url", "must start with http:// or https://")
	}
	if c.SupraLLM.Provider != "" {
		if _, ok := c.Providers[c.SupraLLM.Provider]; !ok {
			return bad("supra_llm", "provider", fmt.Sprintf("no [providers.%s] table", c.SupraLLM.Provider))
		}
	}
	for i, r := range c.Approval.Rules {
		table := fmt.Sprintf("approval.rules[%d]", i)
		if r.Tool == "" {
			return &Error{Path: c.Path, Line: nthTableLine(src, "[[approval.rules]]", i), Key: table + ".tool", Msg: "is required (a glob on the tool name, e.g. \"shell_run\" or \"fs_*\")"}
		}
		if !slices.Contains(decisions, r.Decision) {
			return &Error{Path: c.Path, Line: nthTableKeyLine(src, "[[approval.rules]]", i, "decision"), Key: table + ".decision", Msg: fmt.Sprintf("%q: want allow, ask or deny", r.Decision)}
		}
		if r.Workspace != "" && !filepath.IsAbs(r.Workspace) {
			return &Error{Path: c.Path, Line: nthTableKeyLine(src, "[[approval.rules]]", i, "workspace"), Key: table + ".workspace", Msg: fmt.Sprintf("%q: want an absolute path (the folder the rule holds in)", r.Workspace)}
		}
	}
	for name, s := range c.MCP.Servers {
		table := "mcp.servers." + name
		if !serverNameRE.MatchString(name) {
			return bad(table, "", "server names use letters, digits, '_', '.', '-'")
		}
		if (s.Command == "") == (s.URL == "") {
			return bad(table, "command", "set either command (stdio) or url (streamable HTTP)")
		}
		if s.TimeoutS < 0 {
			return bad(table, "timeout_s", "must be positive")
		}
		if s.URL == "" && (len(s.Headers) > 0 || s.OAuth != nil) {
			return bad(table, "headers", "headers and oauth apply to url servers only")
		}
		if s.LogLevel != "" && !slices.Contains(mcpLogLevels, s.LogLevel) {
			return bad(table, "log_level", fmt.Sprintf("%q: want one of %s", s.LogLevel, strings.Join(mcpLogLevels, ", ")))
		}
		if o := s.OAuth; o != nil {
			if o.CallbackPort < 0 || o.CallbackPort > 65535 {
				return bad(table, "oauth", "callback_port must be a port number (1-65535)")
			}
			if o.ClientSecretEnv != "" && o.ClientID == "" {
				return bad(table, "oauth", "client_secret_env needs client_id")
			}
		}
		for k, v := range s.Headers {
			if !headerNameRE.MatchString(k) || strings.ContainsAny(v, "\r\n") {
				return bad(table, "headers", fmt.Sprintf("%q: a header name is letters, digits and '-', and its value one line", k))
			}
		}
	}
	for i, t := range c.Tools {
		table := fmt.Sprintf("tools[%d]", i)
		line := nthTableLine(src, "[[tools]]", i)
		if t.Source != "" && t.Source != "command" {
			return &Error{Path: c.Path, Line: line, Key: table + ".source", Msg: fmt.Sprintf("%q: only \"command\" tools can be defined in config", t.Source)}
		}
		if t.Risk != "" && !slices.Contains(risks, t.Risk) {
			return &Error{Path: c.Path, Line: line, Key: table + ".risk", Msg: fmt.Sprintf("%q: want low, medium or high", t.Risk)}
		}
		if _, err := t.SchemaJSON(); err != nil {
			return &Error{Path: c.Path, Line: line, Key: table + ".input_schema", Msg: err.Error()}
		}
	}
	if key := negativePrice(c.PriceInput, c.PriceOutput); key != "" {
		return bad("", key, "prices are USD per million tokens and cannot be negative")
	}
	for _, name := range sortedKeys(c.Providers) {
		p := c.Providers[name]
		if key := negativePrice(p.PriceInput, p.PriceOutput); key != "" {
			return bad("providers."+name, key, "prices are USD per million tokens and cannot be negative")
		}
	}
	if c.Instructions.MaxBytes < 0 {
		return bad("instructions", "max_bytes", "must be positive")
	}
	for _, f := range c.Instructions.Files {
		if f == "" || filepath.IsAbs(f) || f == ".." || strings.HasPrefix(filepath.Clean(f), "..") {
			return bad("instructions", "files", fmt.Sprintf("%q: want a file name relative to the workspace, such as \"AGENTS.md\"", f))
		}
	}
	if strings.ContainsAny(c.UI.EditorKey, " \t") {
		return bad("ui", "editor_key", fmt.Sprintf("%q: want one key such as \"ctrl+g\"", c.UI.EditorKey))
	}
	if c.UI.Notify != "" && !slices.Contains(notifyModes, c.UI.Notify) {
		return bad("ui", "notify", fmt.Sprintf("%q: want off, bell or osc", c.UI.Notify))
	}
	if c.UI.Screen != "" && !slices.Contains(screenModes, c.UI.Screen) {
		return bad("ui", "screen", fmt.Sprintf("%q: want auto, alternate or inline", c.UI.Screen))
	}
	if err := c.checkLooks(bad); err != nil {
		return err
	}
	for _, st := range c.Hooks.ByStage() {
		for i, h := range st.Hooks {
			at := func(key, msg string) error {
				return &Error{Path: c.Path, Line: nthTableLine(src, "[[hooks."+st.Stage+"]]", i), Key: fmt.Sprintf("hooks.%s[%d].%s", st.Stage, i, key), Msg: msg}
			}
			switch {
			case len(h.Command) == 0 || h.Command[0] == "":
				return at("command", "is required (argv, no shell)")
			case h.Tool != "" && st.Stage != "pre_tool" && st.Stage != "post_tool":
				return at("tool", "only pre_tool and post_tool hooks select tools")
			case h.TimeoutS < 0:
				return at("timeout_s", "must not be negative")
			}
		}
	}
	return nil
}

// negativePrice names the price key that is negative, if any.
func negativePrice(in, out float64) string {
	switch {
	case in < 0:
		return "price_input"
	case out < 0:
		return "price_output"
	}
	return ""
}

// ToolOrigin names where the i-th [[tools]] entry was declared.
func (c *Config) ToolOrigin(i int) string {
	return fmt.Sprintf("%s: tools[%d]", c.Path, i)
}

func joinKey(table, key string) string {
	switch {
	case table == "":
		return key
	case key == "":
		return table
	}
	return table + "." + key
}

// lineOf finds the line of key inside [table] (or at top level), for
// errors about values that decoded fine but are not allowed.
func lineOf(src []byte, table, key string) int {
	inTable := table == ""
	header := "[" + table + "]"
	keyRE := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(key) + `"?\s*=`)
	for i, line := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			if t == header {
				if key == "" {
					return i + 1
				}
				inTable = true
			} else {
				inTable = false
			}
			continue
		}
		if inTable && key != "" && keyRE.MatchString(line) {
			return i + 1
		}
	}
	return 0
}

// nthTableLine finds the line of the n-th occurrence of an array-of-tables
// header.
// nthTableKeyLine finds the line of key inside the n-th [[header]] entry,
// or the entry's header line when the key is not written there.
func nthTableKeyLine(src []byte, header string, n int, key string) int {
	start := nthTableLine(src, header, n)
	if start == 0 {
		return 0
	}
	keyRE := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(key) + `"?\s*=`)
	lines := strings.Split(string(src), "\n")
	for i := start; i < len(lines); i++ {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "[") {
			break
		}
		if keyRE.MatchString(lines[i]) {
			return i + 1
		}
	}
	return start
}

func nthTableLine(src []byte, header string, n int) int {
	seen := 0
	for i, line := range strings.Split(string(src), "\n") {
		if strings.TrimSpace(line) == header {
			if seen == n {
				return i + 1
			}
			seen++
		}
	}
	return 0
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// CheckProjectScope refuses settings a project config may not make: it can
// add tools, MCP servers and hooks, nothing else (a cloned repository must
// not change the model, the autonomy level or the approval rules).
func (c *Config) CheckProjectScope() error {
	var bad []string
	if c.Provider != "" || c.Model != "" || len(c.Providers) > 0 {
		bad = append(bad, "model/provider settings")
	}
	if c.Autonomy != "" || c.MaxToolRounds != 0 || c.ContextWindow != 0 {
		bad = append(bad, "autonomy/limits")
	}
	if len(c.Approval.Rules) > 0 {
		bad = append(bad, "approval rules")
	}
	if c.Agents != (Agents{}) {
		bad = append(bad, "agents limits")
	}
	if c.Vision != nil || c.PriceInput != 0 || c.PriceOutput != 0 || len(c.Instructions.Files) > 0 || c.Instructions.MaxBytes != 0 || c.UI != (UI{}) {
		bad = append(bad, "vision/prices/instructions/ui settings")
	}
	if c.setsLooks() {
		bad = append(bad, "theme/keys/status settings")
	}
	if !c.Shell.isZero() || c.SupraLLM != (SupraLLM{}) || c.Web.SearchURL != "" || len(c.Web.AllowPrivateHosts) > 0 || c.Web.TimeoutS != 0 || c.Web.MaxBytes != 0 {
		bad = append(bad, "shell/web/supra_llm settings")
	}
	if c.Goal != (Goal{}) {
		bad = append(bad, "goal settings")
	}
	if len(bad) > 0 {
		return &Error{Path: c.Path, Msg: "a project config may only add [[tools]], [mcp.servers] and [[hooks.*]]; it also sets " + strings.Join(bad, ", ")}
	}
	return nil
}
