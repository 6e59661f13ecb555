package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/sashabaranov/go-openai"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/config"
	"myclaw/tools"
	"myclaw/tools/mcp"
	"myclaw/tools/termtext"
	"myclaw/ui"
)

// RunTUI opens the interactive program.
func RunTUI(ctx context.Context, o Options, secrets map[string]string) error {
	a, b, uo, err := startTUI(ctx, o, secrets)
	if err != nil {
		return err
	}
	defer a.close()
	if givesBackLoad(uo) {
		time.AfterFunc(500*time.Millisecond, debug.FreeOSMemory)
	}
	err = ui.Run(ctx, b, uo)
	if errors.Is(err, tea.ErrInterrupted) {
		// SIGINT, which the TUI's handler reports as its own error: an
		// interruption, not a failure of the terminal.
		return context.Canceled
	}
	return err
}

// givesBackLoad reports whether start-up leaves a transcript's garbage
// to give back just after the first frame. A resumed transcript is read
// and decoded in megabytes that are garbage once loaded: given back then
// (doing it beside the frame held the frame up), rather than kept until
// the runtime's scavenger gets to them; one resumed from its last turns
// gives them back once the rest is loaded. A new session has none: a
// forced collection and scavenge would only cost CPU while the user
// reads the first frame.
func givesBackLoad(uo ui.Options) bool {
	return len(uo.Earlier) > 0 && uo.Rest == nil
}

// startTUI is all that comes before the TUI's first frame: the app, the
// agent with its session loaded, and what the TUI is given. The caller
// closes the app.
func startTUI(ctx context.Context, o Options, secrets map[string]string) (*app, *tuiBackend, ui.Options, error) {
	a, err := newApp(o, secrets)
	if err != nil {
		return nil, nil, ui.Options{}, err
	}
	a.checkInBackground = true // shell commands ask until it passes
	a.resumeFromTail = true
	ag, err := a.buildAgent()
	if err != nil {
		a.close()
		return nil, nil, ui.Options{}, err
	}
	if o.Plan {
		ag.SetAutonomy(approval.Plan)
	}
	b := &tuiBackend{Agent: ag, app: a, notices: make(chan ui.Notice, 64), forms: make(chan ui.FormRequest)}
	// A long session: the first frame shows its last turns, and the TUI
	// puts the earlier ones above them once loaded (rest), with the count
	// of messages in the notice then.
	info := a.session.Info()
	notice := func(n int) string { return resumedNotice(info, n, "") }
	list, rest, n := b.conversation(notice)
	if rest != nil || n > 0 {
		a.notices = append(a.notices, ui.Notice{Text: notice(n), Resumed: rest != nil})
	}
	a.jobs.OnEnd(b.jobEnded)
	// The servers start behind the first frame; their news reaches the
	// transcript through Notices.
	a.mcpOpts = mcp.Options{Interactive: true, Notify: b.mcpNotify, Elicit: b.elicit, Sample: b.sample}
	a.startMCP(ctx, b.mcpChanged)
	off, _ := a.sandboxOff()
	return a, b, ui.Options{
		Unsandboxed:   off,
		Workspace:     a.workspace.Dir(),
		LogPath:       filepath.Join(a.stateDir, "myclaw.log"),
		Banner:        a.notices,
		Notices:       b.notices,
		Forms:         b.forms,
		Earlier:       list,
		Rest:          rest,
		Commands:      b.commands,
		CommandsStamp: b.commandsStamp,
		EditorKey:     a.cfg.UI.EditorKey,
		Notify:        a.cfg.UI.Notify,
		Scrollback:    a.cfg.UI.ScreenMode() == config.ScreenAuto,
		Inline:        a.cfg.UI.ScreenMode() == config.ScreenInline,
		Version:       o.Version,
		Server:        a.settings.BaseURL,
		// Per workspace, named by a digest of its path.
		HistoryPath: filepath.Join(a.stateDir, "prompts", workspaceKey(a.workspace.Dir())+".jsonl"),
		// Only the user's own config shapes the TUI: a project's may not
		// (CheckProjectScope), least of all with a status command.
		Theme:         a.cfg.Theme.Name,
		Themes:        uiThemes(a.cfg.Themes),
		Keys:          a.cfg.KeyBindings(),
		StatusLine:    a.cfg.Status.Line,
		StatusCommand: a.cfg.Status.Command,
		StatusConfine: b.confineStatus,
	}, nil
}

// commands loads the custom slash commands: the user's, then (in a
// trusted folder) the workspace's.
func (b *tuiBackend) commands() ([]ui.CustomCommand, []string) {
	return ui.LoadCommands(b.commandDirs()...)
}

// commandsStamp tells the TUI whether the commands' folders changed.
func (b *tuiBackend) commandsStamp() string { return ui.CommandsStamp(b.commandDirs()...) }

func (b *tuiBackend) commandDirs() []ui.CommandDir {
	b.trustMu.Lock()
	trusted := b.app.project.trusted
	b.trustMu.Unlock()
	return []ui.CommandDir{
		{Path: config.File("commands"), Scope: "user", Trusted: true},
		{Path: filepath.Join(b.app.workspace.Dir(), ".myclaw", "commands"), Scope: "project", Trusted: trusted},
	}
}

// earlier turns the whole of a resumed conversation into what the TUI
// shows above the new input: prompts, answers, and a card per call as it
// ended (a line with the proposed call where none was recorded). All of
// it: the transcript renders only what comes on screen.
func earlier(msgs []openai.ChatCompletionMessage, calls []agent.CallRecord) []ui.Earlier {
	// Servers may reuse call ids: records are matched in order, per id.
	byID := make(map[string][]int, len(calls))
	for i, c := range calls {
		byID[c.Result.Call.ID] = append(byID[c.Result.Call.ID], i)
	}
	take := func(id string) *agent.CallRecord {
		q := byID[id]
		if len(q) == 0 {
			return nil
		}
		byID[id] = q[1:]
		return &calls[q[0]]
	}
	// A call with no result in the conversation was cut off: myclaw
	// stopped (a crash, kill -9) before it ended.
	answered := map[string]bool{}
	for _, m := range msgs {
		if m.Role == openai.ChatMessageRoleTool {
			answered[m.ToolCallID] = true
		}
	}
	out := make([]ui.Earlier, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case openai.ChatMessageRoleUser:
			if agent.ToolImages(m) || agent.NotesOnly(m) {
				continue // images a tool returned or myclaw's notes, not something the user typed
			}
			out = append(out, ui.Earlier{Role: "user", Text: agent.PromptText(m)})
		case openai.ChatMessageRoleAssistant:
			out = append(out, ui.Earlier{Role: "assistant", Text: m.Content})
			for _, c := range m.ToolCalls {
				text := "↳ " + c.Function.Name + " " + termtext.OneLine(c.Function.Arguments, 100)
				rec := take(c.ID)
				if rec == nil && !answered[c.ID] {
					text += " · interrupted: myclaw stopped before it ended"
				}
				out = append(out, ui.Earlier{Role: "tool", Text: text, Call: rec})
			}
		}
	}
	return out
}

// OpenSession continues another session of the workspace (/sessions,
// /resume) and gives the TUI its conversation to show.
func (b *tuiBackend) OpenSession(id string) (ui.SessionView, error) {
	if err := b.Agent.OpenSession(id); err != nil {
		return ui.SessionView{}, err
	}
	// A long session opens from its end, as with --session.
	info := b.Session().Info()
	notice := func(n int) string { return resumedNotice(info, n, "; /undo walks back its calls") }
	list, rest, n := b.conversation(notice)
	return ui.SessionView{Notice: notice(n), Earlier: list, Rest: rest}, nil
}

// Fork continues in a copy of the session (/fork).
func (b *tuiBackend) Fork(before int) (ui.SessionView, error) {
	f, err := b.Agent.Fork(before)
	if err != nil {
		return ui.SessionView{}, err
	}
	notice := fmt.Sprintf("Forked session %s into %s with the whole conversation. The fork has its own undo history; the original stays as it was.", f.Parent, f.ID)
	if before > 0 {
		notice = fmt.Sprintf("Forked session %s into %s from before prompt %d, which is back in the input to edit. Files stay as they are: to walk back the original's changes, /resume %s, then /undo.", f.Parent, f.ID, before, f.Parent)
	}
	// The fork is a copy of the whole transcript; a long one opens from
	// its end all the same.
	list, rest, _ := b.conversation(nil)
	return ui.SessionView{Notice: notice, Earlier: list, Rest: rest, Draft: f.Draft}, nil
}

// tuiBackend is the agent plus what only the app can do: MCP servers and
// project trust (ui.Extensions).
type tuiBackend struct {
	*agent.Agent
	app     *app
	notices chan ui.Notice
	// forms carries MCP servers' requests for input to the TUI.
	forms   chan ui.FormRequest
	trustMu sync.Mutex

	mu sync.Mutex
	// running are the MCP servers last announced as running: a server
	// relisting its tools (list_changed) is not announced again.
	running map[string]bool
}

// mcpChanged turns a server's change of state into a line in the
// transcript. It never blocks the manager: a notice that finds the
// channel full is dropped (the state stays visible in /mcp).
func (b *tuiBackend) mcpChanged(s mcp.ServerStatus) {
	var text string
	b.mu.Lock()
	again := s.State == mcp.StateRunning && b.running[s.Name]
	if b.running == nil {
		b.running = map[string]bool{}
	}
	b.running[s.Name] = s.State == mcp.StateRunning
	b.mu.Unlock()
	switch s.State {
	case mcp.StateRunning:
		b.app.rememberTools(s)
		if again {
			return
		}
		text = fmt.Sprintf("MCP server %s is running with %s.", s.Name, tools.Count(len(s.Tools), "tool"))
		if n := len(s.Prompts); n > 0 {
			text = fmt.Sprintf("MCP server %s is running with %s and %s (/%s …; /help lists them).", s.Name, tools.Count(len(s.Tools), "tool"), tools.Count(n, "prompt"), s.Prompts[0].Command())
		}
	case mcp.StateFailed:
		text = fmt.Sprintf("MCP server %s failed: %s. Its tools are withdrawn; /mcp restart %s tries again.", s.Name, s.LastError, s.Name)
		if s.Auth == mcp.AuthNeeded || s.Auth == mcp.AuthExpired {
			text = fmt.Sprintf("MCP server %s: %s. Its tools are withdrawn until then.", s.Name, s.LastError)
		}
	default:
		return
	}
	select {
	case b.notices <- ui.Notice{Text: text, Warning: s.State == mcp.StateFailed}:
	default:
	}
}

// jobEnded says in the transcript that a background job ended by itself;
// the notice also refreshes the status line's count of running jobs.
func (b *tuiBackend) jobEnded(in tools.JobInfo) {
	state := "ended"
	if in.ExitCode != nil {
		state = "exited " + strconv.Itoa(*in.ExitCode)
	}
	n := ui.Notice{Text: fmt.Sprintf("Background job %s %s: %s (/jobs %s shows its output).", in.ID, state, tools.ClipOneLine(in.Command, 80), in.ID)}
	if in.SandboxNote != "" {
		n = ui.Notice{Text: n.Text + " " + strings.TrimPrefix(in.SandboxNote, "permission_denied: ") + ".", Warning: true}
	}
	select {
	case b.notices <- n:
	default:
	}
}

// mcpNotify shows a server's message (a login URL) in the transcript.
func (b *tuiBackend) mcpNotify(server, text string) {
	select {
	case b.notices <- ui.Notice{Text: text, Warning: true}:
	default:
	}
}

// elicit shows a server's form in the TUI and waits for the answer; the
// server's ctx bounds the wait.
func (b *tuiBackend) elicit(ctx context.Context, e mcp.Elicitation) (mcp.ElicitAnswer, error) {
	reply := make(chan mcp.ElicitAnswer, 1)
	select {
	case b.forms <- ui.FormRequest{Ctx: ctx, Form: e, Reply: reply}:
	case <-ctx.Done():
		return mcp.ElicitAnswer{}, ctx.Err()
	}
	select {
	case a := <-reply:
		return a, nil
	case <-ctx.Done():
		return mcp.ElicitAnswer{}, ctx.Err()
	}
}

// sample shows a server's request to use the model for approval, in the
// form elicitation uses, and sends it only if the person approves.
func (b *tuiBackend) sample(ctx context.Context, r mcp.SamplingRequest) (mcp.SamplingAnswer, error) {
	model := b.Model()
	ans, err := b.elicit(ctx, mcp.Elicitation{Server: r.Server, Message: r.Describe(),
		Title: "asks to use your model", Note: "enter, then y, sends it to " + model + "; ctrl+d declines; the answer goes to " + r.Server + " only"})
	if err != nil {
		return mcp.SamplingAnswer{}, err
	}
	if ans.Action != mcp.ElicitAccept {
		b.app.auditSampling(r, "deny", "user")
		return mcp.SamplingAnswer{}, mcp.ErrSamplingDeclined
	}
	b.app.auditSampling(r, "approve", "user")
	msgs := make([]agent.SampleMessage, len(r.Messages))
	for i, m := range r.Messages {
		msgs[i] = agent.SampleMessage{Role: m.Role, Text: m.Text}
	}
	text, used, err := b.Sample(ctx, r.System, msgs, r.MaxTokens)
	if err != nil {
		return mcp.SamplingAnswer{}, err
	}
	return mcp.SamplingAnswer{Text: text, Model: used}, nil
}

// MCPResources implements ui.Extensions.
func (b *tuiBackend) MCPResources(ctx context.Context, name string) ([]mcp.Resource, bool, error) {
	m, err := b.app.mcpOwner(name)
	if err != nil {
		return nil, false, err
	}
	return m.Resources(ctx, name)
}

// MCPPrompt implements ui.MCPPrompter.
func (b *tuiBackend) MCPPrompt(ctx context.Context, server, name string, words []string) (mcp.PromptText, error) {
	m, err := b.app.mcpOwner(server)
	if err != nil {
		return mcp.PromptText{}, err
	}
	return m.Prompt(ctx, server, name, words)
}

// LoginMCP implements ui.Extensions.
func (b *tuiBackend) LoginMCP(ctx context.Context, name string) error {
	return b.app.loginMCP(ctx, name)
}

// LogoutMCP implements ui.Extensions.
func (b *tuiBackend) LogoutMCP(ctx context.Context, name string) error {
	return b.app.logoutMCP(ctx, name)
}

// MCPServers implements ui.Extensions.
func (b *tuiBackend) MCPServers() []mcp.ServerStatus { return b.app.mcpStatus() }

// SandboxReport implements ui.SandboxReporter.
func (b *tuiBackend) SandboxReport() string {
	return b.app.freshSandboxReport(context.Background())
}

// Jobs implements ui.Jobs.
func (b *tuiBackend) Jobs() []tools.JobInfo { return b.app.jobs.List() }

// StopJob implements ui.Jobs.
func (b *tuiBackend) StopJob(id string) (tools.JobInfo, error) { return b.app.jobs.Stop(id) }

// JobTail implements ui.JobOutput.
func (b *tuiBackend) JobTail(id string, n int) (tools.JobInfo, string, error) {
	return b.app.jobs.Tail(id, n)
}

// RestartMCP implements ui.Extensions.
func (b *tuiBackend) RestartMCP(ctx context.Context, name string) error {
	return b.app.restartMCP(ctx, name)
}

// TrustProject implements ui.Extensions: it trusts the workspace's
// .myclaw.toml as it is now and loads its tools, MCP servers and hooks
// into the running session.
func (b *tuiBackend) TrustProject(ctx context.Context) (string, error) {
	b.trustMu.Lock()
	defer b.trustMu.Unlock()
	a := b.app
	st, src, err := a.readProjectConfig()
	if err != nil {
		return "", err
	}
	if !st.exists {
		if st.skipped != "" {
			return "", &agent.UserError{Msg: projectSkipNotice(st.skipped), Hint: "Remove or fix it, then /trust again."}
		}
		if st.trusted {
			return "This folder is already trusted.", nil
		}
		if err := a.trustStore().trust(a.workspace.Dir(), st.sum); err != nil {
			return "", fmt.Errorf("remember the trusted folder: %w", err)
		}
		a.project = st
		a.project.trusted = true
		a.instructions.SetTrusted(true)
		a.skills.SetTrusted(true)
		return "Trusted this folder: " + a.trustedExtras() + ".", nil
	}
	if a.project.cfg != nil && st.trusted {
		return projectConfigName + " is already trusted and loaded.", nil
	}
	if a.project.cfg != nil {
		return "", &agent.UserError{Msg: projectConfigName + " changed since it was loaded.", Hint: "Restart myclaw to load the new version (it will ask for trust again)."}
	}
	path := filepath.Join(a.workspace.Dir(), projectConfigName)
	cfg, err := config.Parse(path, src)
	if err != nil {
		return "", &agent.UserError{Msg: "The project config is not valid: " + err.Error(), Hint: "Fix " + path + ", then /trust again."}
	}
	if err := cfg.CheckProjectScope(); err != nil {
		return "", &agent.UserError{Msg: err.Error(), Hint: "Move other settings to your own config."}
	}
	before := len(a.hooks)
	if err := a.addHooks(cfg); err != nil {
		return "", err
	}
	if err := a.addConfigTools(cfg, a.registry); err != nil {
		a.hooks = a.hooks[:before]
		return "", err
	}
	if err := a.trustStore().trust(a.workspace.Dir(), st.sum); err != nil {
		a.hooks = a.hooks[:before]
		for _, t := range cfg.Tools {
			a.registry.Unregister(t.Name)
		}
		return "", fmt.Errorf("remember the trusted folder: %w", err)
	}
	st.trusted, st.cfg = true, cfg
	a.project = st
	a.instructions.SetTrusted(true)
	a.skills.SetTrusted(true)
	b.AddHooks(a.hooks[before:]...)
	a.startServers(context.WithoutCancel(ctx), a.mcpServers(cfg), b.mcpChanged)
	return fmt.Sprintf("Trusted %s (remembered while it stays unchanged) and loaded %s, %s, %s; %s.",
		projectConfigName, tools.Count(len(cfg.Tools), "tool"), tools.Count(len(cfg.MCP.Servers), "MCP server"), tools.Count(cfg.Hooks.Count(), "hook"), a.trustedExtras()), nil
}

// trustedExtras says what else trusting the folder changed.
func (a *app) trustedExtras() string {
	what := "its .myclaw/commands can be used"
	n := 0
	for _, sk := range a.skills.All() {
		if sk.Project && sk.Loadable() {
			n++
		}
	}
	if n > 0 {
		what += ", and its " + tools.Count(n, "skill") + " can be loaded"
	}
	if f := a.instructions.Project(); f != nil {
		what = f.Path + " is followed as instructions from the next message, and " + what
	}
	return what
}

var (
	_ ui.Extensions  = (*tuiBackend)(nil)
	_ ui.MCPPrompter = (*tuiBackend)(nil)
	_ ui.ModelSaver  = (*tuiBackend)(nil)
)

// workspaceKey names a workspace in file names: the first 16 hex digits
// of its path's SHA-256.
func workspaceKey(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return hex.EncodeToString(sum[:8])
}

// SaveModel implements ui.ModelSaver: the model becomes the default in the
// user's config.
func (b *tuiBackend) SaveModel(name string) (string, error) {
	line, err := config.SaveModel(b.app.cfg.Path, name)
	if err != nil {
		return "", err
	}
	return line + " in " + b.app.cfg.Path, nil
}
