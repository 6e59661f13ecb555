package approval

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"myclaw/internal/durable"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
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
// nothing, a rule ValidateRules would refuse, a file that does not parse as
// TOML, and a file where the block would not add the rule (approval.rules
// written as an inline array, for instance).
func SaveRule(path string, r Rule) (string, error) {
	if _, err := compileRule(r); err != nil {
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
		if have == r {
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
	if after := configRules(check); err == nil && (len(after) != len(before)+1 || after[len(after)-1] != r) {
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
		out[i] = Rule{Tool: str("tool"), Match: str("match"), Decision: str("decision")}
	}
	return out
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
