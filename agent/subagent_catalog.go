package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"myclaw/tools"
)

// notForSubagents are the caller's tools a sub-agent never gets: no
// agents of its own, no plan on the user's screen, and no shell but the
// one its mode builds.
var notForSubagents = []string{SubagentTool, "todo_write", "shell_run", "shell_jobs"}

// editBuilt are the tools an edit agent gets built over its layer.
var editBuilt = []string{"fs_read", "fs_write", "fs_edit", "glob_list", "grep_search", "shell_run"}

// catalog builds a sub-agent's tools: the caller's read-only tools, plus
// for an explore agent the shell that changes nothing and for an edit
// agent the file tools and shell over its layer; a definition's
// allow-list narrows that, never widens it.
func (s *subagentTool) catalog(p *Agent, mode string, def Definition, layer EditLayer) (*tools.Registry, error) {
	var list []tools.Tool
	if mode == ModeEdit {
		list = append(list, s.opts.EditTools(layer.Workspace(), layer.Sandbox())...)
	} else if s.opts.ExploreShell != nil {
		list = append(list, s.opts.ExploreShell)
	}
	for _, t := range p.opts.Registry.List() {
		m := t.Meta()
		if !m.ReadOnly || slices.Contains(notForSubagents, m.Name) || mode == ModeEdit && slices.Contains(editBuilt, m.Name) {
			continue
		}
		list = append(list, t)
	}
	reg := tools.NewRegistry()
	for _, t := range list {
		if len(def.Tools) > 0 && !slices.Contains(def.Tools, t.Meta().Name) {
			continue
		}
		if mode == ModeExplore && !t.Meta().ReadOnly && !isReadOnlyShell(t) {
			continue
		}
		if err := reg.Register(t); err != nil {
			return nil, fmt.Errorf("the agent's catalog: %w", err)
		}
	}
	return reg, nil
}

// ReadOnlyShell wraps shell_run for explore agents: the policy judges each
// command as usual, and it runs as a preview (confined, no network, over
// a copy-on-write layer of the workspace) whose changes are always
// discarded: nothing it writes reaches the workspace.
type ReadOnlyShell struct {
	shell tools.Tool
	pv    tools.Previewer
}

// NewReadOnlyShell wraps shell, a shell_run that can preview; it returns
// nil, with the reason, where it cannot (explore agents get no shell then).
func NewReadOnlyShell(shell tools.Tool) (*ReadOnlyShell, string) {
	pv, ok := shell.(tools.Previewer)
	if !ok {
		return nil, "shell_run cannot run in a scratch layer here"
	}
	if why := pv.CanPreview(json.RawMessage(`{"command":"true"}`)); why != "" {
		return nil, why
	}
	return &ReadOnlyShell{shell: shell, pv: pv}, ""
}

func isReadOnlyShell(t tools.Tool) bool { _, ok := t.(*ReadOnlyShell); return ok }

// Meta implements tools.Tool: shell_run's, with a description that says
// what happens to writes.
func (r *ReadOnlyShell) Meta() tools.Meta {
	m := r.shell.Meta()
	m.Description += " Here commands run read-only: what they write is discarded when they end, so use them to look, build or test, not to change files."
	return m
}

// DryRun implements tools.DryRunner: the command as the policy judges it.
func (r *ReadOnlyShell) DryRun(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	if dr, ok := r.shell.(tools.DryRunner); ok {
		res, err := dr.DryRun(ctx, raw)
		res.Undo, res.UndoPlan = nil, ""
		return res, err
	}
	return tools.Result{Summary: "Run shell_run (read-only)", Preview: string(raw)}, nil
}

// previewResult is what a preview run offers of its result.
type previewResult interface {
	Result() tools.Result
	Changed() int
}

// Execute implements tools.Tool: the command runs as a preview, which is
// then discarded.
func (r *ReadOnlyShell) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	if tools.PreviewedFrom(ctx) != nil {
		// Never apply a preview, whoever approved one.
		ctx = tools.WithPreviewed(ctx, nil)
	}
	run, err := r.pv.Preview(ctx, raw)
	if err != nil {
		return tools.Result{}, err
	}
	defer run.Discard()
	pr, ok := run.(previewResult)
	if !ok {
		return tools.Result{}, tools.Errorf(tools.KindUnsupported, "", "the shell's scratch run has no result to show")
	}
	res := pr.Result()
	res.Undo, res.UndoPlan, res.Preview = nil, "", ""
	if n := pr.Changed(); n > 0 {
		res.Summary += fmt.Sprintf(" (its %d changes were discarded: this agent reads only)", n)
		out := map[string]any{}
		if b, err := json.Marshal(res.Output); err == nil {
			_ = json.Unmarshal(b, &out)
		}
		out["discarded_changes"] = n
		out["note"] = "this agent reads only: what the command wrote was discarded"
		res.Output = out
	}
	return res, nil
}
