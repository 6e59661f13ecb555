package app

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/sandbox"
)

// The user's status command runs in every folder, and a status command
// commonly runs git, which obeys the folder's .git/config: in a folder not
// trusted it runs read-only and without network, so what the folder names
// can write nothing; trusted, it runs as it is; with no sandbox, not at all.
func TestStatusCommandIsConfinedInAFolderNotTrusted(t *testing.T) {
	ws := t.TempDir()
	marker := filepath.Join(ws, "planted")
	run := func(b *tuiBackend) (string, error) {
		cmd := exec.Command("/bin/sh", "-c", "touch "+marker+" 2>/dev/null; echo ran")
		cmd.Dir = ws
		var out bytes.Buffer
		cmd.Stdout = &out
		done, err := b.confineStatus(cmd)
		if err != nil {
			return "", err
		}
		defer done()
		err = cmd.Run()
		return strings.TrimSpace(out.String()), err
	}

	b := &tuiBackend{app: &app{}}
	if _, err := run(b); err == nil || !strings.Contains(err.Error(), "not trusted") {
		t.Errorf("no sandbox, not trusted: %v; want it not run, saying why", err)
	}

	b.app.sandbox = sandbox.New(sandbox.Options{Workspace: ws})
	if st := b.app.sandbox.Check(t.Context()); !st.Active {
		t.Skip("no sandbox here: " + st.Why)
	}
	if out, err := run(b); err != nil || out != "ran" {
		t.Fatalf("not trusted, sandboxed: %q, %v; want it run", out, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the status command wrote in a folder not trusted")
	}

	b.app.project.trusted = true
	if out, err := run(b); err != nil || out != "ran" {
		t.Fatalf("trusted: %q, %v", out, err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("trusted, the status command ran confined: %v", err)
	}
}
