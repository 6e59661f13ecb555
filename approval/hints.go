package approval

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"myclaw/internal/durable"
	"myclaw/tools"
)

// HintGrant is the user's choice to trust the read-only hints of one MCP
// server (not trusted as a whole) in one project: its tools that claim to be
// read-only run without asking under ask and auto-edit. It covers the tools
// the server listed when it was given, each with its definition digest, so
// a tool added or changed since asks again (a server cannot turn a trusted
// read into a write by redefining it).
type HintGrant struct {
	Server string `json:"server"`
	// Tools maps each read-only-claimed tool (display name) to its
	// tools.Meta.Definition at the time of the grant.
	Tools   map[string]string `json:"tools"`
	Granted time.Time         `json:"granted"`
}

// NewHintGrant builds the grant for server from the tools now listed: the
// ones whose read-only claim comes from that server.
func NewHintGrant(server string, listed []tools.Meta, now time.Time) HintGrant {
	g := HintGrant{Server: server, Tools: map[string]string{}, Granted: now.UTC()}
	for _, m := range listed {
		if m.HintServer == server && m.Definition != "" {
			g.Tools[m.Name] = m.Definition
		}
	}
	return g
}

// TrustHints adds (or replaces) the grant for g.Server.
func (p *Policy) TrustHints(g HintGrant) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hints == nil {
		p.hints = map[string]HintGrant{}
	}
	p.hints[g.Server] = g
}

// HintStatus says, for /tools, how a tool that claims to be read-only
// stands with the server's hint grant; "" for other tools.
func (p *Policy) HintStatus(m tools.Meta) string {
	if m.HintServer == "" {
		return ""
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	ok, why := p.hintCovers(m)
	if ok {
		g := p.hints[m.HintServer]
		return fmt.Sprintf("trusted in this project since %s: calls run without asking under ask and auto-edit", g.Granted.Local().Format("2006-01-02 15:04"))
	}
	return why
}

// hintCovers reports whether a grant lets m's read-only claim count, and
// if not, why. Called with p.mu held.
func (p *Policy) hintCovers(m tools.Meta) (bool, string) {
	g, ok := p.hints[m.HintServer]
	if !ok {
		return false, "the read-only hints of " + m.HintServer + " are not trusted in this project"
	}
	def, listed := g.Tools[m.Name]
	switch {
	case !listed:
		return false, fmt.Sprintf("%s was not listed when you trusted the read-only hints of %s", m.Name, m.HintServer)
	case def != m.Definition:
		// What changed, when known, is in m.Changed, which the pane shows.
		return false, fmt.Sprintf("the definition of %s changed since you trusted the read-only hints of %s", m.Name, m.HintServer)
	}
	return true, ""
}

// HintGrantsFile is the file, in the state directory, that holds the hint
// grants of every project.
const HintGrantsFile = "mcp-hint-grants.json"

// LoadHintGrants returns the grants saved for workspace in the file at
// path; none when the file does not exist.
func LoadHintGrants(path, workspace string) ([]HintGrant, error) {
	all, err := readHintGrants(path)
	if err != nil {
		return nil, err
	}
	byServer := all[workspace]
	out := make([]HintGrant, 0, len(byServer))
	for _, name := range slices.Sorted(maps.Keys(byServer)) {
		out = append(out, byServer[name])
	}
	return out, nil
}

// hintsMu serialises the changes to the hint grants file in the process.
var hintsMu sync.Mutex

// SaveHintGrant records g for workspace in the file at path, replacing the
// grant the server had there. The file is replaced atomically.
func SaveHintGrant(path, workspace string, g HintGrant) error {
	hintsMu.Lock()
	defer hintsMu.Unlock()
	all, err := readHintGrants(path)
	if err != nil {
		return err
	}
	if all[workspace] == nil {
		all[workspace] = map[string]HintGrant{}
	}
	all[workspace][g.Server] = g
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return fmt.Errorf("save the hint grant: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("save the hint grant: %w", err)
	}
	if err := durable.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("save the hint grant: %w", err)
	}
	return nil
}

// UntrustHints drops the session's grant for server: its read-only
// claims ask again.
func (p *Policy) UntrustHints(server string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.hints, server)
}

// RemoveHintGrant forgets server's grant for workspace in the file at
// path, for /permissions remove; it reports whether there was one.
func RemoveHintGrant(path, workspace, server string) (bool, error) {
	hintsMu.Lock()
	defer hintsMu.Unlock()
	all, err := readHintGrants(path)
	if err != nil {
		return false, err
	}
	if _, ok := all[workspace][server]; !ok {
		return false, nil
	}
	delete(all[workspace], server)
	if len(all[workspace]) == 0 {
		delete(all, workspace)
	}
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return false, fmt.Errorf("remove the hint grant: %w", err)
	}
	if err := durable.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		return false, fmt.Errorf("remove the hint grant: %w", err)
	}
	return true, nil
}

func readHintGrants(path string) (map[string]map[string]HintGrant, error) {
	all := map[string]map[string]HintGrant{}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return all, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return all, nil
	}
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, fmt.Errorf("%s is corrupt (%w): fix or remove it", path, err)
	}
	return all, nil
}
