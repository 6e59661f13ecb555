package app

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"sync"
	"time"

	"myclaw/agent"
	"myclaw/config"
	"myclaw/history"
	"myclaw/tools"
	"myclaw/tools/builtin"
	"myclaw/tools/layer"
)

// agentsDir is where a trusted project defines its agents.
const agentsDir = ".myclaw/agents"

// subagentTool builds the agent tool: explore agents get a shell whose
// writes are discarded (where the preview can run), edit agents their
// file tools and shell over their layer.
func (a *app) subagentTool(blobs tools.BlobStore) tools.Tool {
	store := history.NewStore(filepath.Join(a.stateDir, "agents"))
	var explore tools.Tool
	if ro, why := agent.NewReadOnlyShell(a.userTools.Shell); ro != nil {
		explore = ro
	} else {
		a.logf("explore agents get no shell: %s", why)
	}
	shell := a.cfg.Shell
	c := a.cfg.Agents
	return agent.NewSubagentTool(agent.SubagentOptions{
		Store:        store,
		ExploreShell: explore,
		EditTools: func(ws *builtin.Workspace, sb tools.Sandbox) []tools.Tool {
			return []tools.Tool{
				builtin.NewFsRead(ws), builtin.NewFsWrite(ws, blobs), builtin.NewFsEdit(ws, blobs),
				builtin.NewGlobList(ws), builtin.NewGrepSearch(ws),
				builtin.NewShellRun(builtin.ShellOptions{
					Dir:            a.workspace.Dir(),
					OutputDir:      filepath.Join(a.stateDir, "shell-output"),
					DefaultTimeout: time.Duration(shell.TimeoutS) * time.Second,
					MaxTimeout:     time.Duration(shell.MaxTimeoutS) * time.Second,
					Sandbox:        sb,
					OnlyConfined:   true,
				}),
			}
		},
		NewLayer:    a.editLayer(),
		Revert:      a.layerRevert(),
		Parallel:    c.Parallel,
		MaxRounds:   c.MaxRounds,
		MaxTokens:   c.MaxTokens,
		Timeout:     time.Duration(c.TimeoutS) * time.Second,
		Definitions: a.agentDefinitions(),
	})
}

// editLayer is the factory of edit agents' layers (tools/layer): an error
// saying why where none can be made refuses edit mode.
func (a *app) editLayer() func() (agent.EditLayer, error) {
	return func() (agent.EditLayer, error) {
		if a.sandbox == nil || !a.sandboxStatus().Active {
			return nil, errors.New("an edit agent works in a copy-on-write layer the sandbox holds, and the sandbox is not active here (/sandbox says why)")
		}
		if a.shellUndo == nil {
			return nil, errors.New("an edit agent's merge is taken back by shell undo, which [shell] undo = false turns off")
		}
		l, err := layer.Open(a.workspace, a.sandbox, "")
		if err != nil {
			return nil, err
		}
		l.UseUndo(a.shellUndo)
		return editLayer{l}, nil
	}
}

// editLayer gives a layer's merge the agent package's type.
type editLayer struct{ *layer.Layer }

func (e editLayer) Propose(ctx context.Context) (agent.Proposal, error) {
	return e.Layer.Propose(ctx)
}

// layerRevert takes back an applied merge (tools/layer's undo data, in
// steps of shell undo's format).
func (a *app) layerRevert() agent.LayerRevert {
	if a.shellUndo == nil {
		return nil
	}
	return layer.Revert(a.shellUndo)
}

// agentDefinitions lists the defined agents: the user's, and the
// project's once the folder is trusted. Each list is read once.
func (a *app) agentDefinitions() func() []agent.Definition {
	var mu sync.Mutex
	cache := map[bool][]agent.Definition{}
	return func() []agent.Definition {
		trusted := a.instructions != nil && a.instructions.Trusted()
		mu.Lock()
		defer mu.Unlock()
		if defs, ok := cache[trusted]; ok {
			return defs
		}
		user := agent.DirFS(filepath.Join(filepath.Dir(config.DefaultPath()), "agents"))
		var project fs.FS
		if trusted {
			// Read through the workspace root: no link leads out of it.
			if sub, err := fs.Sub(a.workspace.Root().FS(), agentsDir); err == nil {
				project = sub
			}
		}
		defs, errs := agent.LoadDefinitions(user, project)
		for _, err := range errs {
			a.logf("defined agents: %v", err)
		}
		cache[trusted] = defs
		return defs
	}
}
