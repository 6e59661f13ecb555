package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"myclaw/history"
	"myclaw/tools"
	"myclaw/tools/builtin"
)

// Sub-agent modes.
const (
	ModeExplore = "explore"
	ModeEdit    = "edit"
)

// Defaults for SubagentOptions fields left zero.
const (
	DefaultSubagentParallel = 3
	DefaultSubagentRounds   = 20
	DefaultSubagentTokens   = 400_000
	DefaultSubagentTimeout  = 15 * time.Minute
)

// SubagentTool is the tool's name.
const SubagentTool = "agent"

// SubagentOptions configures the agent tool.
type SubagentOptions struct {
	// Store keeps the sub-agents' transcripts, apart from the sessions.
	Store *history.Store
	// ExploreShell is the shell explore agents get: its commands run where
	// nothing they write reaches the workspace (ReadOnlyShell); nil gives
	// them none.
	ExploreShell tools.Tool
	// EditTools builds an edit agent's file tools and shell over its layer.
	EditTools func(ws *builtin.Workspace, sb tools.Sandbox) []tools.Tool
	// NewLayer opens an edit agent's layer; nil, or an error, refuses edit
	// mode with the reason.
	NewLayer func() (EditLayer, error)
	// Revert takes back an applied merge (/undo).
	Revert LayerRevert
	// Parallel bounds the sub-agents running at once.
	Parallel int
	// MaxRounds, MaxTokens and Timeout bound one sub-agent.
	MaxRounds int
	MaxTokens int
	Timeout   time.Duration
	// Definitions lists the defined agents (nil for none).
	Definitions func() []Definition
}

// subagentArgs are the tool's arguments.
type subagentArgs struct {
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
	Mode        string `json:"mode,omitempty"`
	AgentType   string `json:"agent_type,omitempty"`
}

// subagentTool runs sub-agents: the builtin tool "agent".
type subagentTool struct {
	opts  SubagentOptions
	slots chan struct{}

	mu   sync.Mutex
	runs []*SubagentRun
	seq  int
	// applyMu holds one merge's apply at a time.
	applyMu sync.Mutex
	// pruned prunes old transcripts once, at the first sub-agent.
	pruned sync.Once
}

// NewSubagentTool returns the agent tool.
func NewSubagentTool(o SubagentOptions) tools.Tool {
	if o.Parallel <= 0 {
		o.Parallel = DefaultSubagentParallel
	}
	if o.MaxRounds <= 0 {
		o.MaxRounds = DefaultSubagentRounds
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = DefaultSubagentTokens
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultSubagentTimeout
	}
	return &subagentTool{opts: o, slots: make(chan struct{}, o.Parallel)}
}

const subagentSchema = `{"type":"object","properties":{
"description":{"type":"string","minLength":1,"maxLength":80,"description":"A few words saying what the sub-agent does, shown to the user."},
"prompt":{"type":"string","minLength":1,"description":"The whole task: the sub-agent sees nothing of this conversation, so say what to do, where, and what to report."},
"mode":{"type":"string","enum":["explore","edit"],"description":"explore: read-only tools, in the workspace itself. edit: file tools and shell in a private copy of the workspace; the user reviews the merged change before it lands. Default: the defined agent's, else explore."},
"agent_type":{"type":"string","description":"The name of a defined agent to run (see the list in this description)."}},
"required":["description","prompt"],"additionalProperties":false}`

// Meta implements tools.Tool. The tool is read-only as declared (explore,
// the default); an edit call's own meta says it is not (CallMeta).
func (s *subagentTool) Meta() tools.Meta {
	return tools.Meta{
		Name:        SubagentTool,
		Description: s.description(),
		Schema:      json.RawMessage(subagentSchema),
		ReadOnly:    true,
		Risk:        tools.RiskLow,
		Capability:  "agent:explore",
		Timeout:     s.opts.Timeout + time.Minute,
		Source:      tools.SourceBuiltin,
	}
}

func (s *subagentTool) description() string {
	d := "Delegate a task to a sub-agent: it works with its own context and tools and returns only its final report. " +
		"Delegate broad searches across many files, and independent sub-tasks that can run side by side (several agent calls in one answer run in parallel). " +
		"Do not delegate what one or two direct tool calls do, work that needs this conversation's context, or a step whose result you need to see in detail: the report is all you get. " +
		"mode explore reads only; mode edit changes files in a private copy that the user reviews as one merge."
	if s.opts.Definitions != nil {
		if defs := s.opts.Definitions(); len(defs) > 0 {
			d += " Defined agents (agent_type):"
			for _, def := range defs {
				d += fmt.Sprintf(" %s (%s): %s;", def.Name, def.Mode, def.Description)
			}
			d = strings.TrimSuffix(d, ";") + "."
		}
	}
	return d
}

// CallMeta is the meta of one call: an edit agent has side effects and
// goes through the policy and the approval pane.
func (s *subagentTool) CallMeta(raw json.RawMessage) tools.Meta {
	m := s.Meta()
	a, err := s.parse(raw)
	if err == nil && a.Mode == ModeEdit {
		m.ReadOnly, m.Risk, m.Capability = false, tools.RiskMedium, "agent:edit"
	}
	return m
}

// parse decodes the arguments and fills the mode from the definition.
func (s *subagentTool) parse(raw json.RawMessage) (subagentArgs, error) {
	var a subagentArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, tools.Errorf(tools.KindInvalidArgs, "Pass description, prompt and mode.", "the arguments do not decode: %v", err)
	}
	if a.AgentType != "" {
		def, ok := s.definition(a.AgentType)
		if !ok {
			return a, tools.Errorf(tools.KindNotFound, "Use one of the defined agents named in the tool's description, or leave agent_type out.", "there is no defined agent %q", a.AgentType)
		}
		if a.Mode == "" {
			a.Mode = def.Mode
		}
		if def.Mode == ModeExplore && a.Mode == ModeEdit {
			return a, tools.Errorf(tools.KindInvalidArgs, "Call it with mode explore, or without agent_type.", "the defined agent %q reads only; it cannot run in edit mode", a.AgentType)
		}
	}
	if a.Mode == "" {
		a.Mode = ModeExplore
	}
	return a, nil
}

func (s *subagentTool) definition(name string) (Definition, bool) {
	if s.opts.Definitions == nil {
		return Definition{}, false
	}
	for _, d := range s.opts.Definitions() {
		if d.Name == name {
			return d, true
		}
	}
	return Definition{}, false
}

// DryRun describes an edit agent for the policy.
func (s *subagentTool) DryRun(_ context.Context, raw json.RawMessage) (tools.Result, error) {
	a, err := s.parse(raw)
	if err != nil {
		return tools.Result{}, err
	}
	return tools.Result{
		Summary:    fmt.Sprintf("Run %s agent %q; its changes come back as one merge to approve", a.Mode, a.Description),
		Preview:    a.Prompt,
		Capability: "agent:" + a.Mode,
		UndoPlan:   "one /undo takes back the whole merge",
	}, nil
}

// CanPreview implements tools.Previewer: an edit agent always works in
// its layer first.
func (s *subagentTool) CanPreview(raw json.RawMessage) string {
	a, err := s.parse(raw)
	switch {
	case err != nil:
		return err.Error()
	case a.Mode != ModeEdit:
		return "explore agents change nothing"
	}
	return ""
}

// previewsFirst marks a tool whose every asking call runs as a preview
// first, whatever [shell] preview says.
func (s *subagentTool) previewsFirst() {}

// Preview implements tools.Previewer: the edit agent runs in its own
// layer; what comes back is its merge, for the pane.
func (s *subagentTool) Preview(ctx context.Context, raw json.RawMessage) (tools.Preview, error) {
	a, err := s.parse(raw)
	if err != nil {
		return nil, err
	}
	if a.Mode != ModeEdit {
		return nil, tools.Errorf(tools.KindUnsupported, "", "explore agents change nothing to preview")
	}
	return s.runEdit(ctx, a)
}

// Execute implements tools.Tool: an explore agent's report; an edit
// agent's merge applied (the approved preview's, or, where the policy
// allows it without asking, its own).
func (s *subagentTool) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	a, err := s.parse(raw)
	if err != nil {
		return tools.Result{}, err
	}
	if a.Mode == ModeExplore {
		out, err := s.run(ctx, a, nil)
		if err != nil {
			return tools.Result{}, err
		}
		return out.result(nil), nil
	}
	// A merge the person approved in the pane, or one the policy allows
	// without asking.
	p, _ := tools.PreviewedFrom(ctx).(*agentMerge)
	asked := p != nil
	if p == nil {
		if p, err = s.runEdit(ctx, a); err != nil {
			return tools.Result{}, err
		}
	}
	return s.applyMerge(ctx, raw, a, p, asked)
}

// Revert implements tools.Reverter: /undo of an applied merge.
func (s *subagentTool) Revert(ctx context.Context, undo json.RawMessage, force bool) (json.RawMessage, error) {
	if s.opts.Revert == nil {
		return nil, errors.New("no layer here to take back an agent's merge")
	}
	return s.opts.Revert(ctx, undo, force)
}

// runEdit runs an edit agent in a new layer and proposes its merge.
func (s *subagentTool) runEdit(ctx context.Context, a subagentArgs) (*agentMerge, error) {
	if s.opts.NewLayer == nil || s.opts.EditTools == nil {
		return nil, editRefused("this build has no copy-on-write layer of the workspace")
	}
	l, err := s.opts.NewLayer()
	if err != nil {
		return nil, editRefused(err.Error())
	}
	out, err := s.run(ctx, a, l)
	if err != nil {
		l.Discard()
		return nil, err
	}
	prop, err := l.Propose(ctx)
	if err != nil {
		l.Discard()
		return nil, fmt.Errorf("merge the agent's changes: %w", err)
	}
	return &agentMerge{Proposal: prop, layer: l, out: out}, nil
}

func editRefused(why string) error {
	return tools.Errorf(tools.KindUnsupported, "Use mode explore and make the change yourself, or ask the user.",
		"edit agents need a private copy of the workspace, and none can be made here (%s); the workspace is never shared with one", why)
}

// agentMerge is an edit agent's proposed merge, shown in the pane.
type agentMerge struct {
	Proposal
	layer EditLayer
	out   *subOutcome
	// again is set once the merge was computed again because the
	// workspace changed after it was shown.
	again bool
}

// ChangesNothing reports a merge with nothing in it: the agent changed no
// file (what it tried on protected paths was skipped).
func (m *agentMerge) ChangesNothing() bool { return len(m.Files()) == 0 }

// Summary implements tools.Preview.
func (m *agentMerge) Summary() string {
	// The merge's own summary counts and names the conflicts.
	return fmt.Sprintf("Merge agent %q: %s", m.out.run.Description, m.Proposal.Summary())
}

// Report implements tools.Preview: the agent, its report, then the merge.
func (m *agentMerge) Report() string {
	var b strings.Builder
	if m.again {
		b.WriteString("Proposed again: " + RemergeWhy + " (another merge applied, or a file was edited).\n")
	}
	fmt.Fprintf(&b, "Agent: %s (edit)\nTask: %s\n", m.out.run.Description, oneLine(m.out.run.Prompt, 200))
	if r := strings.TrimSpace(m.out.report); r != "" {
		fmt.Fprintf(&b, "Report: %s\n", oneLine(r, 400))
	}
	if c := m.Conflicts(); len(c) > 0 {
		fmt.Fprintf(&b, "Conflicts (approving applies nothing while any remain): %s\n", strings.Join(c, ", "))
	}
	b.WriteString("\n")
	b.WriteString(m.Proposal.Report())
	return b.String()
}

// Repropose merges the layer again against the workspace as it is now:
// the person resolved a conflict there.
func (m *agentMerge) Repropose(ctx context.Context) error {
	prop, err := m.layer.Propose(ctx)
	if err != nil {
		return fmt.Errorf("merge the agent's changes again: %w", err)
	}
	m.Proposal.Discard()
	m.Proposal = prop
	return nil
}

// Discard implements tools.Preview: the merge and the layer go.
func (m *agentMerge) Discard() {
	m.Proposal.Discard()
	m.layer.Discard()
}

// apply writes the merge (applyMerge drops the layer after).
func (m *agentMerge) apply(ctx context.Context) (tools.Result, error) {
	if m.ChangesNothing() {
		// Nothing is written, so nothing is journaled: /undo skips it.
		m.Proposal.Discard()
		out := m.out.result([]string{})
		out.Summary = fmt.Sprintf("Agent %q changed nothing to merge", m.out.run.Description)
		if r := strings.TrimSpace(m.Proposal.Report()); r != "" {
			out.Body += "\n\n" + r // what was skipped, if anything
		}
		return out, nil
	}
	if c := m.Conflicts(); len(c) > 0 {
		m.Proposal.Discard()
		return tools.Result{}, tools.Errorf(tools.KindExternalError, "Look at those files, then make the change yourself or run an agent on them again.",
			"the agent's change was not merged: its edits overlap changes made meanwhile in %s", strings.Join(c, ", "))
	}
	res, err := m.Apply(ctx)
	if err != nil {
		return tools.Result{}, err
	}
	out := m.out.result(m.Files())
	out.Undo, out.UndoPlan = res.Undo, "one /undo takes back the whole merge"
	out.Summary = fmt.Sprintf("Merged agent %q: %s", m.out.run.Description, m.Proposal.Summary())
	out.Preview = res.Preview
	return out, nil
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
