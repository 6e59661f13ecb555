package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"myclaw/sandbox"
	"myclaw/tools"
)

// benchUndoTree fills dir with files small files in folders of 100, aged
// past every racy window as a user's tree mostly is.
func benchUndoTree(b *testing.B, dir string, files int) {
	old := time.Now().Add(-time.Hour)
	for i := 0; i < files; i++ {
		d := filepath.Join(dir, fmt.Sprintf("d%03d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		p := filepath.Join(d, fmt.Sprintf("f%03d.txt", i%100))
		if err := os.WriteFile(p, []byte("a line\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		os.Chtimes(p, old, old)
	}
}

// BenchmarkShellRunUndo: what shell_run of `true` costs with undo on, over
// workspaces of 30,000 and 60,000 files, unsandboxed and (where the
// sandbox is available) confined. The command itself costs about the
// same at every size; the rest is the capture before and after it.
func BenchmarkShellRunUndo(b *testing.B) {
	for _, n := range []int{0, 30000, 60000} {
		ws, dir := fsTestWorkspace(b)
		benchUndoTree(b, dir, n)
		u, err := NewShellUndo(ws, &fsTestBlobs{}, filepath.Join(b.TempDir(), "cache"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { u.Close() })
		sb := sandbox.New(sandbox.Options{Workspace: dir})
		confined := sb.Check(context.Background()).Active
		// The folders were all made this moment: let them age as a
		// user's tree has before anything trusts their stamps.
		time.Sleep(3 * time.Second)
		tool := NewShellRun(ShellOptions{Dir: dir, OutputDir: b.TempDir(), Undo: u, Sandbox: sb}).(*shellRun)
		args, _ := json.Marshal(map[string]string{"command": "true"})
		run := func(b *testing.B, ctx context.Context) {
			if _, err := tool.Execute(ctx, args); err != nil {
				b.Fatal(err)
			}
		}
		run(b, context.Background()) // the first capture reads every file
		b.Run(fmt.Sprintf("unsandboxed/%d-files", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				run(b, context.Background())
			}
		})
		if !confined {
			continue
		}
		ctx := tools.WithConfinement(context.Background(), tools.Confinement{Sandboxed: true})
		b.Run(fmt.Sprintf("sandboxed/%d-files", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				run(b, ctx)
			}
		})
	}
}
