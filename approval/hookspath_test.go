package approval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/tools"
	"myclaw/tools/builtin"
)

// TestHooksFolderWritesAsk: with core.hooksPath naming .husky, a file
// write there and a sandboxed command writing there ask on auto-edit, as
// .git/hooks does; full allows.
func TestHooksFolderWritesAsk(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(ws, "none"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n\thooksPath = .husky\n"), 0o644)
	tools.SetWorkspace(ws)
	t.Cleanup(func() { tools.SetWorkspace("") })

	write := callReq(writeMeta, "fs:write:.husky/pre-commit")
	if v := mustPolicy(t, AutoEdit).Evaluate(write); v.Outcome != OutcomeAsk || !strings.Contains(v.Why, "core.hooksPath") {
		t.Errorf("fs_write .husky/pre-commit on auto-edit: %+v; want ask naming core.hooksPath", v)
	}
	if v := mustPolicy(t, Full).Evaluate(write); v.Outcome != OutcomeAllow {
		t.Errorf("full: %+v; want allow", v)
	}
	if v := mustPolicy(t, AutoEdit).Evaluate(callReq(writeMeta, "fs:write:src/a.go")); v.Outcome != OutcomeAllow {
		t.Errorf("an ordinary write: %+v; want allow", v)
	}

	line := `printf '#!/bin/sh\ntouch /tmp/marker\n' > .husky/pre-commit`
	args, _ := json.Marshal(map[string]string{"command": line})
	req := Request{CallID: "c1", Tool: "shell_run", Meta: shellMeta, Args: args, Capability: "shell:exec"}
	cl, err := builtin.ParseCommandLine(line, ws)
	if err != nil {
		t.Fatal(err)
	}
	req.Command = &cl
	if v := sandboxed(t, AutoEdit, activeSandbox).Evaluate(req); v.Outcome != OutcomeAsk || !strings.Contains(v.Why, "core.hooksPath") {
		t.Errorf("a sandboxed line writing .husky/pre-commit on auto-edit: %+v; want ask naming core.hooksPath", v)
	}
}
