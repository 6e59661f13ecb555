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
	"slices"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"

	"myclaw/internal/durable"
)

// saveMu serialises SaveRule within the process, so two grants saved at
// once cannot both read the old file and lose one rule.
var saveMu sync.Mutex

// SaveRule makes a session grant permanent: it appends a [[approval.rules]]
// block to the TOML config file at path, creating the file and its
// directory if needed. It returns the exact text it appended, or "" when
// the file already holds the same rule.
//
// The rest of the file is kept byte for byte (its line endings too), and the
// file is replaced atomically (temp file, fsync, rename, fsync of the
// directory), through a symlink if path is one. It refuses, changing
// nothing, a rule valid refuses (the policy's validation: approval's
// CheckRule), a file that does not parse as TOML, and a file where the block
// would not add the rule (approval.rules written as an inline array, for
// instance).
func SaveRule(path string, r Rule, valid func(Rule) error) (string, error) {
	if err := valid(r); err != nil {
		return "", fmt.Errorf("save rule to %s: %w", path, err)
	}
	saveMu.Lock()
	defer saveMu.Unlock()

	target, err := resolveConfigPath(path)
	if err != nil {
		return "", err
	}
	old, mode, err := readConfig(target)
	if err != nil {
		return "", err
	}
	var doc map[string]any
	if err := toml.Unmarshal(old, &doc); err != nil {
		return "", fmt.Errorf("save rule to %s: the file does not parse as TOML (%s); fix it first, nothing was changed", target, describeTOMLError(err))
	}
	before := configRules(doc)
	for _, have := range before {
		if have.Same(r) {
			return "", nil
		}
	}

	nl := "\n"
	if bytes.Contains(old, []byte("\r\n")) {
		nl = "\r\n"
	}
	var text strings.Builder
	if len(old) > 0 {
		if !bytes.HasSuffix(old, []byte("\n")) {
			text.WriteString(nl)
		}
		text.WriteString(nl)
	}
	text.WriteString("[[approval.rules]]" + nl + strings.ReplaceAll(r.String(), "\n", nl) + nl)

	updated := append(bytes.Clone(old), text.String()...)
	var check map[string]any
	err = toml.Unmarshal(updated, &check)
	if after := configRules(check); err == nil && (len(after) != len(before)+1 || !after[len(after)-1].Same(r)) {
		err = errors.New("the block would not add to approval.rules")
	}
	if err != nil {
		return "", fmt.Errorf("save rule to %s: cannot append a [[approval.rules]] block (%s); add the rule by hand:\n[[approval.rules]]\n%s", target, describeTOMLError(err), r)
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return "", fmt.Errorf("save rule to %s: %w", target, err)
	}
	if err := durable.WriteFile(target, updated, mode); err != nil {
		return "", fmt.Errorf("save rule to %s: %w", target, err)
	}
	return text.String(), nil
}

// resolveConfigPath follows a symlinked config to its target, so that the
// rename replaces the file and not the link (dotfile managers rely on it).
func resolveConfigPath(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("save rule to %s: it is a symlink whose target cannot be resolved: %w", path, err)
	}
	return target, nil
}

// readConfig returns the file's bytes and permissions; a missing file is
// empty, to be created private to the user.
func readConfig(path string) ([]byte, fs.FileMode, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o600, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("save rule to %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("save rule to %s: not a regular file", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("save rule to %s: %w", path, err)
	}
	return data, fi.Mode().Perm(), nil
}

// configRules lists the [[approval.rules]] of a decoded config; entries that
// are not tables of strings come back as zero Rules.
func configRules(doc map[string]any) []Rule {
	approval, _ := doc["approval"].(map[string]any)
	list, _ := approval["rules"].([]any)
	out := make([]Rule, len(list))
	for i, item := range list {
		t, _ := item.(map[string]any)
		str := func(k string) string { s, _ := t[k].(string); return s }
		out[i] = Rule{Tool: str("tool"), Match: str("match"), Decision: str("decision"), Workspace: str("workspace")}
		if b, ok := t["network"].(bool); ok {
			out[i].Network = &b
		}
	}
	return out
}

// SavedRule is a rule of a config file with the line its block starts on
// (0 when it cannot be told: the rules are not all [[approval.rules]]
// blocks).
type SavedRule struct {
	Rule
	Line int
}

// ReadRules lists the [[approval.rules]] of the config at path, for
// /permissions. A missing file has none.
func ReadRules(path string) ([]SavedRule, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read rules of %s: %w", path, err)
	}
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("read rules of %s: %s", path, describeTOMLError(err))
	}
	rules := configRules(doc)
	heads := ruleHeaders(data)
	out := make([]SavedRule, len(rules))
	for i, r := range rules {
		out[i].Rule = r
		if len(heads) == len(rules) {
			out[i].Line = heads[i] + 1
		}
	}
	return out, nil
}

// ruleHeaders returns the (0-based) lines that open an [[approval.rules]]
// block.
func ruleHeaders(data []byte) []int {
	var out []int
	for i, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "[[approval.rules]]" {
			out = append(out, i)
		}
	}
	return out
}

// RemoveRule takes the first rule saying the same as r out of the config
// at path: its [[approval.rules]] block, up to the next table or the end.
// The rest of the file is kept byte for byte and the file replaced
// atomically; when the cut would change anything else (the rules are not
// all blocks, or a block holds more than its keys), nothing is changed and
// the error says to edit the file by hand.
func RemoveRule(path string, r Rule) error {
	saveMu.Lock()
	defer saveMu.Unlock()
	target, err := resolveConfigPath(path)
	if err != nil {
		return err
	}
	old, mode, err := readConfig(target)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := toml.Unmarshal(old, &doc); err != nil {
		return fmt.Errorf("remove rule from %s: the file does not parse as TOML (%s)", target, describeTOMLError(err))
	}
	before := configRules(doc)
	idx := slices.IndexFunc(before, r.Same)
	if idx < 0 {
		return fmt.Errorf("remove rule from %s: no such rule there (was it edited since?)", target)
	}
	byHand := fmt.Errorf("remove rule from %s: cannot cut its block cleanly; remove it by hand:\n[[approval.rules]]\n%s", target, r)
	lines := strings.SplitAfter(string(old), "\n")
	heads := ruleHeaders(old)
	if len(heads) != len(before) {
		return byHand
	}
	start, end := heads[idx], heads[idx]+1
	for end < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[end]), "[") {
		end++
	}
	// Comments and blank lines before the next table belong to it.
	for end > start+1 {
		if t := strings.TrimSpace(lines[end-1]); t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		end--
	}
	// The blank line SaveRule put before the block goes with it.
	if start > 0 && strings.TrimSpace(lines[start-1]) == "" {
		start--
	}
	updated := []byte(strings.Join(append(slices.Clone(lines[:start]), lines[end:]...), ""))
	var check map[string]any
	want := slices.Delete(slices.Clone(before), idx, idx+1)
	if toml.Unmarshal(updated, &check) != nil || !slices.EqualFunc(configRules(check), want, Rule.Same) || !sameOutside(doc, check) {
		return byHand
	}
	if err := durable.WriteFile(target, updated, mode); err != nil {
		return fmt.Errorf("remove rule from %s: %w", target, err)
	}
	return nil
}

// sameOutside reports whether two decoded configs agree on everything but
// approval.rules.
func sameOutside(a, b map[string]any) bool {
	strip := func(doc map[string]any) map[string]any {
		out := maps.Clone(doc)
		if ap, ok := out["approval"].(map[string]any); ok {
			ap = maps.Clone(ap)
			delete(ap, "rules")
			out["approval"] = ap
			if len(ap) == 0 {
				delete(out, "approval")
			}
		}
		return out
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

// describeTOMLError names the line and column of a TOML syntax error.
func describeTOMLError(err error) string {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return fmt.Sprintf("line %d, column %d: %s", row, col, de.Error())
	}
	return err.Error()
}
