package agent

import (
	"context"
	"encoding/json"

	"myclaw/tools"
	"myclaw/tools/builtin"
)

// EditLayer is an edit agent's private copy-on-write view of the workspace.
type EditLayer interface {
	// Workspace is the view the sub-agent's file tools use (fs_read, fs_write,
	// fs_edit, glob_list, grep_search are built on it with the usual builtin
	// constructors): it reads the workspace through the layer, and what the
	// tools write lands only in the layer.
	Workspace() *builtin.Workspace
	// Sandbox confines the sub-agent's shell commands so that they run over the
	// same layer (its writes land in the layer, never in the workspace); pass
	// it as builtin.ShellOptions.Sandbox with Dir = the real workspace dir.
	Sandbox() tools.Sandbox
	// Propose merges the layer three-way against the workspace as it is now.
	// The result is shown in the approval pane (Summary/Report: a diff per file,
	// conflicts named file by file) and applied, or discarded.
	Propose(ctx context.Context) (Proposal, error)
	// Discard drops the layer; nothing of it reaches the workspace. Idempotent.
	Discard()
}

// Proposal is a merge ready for approval.
type Proposal interface {
	tools.Preview        // Summary(), Report(), Discard()
	Files() []string     // workspace-relative paths the merge changes
	Conflicts() []string // paths whose hunks overlap (merge refuses to apply while any remain)
	// Apply writes the merge to the workspace as ONE journaled change: the
	// Result's Undo data, given back to Revert, takes back everything at once.
	Apply(ctx context.Context) (tools.Result, error)
}

// LayerRevert takes back an applied merge from its undo data (the layer
// package's Revert); the agent tool's /undo delegates to it.
type LayerRevert func(ctx context.Context, undo json.RawMessage, force bool) (redo json.RawMessage, err error)
