package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"myclaw/agent"
	"myclaw/agent/chat"
	"myclaw/approval"
	"myclaw/config"
	"myclaw/history"
	"myclaw/sandbox"
	"myclaw/skills"
	"myclaw/tools"
	"myclaw/tools/builtin"
	"myclaw/tools/mcp"
	"myclaw/tools/proc"
	"myclaw/tools/secret"
	"myclaw/ui"
)

// app is everything a session needs, built from the Options and config.
type app struct {
	opts      Options
	cfg       *config.Config
	settings  config.Settings
	secrets   map[string]string
	stateDir  string
	shellUndo *builtin.ShellUndo
	workspace *builtin.Workspace
	// alone is set when no other session was active in the workspace at
	// start: nothing else may be writing in it.
	alone    bool
	store    *history.Store
	session  *history.Session
	registry *tools.Registry
	policy   *approval.Policy
	audit    *approval.Audit
	// sandbox confines shell commands (nil when off in the config);
	// sandboxState is what its check found.
	sandbox      *sandbox.Sandbox
	sandboxMu    sync.Mutex
	sandboxState approval.Sandbox
	// checkInBackground runs the sandbox's self-test behind the first
	// frame (the TUI); otherwise buildAgent waits for it (headless).
	checkInBackground bool
	// resumeFromTail has a long session resumed from its last turns, the
	// rest loading behind the first frame (the TUI).
	resumeFromTail bool
	// stopChecks ends a self-test still running in the background, and
	// checks waits for it, so that nothing writes to the state after close.
	stopChecks context.CancelFunc
	checks     sync.WaitGroup
	// mcps run the MCP servers: those known at start, then those of a
	// project config trusted during the session.
	mcps  []*mcp.Manager
	mcpMu sync.Mutex
	// mcpOpts are given to every MCP manager (the TUI makes them
	// interactive); StateDir is filled in.
	mcpOpts mcp.Options
	hooks   []agent.Hook
	logger  *log.Logger
	logFile *os.File
	// lastTools remembers each MCP server's tools while it ran, so /tools
	// can list them as hidden (server down) once they are withdrawn.
	toolsMu   sync.Mutex
	lastTools map[string][]string
	// jobs are the background shell jobs of the session.
	jobs *builtin.ShellJobs
	// notices are shown to the user at start (ignored project config,
	// recovered undo, ...).
	notices []ui.Notice
	// project is the state of the workspace's .myclaw.toml and of the
	// folder's trust.
	project projectState
	// agent is set once built: shell_run sizes its output by its context.
	agent atomic.Pointer[agent.Agent]
	// instructions are the AGENTS.md files the prompt carries.
	instructions *agent.Instructions
	// skills are the Agent Skills found (see skills.go).
	skills *skills.Set
	// userTools run !command and @mentions: the same instances the model
	// calls.
	userTools agent.UserTools
}

func (a *app) logf(format string, args ...any) {
	if a.logger != nil {
		a.logger.Printf(format, args...)
	}
}

// stateDir returns $XDG_STATE_HOME/myclaw (or the default of
// config.StateDir).
func stateDir() (string, error) { return config.StateDir() }

// newApp loads the config and opens the workspace and state. It does no
// network I/O.
func newApp(o Options, secrets map[string]string) (*app, error) {
	a := &app{opts: o, secrets: secrets}
	path, explicit := o.ConfigPath, o.ConfigPath != ""
	if !explicit {
		path = config.DefaultPath()
	}
	cfg, err := config.Load(path, explicit)
	switch {
	case err != nil && explicit && errors.Is(err, os.ErrNotExist):
		return nil, &agent.UserError{Msg: "There is no config file " + path + ".", Hint: "Check the path given to --config, or leave --config out to use " + config.DefaultPath() + "."}
	case err != nil && explicit:
		return nil, &agent.UserError{Msg: "The config is not valid: " + err.Error(), Hint: "Fix it; config.example.toml documents every option."}
	case err != nil:
		return nil, &agent.UserError{Msg: "The config is not valid: " + err.Error(), Hint: "Fix it (config.example.toml documents every option), or pass --config FILE."}
	}
	if cfg.Path == "" {
		cfg.Path = path
	}
	a.cfg = cfg
	if d := cfg.Shell.Sandbox.Deprecated(); d != "" {
		a.notices = append(a.notices, ui.Notice{Text: d, Warning: true})
	}
	switch o.Sandbox {
	case "", "on", "off":
	default:
		return nil, &UsageError{fmt.Sprintf("--sandbox %q: want on or off", o.Sandbox)}
	}
	switch o.Screen {
	case "":
	case config.ScreenAuto, config.ScreenAlternate, config.ScreenInline:
		a.cfg.UI.Screen = o.Screen
	default:
		return nil, &UsageError{fmt.Sprintf("--screen %q: want auto, alternate or inline", o.Screen)}
	}
	if o.Autonomy != "" {
		if _, err := approval.ParseLevel(o.Autonomy); err != nil {
			return nil, &UsageError{"--autonomy: " + err.Error()}
		}
	}
	// Every key the config names is a credential from here on, whatever
	// its variable is called: out of the environment, out of every output.
	for _, name := range cfg.CredentialVars() {
		a.credential(name)
	}
	for _, u := range cfg.CredentialURLs() {
		addURLSecrets(u)
	}
	a.settings = cfg.Resolve(a.lookup, config.Overrides{Model: o.Model, Autonomy: o.Autonomy})
	secret.Add(a.settings.APIKey)
	addURLSecrets(a.settings.BaseURL)
	if err := proc.HideRegistered(); err != nil {
		a.logf("hide credentials: %v", err)
	}

	if a.stateDir, err = stateDir(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(a.stateDir, 0o700); err != nil {
		return nil, fmt.Errorf("create the state directory: %w", err)
	}
	a.logFile, err = os.OpenFile(filepath.Join(a.stateDir, "myclaw.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err == nil {
		a.logger = log.New(tools.RedactWriter(a.logFile), "", log.LstdFlags|log.Lmicroseconds)
	}

	wsDir := o.Workspace
	if wsDir == "" {
		if wsDir, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	if a.workspace, err = builtin.OpenWorkspace(wsDir); err != nil {
		return nil, &agent.UserError{Msg: fmt.Sprintf("Cannot open the workspace %s: %v", wsDir, err), Hint: "Pass --workspace DIR with a directory that exists."}
	}
	// Writes into a hooks folder core.hooksPath names ask, as .git's do.
	tools.SetWorkspace(a.workspace.Dir())
	// myclaw's own files are never the file tools' business, even when
	// XDG_STATE_HOME or XDG_CONFIG_HOME lies inside the project.
	own := []string{a.stateDir, o.ConfigPath}
	if def := config.DefaultPath(); filepath.IsAbs(def) {
		own = append(own, filepath.Dir(def))
	}
	a.workspace.Protect(own...)
	a.workspace.RecordTemps(tempRecordPath(a.stateDir, a.workspace.Dir()))
	a.store = history.NewStore(a.stateDir)
	return a, nil
}

// openSession opens the session the Options ask for: --session ID,
// --continue (the newest of the workspace), or a new one.
func (a *app) openSession(allowNew bool) error {
	var err error
	switch {
	case a.opts.Session != "":
		a.session, err = a.store.OpenSession(a.opts.Session)
		if err != nil {
			return &agent.UserError{Msg: fmt.Sprintf("No session %q.", a.opts.Session), Hint: "List them with `myclaw sessions` (or /sessions in the TUI).", Err: err}
		}
		// A session's paths, undo steps and trust are its workspace's:
		// continued elsewhere, /undo would change this folder's files.
		if ws := a.session.Info().Workspace; filepath.Clean(ws) != filepath.Clean(a.workspace.Dir()) {
			a.session.Close()
			a.session = nil
			id := a.opts.Session
			return &agent.UserError{Msg: fmt.Sprintf("Session %s belongs to another workspace (%s).", id, ws), Hint: "Run myclaw --workspace " + ws + " --session " + id + " to continue it there."}
		}
	case a.opts.Continue || !allowNew:
		info, lerr := a.store.Latest(a.workspace.Dir())
		if lerr != nil {
			if allowNew && errors.Is(lerr, history.ErrNoSession) {
				a.session, err = a.store.NewSession(a.workspace.Dir(), a.settings.Model)
				if a.opts.Continue {
					a.notices = append(a.notices, ui.Notice{Text: "No earlier session in " + a.workspace.Dir() + " to continue: this is a new one (`myclaw sessions` lists them).", Warning: true})
				}
				return err
			}
			return &agent.UserError{Msg: "No session found for the workspace " + a.workspace.Dir() + ".", Hint: "Pass --workspace DIR (the directory myclaw ran in) or --session ID.", Err: lerr}
		}
		a.session, err = a.store.OpenSession(info.ID)
	default:
		a.session, err = a.store.NewSession(a.workspace.Dir(), a.settings.Model)
	}
	if err != nil {
		return fmt.Errorf("open the session: %w", err)
	}
	if a.opts.Fork {
		src := a.session
		if a.session, err = a.store.Fork(src, -1); err != nil {
			a.session = src
			return fmt.Errorf("fork the session: %w", err)
		}
		src.Close()
		a.notices = append(a.notices, ui.Notice{Text: fmt.Sprintf("Forked session %s into %s: this one has its own undo history; %s stays as it was.", src.Info().ID, a.session.Info().ID, src.Info().ID), Warning: false})
	}
	return nil
}

// buildPolicy makes the policy from the rules of the config.
func (a *app) buildPolicy() error {
	level, err := approval.ParseLevel(a.settings.Autonomy)
	if err != nil {
		return &agent.UserError{Msg: err.Error(), Hint: "Set autonomy in the config or --autonomy to readonly, ask, auto-edit or full."}
	}
	rules := make([]approval.Rule, len(a.cfg.Approval.Rules))
	for i, r := range a.cfg.Approval.Rules {
		rules[i] = approval.Rule(r)
	}
	// Rules saved for another project stay in the file, out of this session.
	a.policy, err = approval.NewPolicy(level, approval.ForWorkspace(rules, a.workspace.Dir()))
	if err != nil {
		return &agent.UserError{Msg: "The approval rules are not valid: " + err.Error(), Hint: "Fix [[approval.rules]] in " + a.cfg.Path + "."}
	}
	grants, err := approval.LoadHintGrants(a.hintGrantsPath(), a.workspace.Dir())
	if err != nil {
		a.notices = append(a.notices, ui.Notice{Text: "MCP read-only hint grants not loaded: " + err.Error(), Warning: true})
	}
	for _, g := range grants {
		a.policy.TrustHints(g)
	}
	a.sandboxMu.Lock()
	a.policy.SetSandbox(a.sandboxState)
	a.sandboxMu.Unlock()
	a.audit, err = approval.OpenAudit(filepath.Join(a.stateDir, approval.AuditFile))
	if err != nil {
		return fmt.Errorf("open the audit log: %w", err)
	}
	return nil
}

// hintGrantsPath is where the projects' grants that trust an MCP server's
// read-only hints are kept: in the state directory, which no project
// config can write or point elsewhere.
func (a *app) hintGrantsPath() string { return filepath.Join(a.stateDir, approval.HintGrantsFile) }

// buildAgent assembles the whole session: project config (if trusted),
// tools, policy, session, journal recovery, agent.
func (a *app) buildAgent() (*agent.Agent, error) {
	preloaded := a.preloadSession()
	if err := a.loadProjectConfig(); err != nil {
		return nil, err
	}
	a.buildSandbox()
	if err := a.buildTools(); err != nil {
		return nil, err
	}
	for _, pc := range a.projectConfigs() {
		if err := a.addConfigTools(pc, a.registry); err != nil {
			return nil, err
		}
	}
	for _, c := range append([]*config.Config{a.cfg}, a.projectConfigs()...) {
		if err := a.addHooks(c); err != nil {
			return nil, err
		}
	}
	if err := a.buildPolicy(); err != nil {
		return nil, err
	}
	if a.checkInBackground {
		// Ends with the check (its child is bounded by a timeout), or
		// at close.
		ctx, stop := context.WithCancel(context.Background())
		a.stopChecks = stop
		a.checks.Add(1)
		go func() {
			defer a.checks.Done()
			a.checkSandbox(ctx)
		}()
	} else {
		a.checkSandbox(context.Background())
	}
	a.loadInstructions()
	a.loadSkills()
	if a.session == nil {
		if err := a.openSession(true); err != nil {
			return nil, err
		}
	}
	a.noteOtherSessions()
	if _, split := preloaded.Tail(); split {
		// The journal opens behind the first frame, with the transcript
		// before its last turns; the agent recovers it (Recover) before
		// anything can use it.
		a.removeStaleTemps()
	} else if err := a.recover(); err != nil {
		return nil, err
	}
	client := chat.NewClient(chat.ClientConfig{BaseURL: a.settings.BaseURL, APIKey: a.settings.APIKey})
	ag, err := agent.New(agent.Options{
		Client:        client,
		Model:         a.settings.Model,
		Registry:      a.registry,
		Policy:        a.policy,
		Audit:         a.audit,
		Store:         a.store,
		Session:       a.session,
		Preloaded:     preloaded,
		Recover:       a.recoverJournal, // also of a long session /resume opens
		Workspace:     a.workspace.Dir(),
		MaxRounds:     a.settings.MaxToolRounds,
		ContextWindow: a.settings.ContextWindow,
		ConfigPath:    a.cfg.Path,
		HintGrants:    a.hintGrantsPath(),
		BaseURLOrigin: a.settings.Origin,
		Hooks:         a.hooks,
		Instructions:  a.instructions,
		Skills:        a.skills,
		UserTools:     a.userTools,
		Prices:        agent.Prices{Input: a.settings.PriceInput, Output: a.settings.PriceOutput},
		PreviewShell:  a.cfg.Shell.Preview,
		Withdrawn:     a.withdrawn,
		Logf:          a.logf,
	})
	if err == nil {
		a.agent.Store(ag)
		for _, w := range ag.StartSession(context.Background()) {
			a.notices = append(a.notices, ui.Notice{Text: w, Warning: true})
		}
	}
	return ag, err
}

// preloadSession opens the session to resume (or the fork of it), when
// there is one, and starts reading it, so that a long transcript loads
// while the tools, policy and instructions are built. Otherwise (a new
// session, no session to continue) it leaves the session to openSession.
func (a *app) preloadSession() *agent.Preloaded {
	if !a.opts.Continue && a.opts.Session == "" {
		return nil
	}
	if a.openSession(false) != nil {
		// openSession says why when called again.
		if a.session != nil {
			a.session.Close()
		}
		a.session = nil
		return nil
	}
	if a.resumeFromTail {
		return agent.PreloadTail(a.session)
	}
	return agent.Preload(a.session)
}

// loadInstructions reads the user's and the project's AGENTS.md (or the
// configured names). The project's are instructions only in a trusted
// folder; otherwise the model gets them as untrusted notes, and the user is
// told so.
func (a *app) loadInstructions() {
	in, errs := agent.LoadInstructions(agent.InstructionOptions{
		Root:     a.workspace.Root(),
		Names:    a.cfg.Instructions.Files,
		UserPath: config.File("AGENTS.md"),
		MaxBytes: a.cfg.Instructions.MaxBytes,
		Trusted:  a.project.trusted,
	})
	for _, err := range errs {
		a.notices = append(a.notices, ui.Notice{Text: "Skipped an instruction file: " + err.Error(), Warning: true})
	}
	a.instructions = in
	f := in.Project()
	if f == nil {
		return
	}
	cut := ""
	if f.Truncated {
		cut = fmt.Sprintf(", only the first %s given", tools.HumanSize(int64(len(f.Content))))
	}
	if a.project.trusted {
		a.notices = append(a.notices, ui.Notice{Text: fmt.Sprintf("%s found (%s%s) — followed as instructions (trusted folder).", f.Path, tools.HumanSize(f.Size), cut), Warning: false})
		return
	}
	how := "/trust"
	if a.opts.HasPrompt {
		how = "--trust"
	}
	a.notices = append(a.notices, ui.Notice{Text: fmt.Sprintf("%s found (%s%s) — loaded as untrusted notes; %s to follow it", f.Path, tools.HumanSize(f.Size), cut, how), Warning: true})
}

// noteOtherSessions marks this session as running and tells the user about
// any other that is running on the workspace: both change the same files,
// and each one's /undo reverts only its own calls.
func (a *app) noteOtherSessions() {
	id := a.session.Info().ID
	if err := a.session.Hold(); err != nil {
		a.logf("%v", err)
		a.notices = append(a.notices, ui.Notice{Text: fmt.Sprintf("Session %s is open in another myclaw process too; both write its transcript and journal: quit one of them.", id), Warning: true})
	}
	others, err := a.store.Active(a.workspace.Dir(), id)
	if err != nil {
		a.logf("check for other sessions: %v", err)
	}
	a.alone = err == nil && len(others) == 0
	for _, o := range others {
		a.notices = append(a.notices, ui.Notice{Warning: true, Text: fmt.Sprintf("Another myclaw session (%s, started %s) is active in this workspace: you both change the same files. `myclaw history` and `myclaw undo` from a shell see the calls of both; /undo in a session reverts only its own.",
			o.ID, o.Created.Local().Format("15:04"))})
	}
}

// tempRecordPath is where the folders that writes in workspace put
// temporary files in are recorded: one file per workspace in the state
// directory, so a start looks in those folders and not in the whole tree.
func tempRecordPath(state, workspace string) string {
	sum := sha256.Sum256([]byte(workspace))
	return filepath.Join(state, "temps", hex.EncodeToString(sum[:8]))
}

// recover finishes an undo or redo a crash interrupted.
func (a *app) recover() error {
	a.removeStaleTemps()
	j, err := a.session.Journal()
	if err != nil {
		return fmt.Errorf("open the undo journal: %w", err)
	}
	for _, l := range a.recoverJournal(j) {
		a.notices = append(a.notices, ui.Notice{Text: l, Warning: true})
	}
	return nil
}

// removeStaleTemps removes what writes a crash cut short left: a
// temporary file next to the user's file, which itself holds the old or
// the new content.
func (a *app) removeStaleTemps() {
	for _, p := range a.workspace.RemoveStaleTemps(30*time.Second, a.alone) {
		a.notices = append(a.notices, ui.Notice{Text: "Removed " + p + ", left by a write that was interrupted.", Warning: false})
	}
}

// recoverJournal finishes in j what a crash interrupted and returns the
// warnings for people: what loading it skipped, what it finished.
func (a *app) recoverJournal(j *history.Journal) []string {
	out := j.Warnings()
	lines, err := j.Recover(context.Background(), history.RegistryResolver(a.registry))
	out = append(out, lines...)
	if err != nil {
		out = append(out, "Could not finish an interrupted undo: "+err.Error())
	}
	return out
}

func (a *app) close() {
	if ag := a.agent.Load(); ag != nil {
		// A session loading behind the first frame is left as it is, or
		// its load (which may be finishing an undo) ends first.
		ag.Settle()
	}
	if a.stopChecks != nil {
		a.stopChecks()
	}
	a.checks.Wait()
	// The session ends: so do its background jobs.
	a.jobs.StopAll()
	a.mcpMu.Lock()
	for _, m := range a.mcps {
		_ = m.Close()
	}
	a.mcpMu.Unlock()
	if a.session != nil {
		_ = a.session.Close()
	}
	if a.audit != nil {
		_ = a.audit.Close()
	}
	if a.shellUndo != nil {
		_ = a.shellUndo.Close()
	}
	if a.workspace != nil {
		_ = a.workspace.Close()
	}
	if a.logFile != nil {
		_ = a.logFile.Close()
	}
}
