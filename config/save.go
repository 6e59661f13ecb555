package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"myclaw/internal/durable"
)

var topModelRE = regexp.MustCompile(`^\s*model\s*=`)

// SaveModel makes name the default model in the config file at path (the
// top-level model key), creating the file if needed. An existing top-level
// model line is replaced; otherwise the key goes before the first table.
// The rest of the file is kept byte for byte and the file is replaced
// atomically; when the result would change anything but the model (or not
// parse), nothing is written and the error says so. It returns the line
// it wrote.
func SaveModel(path, name string) (string, error) {
	if path == "" {
		return "", errors.New("save the model: no config file path is known")
	}
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target // dotfile managers link the config; keep the link
	}
	old, err := os.ReadFile(path)
	mode := fs.FileMode(0o600)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return "", fmt.Errorf("save the model to %s: %w", path, err)
	default:
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	var before map[string]any
	if err := toml.Unmarshal(old, &before); err != nil {
		return "", fmt.Errorf("save the model to %s: the file does not parse as TOML; fix it first, nothing was changed", path)
	}
	q, _ := json.Marshal(name) // a JSON string is a TOML basic string for these characters
	line := "model = " + string(q)
	nl := "\n"
	if bytes.Contains(old, []byte("\r\n")) {
		nl = "\r\n"
	}
	lines := strings.SplitAfter(string(old), "\n")
	at, replace := len(lines), false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			at = i
			break
		}
		if topModelRE.MatchString(l) {
			at, replace = i, true
			break
		}
	}
	var out []string
	switch {
	case replace:
		out = append(append(append(out, lines[:at]...), line+trailingComment(lines[at])+nl), lines[at+1:]...)
	case at == len(lines) && len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")):
		out = append(append(out, lines...), nl+line+nl)
	default:
		out = append(append(append(out, lines[:at]...), line+nl), lines[at:]...)
	}
	updated := []byte(strings.Join(out, ""))
	var after map[string]any
	if toml.Unmarshal(updated, &after) != nil || after["model"] != name || !reflect.DeepEqual(without(before, "model"), without(after, "model")) {
		return "", fmt.Errorf("save the model to %s: cannot set it without changing more; add it by hand at the top: %s", path, line)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("save the model to %s: %w", path, err)
	}
	if err := durable.WriteFile(path, updated, mode); err != nil {
		return "", fmt.Errorf("save the model to %s: %w", path, err)
	}
	return line, nil
}

// trailingComment returns the comment that ends a `key = value` line, with
// the blanks before it ("" when there is none), so that replacing the
// line keeps it. The value is skipped as TOML reads it: a '#' inside a
// quoted string is not a comment.
func trailingComment(l string) string {
	l = strings.TrimRight(l, "\r\n")
	_, v, ok := strings.Cut(l, "=")
	if !ok {
		return ""
	}
	rest := strings.TrimLeft(v, " \t")
	end := -1
	switch {
	case strings.HasPrefix(rest, `"`):
		for i := 1; i < len(rest); i++ {
			if rest[i] == '\\' {
				i++
			} else if rest[i] == '"' {
				end = i + 1
				break
			}
		}
	case strings.HasPrefix(rest, "'"):
		if i := strings.IndexByte(rest[1:], '\''); i >= 0 {
			end = i + 2
		}
	default:
		end = len(rest)
		if i := strings.IndexByte(rest, '#'); i >= 0 {
			end = i
		}
	}
	if end < 0 {
		return ""
	}
	after := rest[end:]
	if i := strings.IndexByte(after, '#'); i >= 0 && strings.TrimLeft(after[:i], " \t") == "" {
		return after
	}
	return ""
}

func without(m map[string]any, key string) map[string]any {
	out := maps.Clone(m)
	delete(out, key)
	return out
}
