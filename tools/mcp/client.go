package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"myclaw/tools"
)

// maxLogLines is how many of a server's log messages /mcp NAME keeps.
const maxLogLines = 50

// DefaultLogLevel is the level asked of servers that log, when the config
// names none.
const DefaultLogLevel = "info"

// newClient builds the SDK client of one run. It declares exactly what
// myclaw implements: roots (the workspace, which does not change during a
// session, so no listChanged), form elicitation (asked in the TUI,
// declined headless) and, for a server with sampling = true only,
// sampling (approved in the TUI, declined headless).
func (r *run) newClient() *sdk.Client {
	name := r.s.cfg.Name
	opts := &sdk.ClientOptions{
		Capabilities:                &sdk.ClientCapabilities{RootsV2: &sdk.RootCapabilities{}},
		ToolListChangedHandler:      r.toolsChanged,
		PromptListChangedHandler:    r.promptsChanged,
		ProgressNotificationHandler: r.progress.notify,
		ElicitationHandler:          r.m.elicitHandler(name),
		LoggingMessageHandler:       r.logMessage,
	}
	if r.s.cfg.Sampling {
		// Setting the handler declares the capability.
		opts.CreateMessageHandler = r.m.samplingHandler(name)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "myclaw", Version: "1"}, opts)
	if dir := r.s.cfg.Dir; dir != "" {
		if abs, err := filepath.Abs(dir); err == nil {
			u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
			c.AddRoots(&sdk.Root{URI: u.String(), Name: "workspace"})
		}
	}
	return c
}

// setLogLevel asks a server that declares logging for messages at the
// configured level; they go to the log file and /mcp NAME, never to the
// model.
func (r *run) setLogLevel(ctx context.Context, sess *sdk.ClientSession) {
	res := sess.InitializeResult()
	if res == nil || res.Capabilities == nil || res.Capabilities.Logging == nil {
		return
	}
	if err := sess.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: sdk.LoggingLevel(r.logLevel())}); err != nil {
		r.m.logf("mcp: server %s: setting its log level: %v", r.s.cfg.Name, err)
	}
}

// callMeta is the _meta of a request: the log level, which protocol
// versions from 2026-07-28 take per request instead of logging/setLevel.
func (r *run) callMeta() sdk.Meta {
	return sdk.Meta{sdk.MetaKeyLogLevel: r.logLevel()}
}

func (r *run) logLevel() string {
	if l := r.s.cfg.LogLevel; l != "" {
		return l
	}
	return DefaultLogLevel
}

// logMessage records a server's notifications/message.
func (r *run) logMessage(_ context.Context, req *sdk.LoggingMessageRequest) {
	p := req.Params
	var text string
	switch d := p.Data.(type) {
	case string:
		text = d
	default:
		b, _ := json.Marshal(d)
		text = string(b)
	}
	text = tools.Clip(strings.Join(strings.Fields(tools.Neutralize(text)), " "), 500)
	line := string(p.Level)
	if p.Logger != "" {
		line += " " + tools.Clip(tools.Neutralize(p.Logger), 60)
	}
	// A server holds its own tokens and may log them.
	line = tools.Redact(line + ": " + text)
	r.s.logs.add(time.Now().Format("15:04:05") + " " + line)
	r.m.logf("mcp: server %s log %s", r.s.cfg.Name, line)
}

// logRing keeps a server's last log lines.
type logRing struct {
	mu    sync.Mutex
	lines []string
}

func (l *logRing) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
	if len(l.lines) > maxLogLines {
		l.lines = l.lines[len(l.lines)-maxLogLines:]
	}
}

func (l *logRing) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// LogLevels are the levels a server may be asked to log at.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// checkLogLevel checks a configured level.
func checkLogLevel(key, level string) error {
	if level == "" {
		return nil
	}
	for _, l := range LogLevels {
		if l == level {
			return nil
		}
	}
	return fmt.Errorf("%s.log_level: %q: want one of %s", key, level, strings.Join(LogLevels, ", "))
}
