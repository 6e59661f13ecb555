package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"myclaw/internal/durable"
	"myclaw/tools"
)

// SeenFile is the file, in the state directory, that keeps the last seen
// definition of every MCP tool, per workspace: a tool a server changed
// between two runs is reported as changed, as one changed while running is.
const SeenFile = "mcp-seen.json"

// seenDef is what was last seen of one tool's definition: enough to say
// how it changed (the description and the parameter names).
type seenDef struct {
	Definition  string   `json:"definition"`
	Description string   `json:"description"`
	Params      []string `json:"params,omitempty"`
}

func seenOf(m tools.Meta) seenDef {
	params := schemaParams(m.Schema)
	names := make([]string, 0, len(params))
	for p := range params {
		names = append(names, p)
	}
	slices.Sort(names)
	return seenDef{Definition: m.Definition, Description: m.Description, Params: names}
}

// meta rebuilds as much of the tool's Meta as describeChange compares.
func (d seenDef) meta() tools.Meta {
	props := map[string]json.RawMessage{}
	for _, p := range d.Params {
		props[p] = json.RawMessage(`{}`)
	}
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
	return tools.Meta{Definition: d.Definition, Description: d.Description, Schema: schema}
}

// seenPath is the file of last seen definitions; "" when nothing is kept.
func (m *Manager) seenPath() string {
	if m.opts.StateDir == "" || m.opts.Workspace == "" {
		return ""
	}
	return filepath.Join(m.opts.StateDir, SeenFile)
}

// loadSeen reads the file: workspace -> display name -> definition. A
// missing or unreadable file is empty (it only feeds warnings).
func loadSeen(path string) map[string]map[string]seenDef {
	all := map[string]map[string]seenDef{}
	if data, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(data, &all)
	}
	return all
}

// lastSeenLocked returns the definitions last seen in the workspace,
// loaded once. Called with m.mu held.
func (m *Manager) lastSeenLocked() map[string]seenDef {
	if m.seen == nil {
		m.seen = map[string]seenDef{}
		if path := m.seenPath(); path != "" {
			for k, v := range loadSeen(path)[m.opts.Workspace] {
				m.seen[k] = v
			}
		}
	}
	return m.seen
}

// saveSeen records the definitions of the tools now listed, on top of
// what the file holds (other workspaces, other servers). Called without
// m.mu; a lost update between two processes only loses a warning.
func (m *Manager) saveSeen(listed []tools.Meta) {
	path := m.seenPath()
	if path == "" || len(listed) == 0 {
		return
	}
	m.seenMu.Lock()
	defer m.seenMu.Unlock()
	all := loadSeen(path)
	ws := all[m.opts.Workspace]
	if ws == nil {
		ws = map[string]seenDef{}
		all[m.opts.Workspace] = ws
	}
	dirty := false
	for _, meta := range listed {
		if d := seenOf(meta); !slices.Equal(d.Params, ws[meta.Name].Params) || d.Definition != ws[meta.Name].Definition || d.Description != ws[meta.Name].Description {
			ws[meta.Name], dirty = d, true
		}
	}
	if !dirty {
		return
	}
	data, err := json.MarshalIndent(all, "", "  ")
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o700)
	}
	if err == nil {
		err = durable.WriteFile(path, append(data, '\n'), 0o600)
	}
	if err != nil {
		m.logf("mcp: cannot record the tools' definitions in %s: %v", path, err)
	}
}
