package ui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/internal/durable"
	"myclaw/tools"
	"myclaw/tools/proc"
)

// Prompt history on disk: one JSON string per line, newest last, per
// workspace. Bounded on both ends: prompts past maxHistoryBytes (a paste)
// are not kept, and the file is cut back to maxHistory when it has grown
// to twice that.
const (
	maxHistory      = 500
	maxHistoryBytes = 8 << 10
)

// keepable reports whether a prompt may be written to the history file:
// not too long, and holding nothing that looks like a secret (a value
// myclaw knows to be one, or a token, password or key by its shape).
func keepable(p string) bool {
	return len(p) <= maxHistoryBytes && tools.Redact(p) == p && proc.MaskSecrets(p) == p
}

// loadPromptHistory reads the history file, newest last; a missing or
// unreadable file is an empty history (recall is a convenience). When the
// file holds more than twice maxHistory prompts it is rewritten with the
// newest maxHistory.
func loadPromptHistory(path string) []string {
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 4*maxHistoryBytes)
	for sc.Scan() {
		var p string
		if json.Unmarshal(sc.Bytes(), &p) == nil && p != "" && keepable(p) {
			out = append(out, p)
		}
	}
	if len(out) > 2*maxHistory {
		out = out[len(out)-maxHistory:]
		var b bytes.Buffer
		for _, p := range out {
			line, _ := json.Marshal(p)
			b.Write(append(line, '\n'))
		}
		_ = durable.WriteFile(path, b.Bytes(), 0o600)
	}
	if len(out) > maxHistory {
		out = out[len(out)-maxHistory:]
	}
	return out
}

// savePrompt appends p to the history file, in a Cmd; nil when it is not
// to be kept.
func savePrompt(path, p string) tea.Cmd {
	if path == "" || !keepable(p) {
		return nil
	}
	return func() tea.Msg {
		line, _ := json.Marshal(p)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil
		}
		defer f.Close()
		_, _ = f.Write(append(line, '\n')) // one write: appends from two sessions do not mix
		return nil
	}
}
