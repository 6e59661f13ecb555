package app

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"myclaw/agent"
	"myclaw/config"
	"myclaw/internal/durable"
	"myclaw/tools"
	"myclaw/ui"
)

// projectConfigName is the project-level config in the workspace. It can
// add tools, MCP servers and hooks, which run code, so it is loaded only
// once the user trusts the folder (and again only while its content is the
// one they trusted).
const projectConfigName = ".myclaw.toml"

// noProjectConfig is what the trust store remembers for a folder trusted
// while it had no .myclaw.toml: one that appears later is not trusted.
const noProjectConfig = "none"

// trustStore remembers trusted folders: workspace -> SHA-256 of the
// .myclaw.toml the user trusted (noProjectConfig when it had none). The
// same trust lets the folder's AGENTS.md instruct the model and its
// .myclaw/commands be used.
type trustStore struct{ path string }

func (a *app) trustStore() trustStore {
	return trustStore{path: filepath.Join(a.stateDir, "trusted.json")}
}

func (s trustStore) load() (map[string]string, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s is corrupt: %w", s.path, err)
	}
	return m, nil
}

func (s trustStore) trust(workspace, sum string) error {
	m, err := s.load()
	if err != nil {
		return err
	}
	m[workspace] = sum
	b, _ := json.MarshalIndent(m, "", "  ")
	return durable.WriteFile(s.path, b, 0o600)
}

// projectState says what became of the workspace's .myclaw.toml.
type projectState struct {
	exists  bool
	trusted bool
	changed bool // trusted once, but the file changed since
	sum     string
	cfg     *config.Config
	// skipped says why a .myclaw.toml that is there was not read (see
	// readProjectFile); the folder then counts as having none.
	skipped string
}

// readProjectConfig reads the project config through the workspace root;
// one that is not a regular file inside the workspace is skipped (see
// readProjectFile).
func (a *app) readProjectConfig() (projectState, []byte, error) {
	src, skip := readProjectFile(a.workspace.Root())
	st := projectState{sum: noProjectConfig, skipped: skip}
	if src != nil {
		sum := sha256.Sum256(src)
		st = projectState{exists: true, sum: hex.EncodeToString(sum[:])}
	}
	trusted, err := a.trustStore().load()
	if err != nil {
		return st, nil, err
	}
	if prev, ok := trusted[a.workspace.Dir()]; ok {
		st.trusted = prev == st.sum
		st.changed = prev != st.sum
	}
	return st, src, nil
}

// loadProjectConfig loads .myclaw.toml when the folder is trusted (or
// --trust is given, which remembers it), and otherwise says it ignored it.
func (a *app) loadProjectConfig() error {
	st, src, err := a.readProjectConfig()
	if err != nil {
		return err
	}
	if st.skipped != "" {
		a.notices = append(a.notices, ui.Notice{Text: projectSkipNotice(st.skipped), Warning: true})
	}
	if !st.trusted && a.opts.Trust {
		if err := a.trustStore().trust(a.workspace.Dir(), st.sum); err != nil {
			return fmt.Errorf("remember the trusted folder: %w", err)
		}
		st.trusted = true
	}
	if !st.exists {
		a.project = st
		return nil
	}
	if !st.trusted {
		why := "this folder is not trusted yet"
		if st.changed {
			why = "it changed since you trusted it"
		}
		a.notices = append(a.notices, ui.Notice{Text: fmt.Sprintf("Ignored %s: %s, and it can add tools, MCP servers and hooks that run commands. Review it, then run /trust (or myclaw --trust) to load it.", projectConfigName, why), Warning: true})
		a.project = st
		return nil
	}
	path := filepath.Join(a.workspace.Dir(), projectConfigName)
	cfg, err := config.Parse(path, src)
	if err != nil {
		return &agent.UserError{Msg: "The project config is not valid: " + err.Error(), Hint: "Fix " + path + "."}
	}
	if err := cfg.CheckProjectScope(); err != nil {
		return &agent.UserError{Msg: err.Error(), Hint: "Move other settings to your own config (" + a.cfg.Path + ")."}
	}
	st.cfg = cfg
	a.project = st
	a.notices = append(a.notices, ui.Notice{Text: fmt.Sprintf("Loaded %s: %s, %s, %s.", projectConfigName, tools.Count(len(cfg.Tools), "tool"), tools.Count(len(cfg.MCP.Servers), "MCP server"), tools.Count(cfg.Hooks.Count(), "hook"))})
	return nil
}

// projectConfigs returns the loaded project config, if any.
func (a *app) projectConfigs() []*config.Config {
	if a.project.cfg == nil {
		return nil
	}
	return []*config.Config{a.project.cfg}
}
