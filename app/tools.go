package app

import (
	"fmt"
	"path/filepath"
	"time"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/config"
	"myclaw/tools"
	"myclaw/tools/builtin"
	"myclaw/tools/command"
)

// buildTools registers the builtin catalog and the config-defined tools.
func (a *app) buildTools() error {
	reg := tools.NewRegistry()
	a.registry = reg
	blobs := a.store.Blobs()
	ws := a.workspace
	shell := a.cfg.Shell
	var confiner tools.Sandbox
	if a.sandbox != nil {
		confiner = a.sandbox
	}
	web := builtin.WebOptions{
		AllowPrivateHosts: a.cfg.Web.AllowPrivateHosts,
		Timeout:           time.Duration(a.cfg.Web.TimeoutS) * time.Second,
		MaxBytes:          a.cfg.Web.MaxBytes,
		UserAgent:         "myclaw",
	}
	memory, err := builtin.OpenMemory(filepath.Join(a.stateDir, "memory.json"))
	if err != nil {
		return fmt.Errorf("open the memory notes: %w", err)
	}
	if shell.Undo == nil || *shell.Undo {
		a.shellUndo, err = builtin.NewShellUndo(ws, blobs, filepath.Join(a.stateDir, "shell-cache"), a.stateDir, filepath.Dir(config.DefaultPath()))
		if err != nil {
			return fmt.Errorf("prepare undo of shell commands: %w", err)
		}
	}
	a.jobs = builtin.NewShellJobs()
	a.userTools = agent.UserTools{
		Root:     ws.Root(),
		Vision:   a.settings.Vision,
		Resource: a.resourceReader,
		Reader:   builtin.NewFsRead(ws),
		Lister:   builtin.NewGlobList(ws),
		Shell: builtin.NewShellRun(builtin.ShellOptions{
			Dir:            ws.Dir(),
			OutputDir:      filepath.Join(a.stateDir, "shell-output"),
			DefaultTimeout: time.Duration(shell.TimeoutS) * time.Second,
			MaxTimeout:     time.Duration(shell.MaxTimeoutS) * time.Second,
			ShownBytes: func() int {
				if ag := a.agent.Load(); ag != nil {
					return ag.OutputBudget()
				}
				return 0
			},
			Sandbox: confiner,
			Undo:    a.shellUndo,
			Jobs:    a.jobs,
		}),
	}
	for _, t := range []tools.Tool{
		a.userTools.Reader,
		builtin.NewFsWrite(ws, blobs),
		builtin.NewFsEdit(ws, blobs),
		a.userTools.Lister,
		builtin.NewGrepSearch(ws),
		a.userTools.Shell,
		builtin.NewShellJobsTool(a.jobs),
		builtin.NewWebFetch(web),
		builtin.NewTimeNow(time.Now),
		builtin.NewTodoWrite(),
		builtin.NewPlanSubmit(),
		builtin.NewMemoryStore(memory),
		builtin.NewMemoryFetch(memory),
	} {
		reg.MustRegister(t)
	}
	reg.MustRegister(a.subagentTool(blobs))
	if a.cfg.Web.SearchURL != "" {
		reg.MustRegister(builtin.NewWebSearch(a.cfg.Web.SearchURL, web))
	}
	if s := a.cfg.SupraLLM; s.Provider != "" || s.BaseURL != "" {
		opts := builtin.SupraOptions{BaseURL: s.BaseURL, Model: s.Model}
		keyEnv := s.APIKeyEnv
		if p, ok := a.cfg.Providers[s.Provider]; ok {
			if opts.BaseURL == "" {
				opts.BaseURL = p.BaseURL
			}
			if opts.Model == "" {
				opts.Model = p.Model
			}
			if keyEnv == "" {
				keyEnv = p.APIKeyEnv
			}
		}
		if keyEnv != "" {
			opts.APIKey = a.credential(keyEnv)
		}
		reg.MustRegister(builtin.NewSupraLLM(opts))
	}
	return a.addConfigTools(a.cfg, reg)
}

// addConfigTools registers the [[tools]] entries of one config file, all
// or none: on an error the ones it registered are withdrawn again.
func (a *app) addConfigTools(cfg *config.Config, reg *tools.Registry) (err error) {
	var added []string
	defer func() {
		if err != nil {
			for _, name := range added {
				reg.Unregister(name)
			}
		}
	}()
	for i, t := range cfg.Tools {
		schema, err := t.SchemaJSON()
		if err != nil {
			return fmt.Errorf("%s: %w", cfg.ToolOrigin(i), err)
		}
		spec := command.Spec{
			Name:        t.Name,
			Description: t.Description,
			Command:     t.Command,
			InputSchema: schema,
			Capability: command.Capability{
				ReadOnly: t.Capability.ReadOnly, Writes: t.Capability.Writes, WriteScope: t.Capability.WriteScope,
				Checkpointable: t.Capability.Checkpointable, SideEffects: t.Capability.SideEffects,
				Idempotent: t.Capability.Idempotent, Unsafe: t.Capability.Unsafe, HumanApprovalRequired: t.Capability.HumanApprovalRequired,
			},
			Risk:             t.Risk,
			ReturnsUntrusted: t.ReturnsUntrusted,
			Timeout:          t.Timeout,
			Dir:              a.workspace.Dir(),
			Origin:           cfg.ToolOrigin(i),
		}
		tool, err := command.New(spec) // checks the spec
		if err != nil {
			return &agent.UserError{Msg: "A tool in the config is not valid: " + err.Error(), Hint: "Fix or remove that [[tools]] entry."}
		}
		if err := reg.Register(tool); err != nil {
			return &agent.UserError{Msg: fmt.Sprintf("%s: %v", cfg.ToolOrigin(i), err), Hint: "Tool names must be unique namespace/short_name."}
		}
		added = append(added, t.Name)
	}
	return nil
}

// addHooks adds the [[hooks.STAGE]] entries of one config file.
func (a *app) addHooks(cfg *config.Config) error {
	for _, st := range cfg.Hooks.ByStage() {
		for i, h := range st.Hooks {
			origin := fmt.Sprintf("%s: hooks.%s[%d]", cfg.Path, st.Stage, i)
			pattern, err := approval.CompileToolPattern(h.Tool)
			if err != nil {
				return &agent.UserError{Msg: fmt.Sprintf("%s: tool: %v", origin, err), Hint: "Fix that [[hooks." + st.Stage + "]] entry (\"*\" matches every tool)."}
			}
			a.hooks = append(a.hooks, agent.Hook{
				Stage:   st.Stage,
				Tool:    pattern,
				Command: h.Command,
				Timeout: time.Duration(h.TimeoutS) * time.Second,
				Origin:  origin,
			})
		}
	}
	return nil
}
