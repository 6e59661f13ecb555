package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"myclaw/internal/durable"
)

// ErrNoMCPServer says the config declares no MCP server of that name.
var ErrNoMCPServer = errors.New("no such MCP server")

// AddMCPServer appends a [mcp.servers.NAME] table for s to the config file
// at path (created, 0600, if missing) and returns the text it appended. The
// rest of the file is kept byte for byte (its line endings too) and the
// file is replaced atomically, through a symlink if path is one. It
// refuses, changing nothing, a name the file already declares, a file that
// does not parse, and a result that would not load as a config or would
// change more than the one server.
func AddMCPServer(path, name string, s MCPServer) (string, error) {
	if len(s.Args) == 0 {
		s.Args = nil
	}
	if len(s.Env) == 0 {
		s.Env = nil
	}
	if len(s.Headers) == 0 {
		s.Headers = nil
	}
	saveMu.Lock()
	defer saveMu.Unlock()
	target, old, mode, err := readForEdit(path)
	if err != nil {
		return "", fmt.Errorf("add MCP server %s to %s: %w", name, path, err)
	}
	var before map[string]any
	if err := toml.Unmarshal(old, &before); err != nil {
		return "", fmt.Errorf("add MCP server %s to %s: the file does not parse as TOML (%s); fix it first, nothing was changed", name, target, describeTOMLError(err))
	}
	if _, ok := mcpServersOf(before)[name]; ok {
		line := ""
		if n := mcpHeaderLine(old, name); n > 0 {
			line = fmt.Sprintf(" (line %d)", n)
		}
		return "", fmt.Errorf("%s already declares an MCP server named %q%s: remove it first (myclaw mcp remove %s) or pick another name", target, name, line, name)
	}
	nl := "\n"
	if bytes.Contains(old, []byte("\r\n")) {
		nl = "\r\n"
	}
	block := strings.ReplaceAll(mcpServerTOML(name, s), "\n", nl)
	var text strings.Builder
	if len(old) > 0 {
		if !bytes.HasSuffix(old, []byte("\n")) {
			text.WriteString(nl)
		}
		text.WriteString(nl)
	}
	text.WriteString(block)
	updated := append(bytes.Clone(old), text.String()...)

	byHand := func(why string) error {
		return fmt.Errorf("add MCP server %s to %s: %s; nothing was changed. Add it by hand:\n%s", name, target, why, strings.TrimRight(block, "\r\n"))
	}
	var after map[string]any
	if err := toml.Unmarshal(updated, &after); err != nil {
		return "", byHand("the table would not fit in the file (" + describeTOMLError(err) + ")")
	}
	cfg, err := Parse(target, updated)
	if err != nil {
		return "", byHand("the result would not load: " + err.Error())
	}
	if got := cfg.MCP.Servers[name]; !reflect.DeepEqual(got, s) || !reflect.DeepEqual(withoutServer(before, name), withoutServer(after, name)) {
		return "", byHand("the table would change more than the one server")
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return "", fmt.Errorf("add MCP server %s to %s: %w", name, target, err)
	}
	if err := durable.WriteFile(target, updated, mode); err != nil {
		return "", fmt.Errorf("add MCP server %s to %s: %w", name, target, err)
	}
	return text.String(), nil
}

// RemoveMCPServer takes the [mcp.servers.NAME] table out of the config file
// at path, with its sub-tables ([mcp.servers.NAME.env], ...) and the
// comment lines just above its header. Comments and blank lines before the
// next table stay with it. The rest is kept byte for byte and the file
// replaced atomically; when the cut would change anything but that server
// (it is written another way: an inline table, dotted keys), nothing is
// changed and the error says to edit the file by hand. A file that does not
// declare the server gives ErrNoMCPServer.
func RemoveMCPServer(path, name string) error {
	saveMu.Lock()
	defer saveMu.Unlock()
	target, old, mode, err := readForEdit(path)
	if err != nil {
		return fmt.Errorf("remove MCP server %s from %s: %w", name, path, err)
	}
	var before map[string]any
	if err := toml.Unmarshal(old, &before); err != nil {
		return fmt.Errorf("remove MCP server %s from %s: the file does not parse as TOML (%s)", name, target, describeTOMLError(err))
	}
	if _, ok := mcpServersOf(before)[name]; !ok {
		return fmt.Errorf("%w: %s declares none named %q", ErrNoMCPServer, target, name)
	}
	lines := strings.SplitAfter(string(old), "\n")
	cut := make([]bool, len(lines))
	for i := 0; i < len(lines); i++ {
		key, ok := tableHeader(lines[i])
		if !ok || len(key) < 3 || key[0] != "mcp" || key[1] != "servers" || key[2] != name {
			continue
		}
		start, end := i, i+1
		for end < len(lines) {
			if strings.HasPrefix(strings.TrimSpace(lines[end]), "[") {
				break
			}
			end++
		}
		for end > start+1 {
			if t := strings.TrimSpace(lines[end-1]); t != "" && !strings.HasPrefix(t, "#") {
				break
			}
			end--
		}
		for start > 0 && strings.HasPrefix(strings.TrimSpace(lines[start-1]), "#") && !cut[start-1] {
			start--
		}
		if start > 0 && strings.TrimSpace(lines[start-1]) == "" {
			start--
		}
		for j := start; j < end; j++ {
			cut[j] = true
		}
		i = end - 1
	}
	var kept []string
	for i, l := range lines {
		if !cut[i] {
			kept = append(kept, l)
		}
	}
	updated := []byte(strings.Join(kept, ""))
	var after map[string]any
	if toml.Unmarshal(updated, &after) != nil || !reflect.DeepEqual(withoutServer(before, name), withoutServer(after, name)) {
		return fmt.Errorf("remove MCP server %s from %s: it is not written as a [mcp.servers.%s] table that can be cut cleanly; nothing was changed, remove it by hand", name, target, tomlKey(name))
	}
	if _, ok := mcpServersOf(after)[name]; ok {
		return fmt.Errorf("remove MCP server %s from %s: it is not written as a [mcp.servers.%s] table that can be cut cleanly; nothing was changed, remove it by hand", name, target, tomlKey(name))
	}
	if err := durable.WriteFile(target, updated, mode); err != nil {
		return fmt.Errorf("remove MCP server %s from %s: %w", name, target, err)
	}
	return nil
}

// readForEdit resolves a symlinked config to its target (the rename then
// replaces the file, not the link) and returns its bytes and permissions;
// a missing file is empty, to be created private to the user.
func readForEdit(path string) (target string, data []byte, mode fs.FileMode, err error) {
	target = path
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return "", nil, 0, fmt.Errorf("it is a symlink whose target cannot be resolved: %w", err)
		}
	}
	fi, err := os.Stat(target)
	if errors.Is(err, fs.ErrNotExist) {
		return target, nil, 0o600, nil
	}
	if err != nil {
		return "", nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return "", nil, 0, errors.New("not a regular file")
	}
	data, err = os.ReadFile(target)
	return target, data, fi.Mode().Perm(), err
}

// mcpServerTOML writes s as a [mcp.servers.NAME] table, its keys in the
// order config.example.toml uses.
func mcpServerTOML(name string, s MCPServer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[mcp.servers.%s]\n", tomlKey(name))
	if s.Command != "" {
		fmt.Fprintf(&b, "command = %s\n", tomlString(s.Command))
	}
	if len(s.Args) > 0 {
		q := make([]string, len(s.Args))
		for i, a := range s.Args {
			q[i] = tomlString(a)
		}
		fmt.Fprintf(&b, "args = [%s]\n", strings.Join(q, ", "))
	}
	if s.URL != "" {
		fmt.Fprintf(&b, "url = %s\n", tomlString(s.URL))
	}
	if len(s.Env) > 0 {
		fmt.Fprintf(&b, "env = %s\n", inlineTable(s.Env))
	}
	if len(s.Headers) > 0 {
		fmt.Fprintf(&b, "headers = %s\n", inlineTable(s.Headers))
	}
	if o := s.OAuth; o != nil {
		var kv []string
		if o.ClientID != "" {
			kv = append(kv, "client_id = "+tomlString(o.ClientID))
		}
		if o.ClientSecretEnv != "" {
			kv = append(kv, "client_secret_env = "+tomlString(o.ClientSecretEnv))
		}
		if len(o.Scopes) > 0 {
			q := make([]string, len(o.Scopes))
			for i, sc := range o.Scopes {
				q[i] = tomlString(sc)
			}
			kv = append(kv, "scopes = ["+strings.Join(q, ", ")+"]")
		}
		if o.CallbackPort != 0 {
			kv = append(kv, fmt.Sprintf("callback_port = %d", o.CallbackPort))
		}
		fmt.Fprintf(&b, "oauth = { %s }\n", strings.Join(kv, ", "))
	}
	if s.TimeoutS != 0 {
		fmt.Fprintf(&b, "timeout_s = %d\n", s.TimeoutS)
	}
	return b.String()
}

func inlineTable(m map[string]string) string {
	keys := slices.Sorted(maps.Keys(m))
	kv := make([]string, len(keys))
	for i, k := range keys {
		kv[i] = tomlKey(k) + " = " + tomlString(m[k])
	}
	return "{ " + strings.Join(kv, ", ") + " }"
}

var bareKeyRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// tomlKey writes k bare when TOML allows it, quoted otherwise (a '.').
func tomlKey(k string) string {
	if bareKeyRE.MatchString(k) {
		return k
	}
	return tomlString(k)
}

// tableHeader parses a [table] header line into its key path; an array of
// tables ([[...]]) or anything else is not one.
func tableHeader(line string) ([]string, bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "[") || strings.HasPrefix(t, "[[") {
		return nil, false
	}
	var key []string
	var cur strings.Builder
	quote := byte(0)
	for i := 1; i < len(t); i++ {
		c := t[i]
		switch {
		case quote != 0 && c == '\\' && quote == '"' && i+1 < len(t):
			// An escaped character in a quoted key: keep it as written;
			// such a key matches no server name, so nothing is cut.
			cur.WriteByte(c)
			cur.WriteByte(t[i+1])
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote = c
		case c == '.':
			key = append(key, strings.TrimSpace(cur.String()))
			cur.Reset()
		case c == ']':
			key = append(key, strings.TrimSpace(cur.String()))
			rest := strings.TrimSpace(t[i+1:])
			return key, rest == "" || strings.HasPrefix(rest, "#")
		default:
			cur.WriteByte(c)
		}
	}
	return nil, false
}

// mcpHeaderLine is the line (1-based) of the [mcp.servers.NAME] header,
// or 0.
func mcpHeaderLine(data []byte, name string) int {
	for i, l := range strings.Split(string(data), "\n") {
		if key, ok := tableHeader(l); ok && slices.Equal(key, []string{"mcp", "servers", name}) {
			return i + 1
		}
	}
	return 0
}

func mcpServersOf(doc map[string]any) map[string]any {
	m, _ := doc["mcp"].(map[string]any)
	s, _ := m["servers"].(map[string]any)
	return s
}

// withoutServer is doc without mcp.servers.NAME, and without the mcp and
// servers tables should they be left empty.
func withoutServer(doc map[string]any, name string) map[string]any {
	out := maps.Clone(doc)
	m, ok := out["mcp"].(map[string]any)
	if !ok {
		return out
	}
	m = maps.Clone(m)
	if s, ok := m["servers"].(map[string]any); ok {
		s = maps.Clone(s)
		delete(s, name)
		m["servers"] = s
		if len(s) == 0 {
			delete(m, "servers")
		}
	}
	out["mcp"] = m
	if len(m) == 0 {
		delete(out, "mcp")
	}
	return out
}

// MCPServerNames lists the servers the config declares, sorted.
func (c *Config) MCPServerNames() []string {
	names := make([]string, 0, len(c.MCP.Servers))
	for n := range c.MCP.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
