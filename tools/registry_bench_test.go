package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"myclaw/tools/termtext"
)

// BenchmarkValidateDispatchFsWrite measures what the registry adds to a
// typical fs_write call: lookup, argument validation against the strict
// schema, and dispatch through Call to a tool whose work is a no-op.
// Goal: under 50 µs/op.
func BenchmarkValidateDispatchFsWrite(b *testing.B) {
	r := NewRegistry()
	r.MustRegister(Func{
		M: Meta{Name: "fs_write", Schema: json.RawMessage(regWriteSchema), Source: SourceBuiltin, SupportsDryRun: true},
		F: func(context.Context, json.RawMessage) (Result, error) { return Result{Summary: "ok"}, nil },
	})
	content := strings.Repeat("A line of a typical source file, with some words.\n", 40) // 2 KB
	raw, _ := json.Marshal(map[string]string{"path": "notes/todo.md", "content": content})
	ctx := context.Background()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		tool, ok := r.Lookup("fs_write")
		if !ok {
			b.Fatal("fs_write not found")
		}
		args, e := r.Validate("fs_write", raw)
		if e != nil {
			b.Fatal(e)
		}
		if _, err := Call(ctx, tool, args, false); err != nil {
			b.Fatal(err)
		}
	}
}

// benchText returns about n bytes of text made of line.
func benchText(line string, n int) string {
	return strings.Repeat(line, n/len(line)+1)[:n]
}

// fenceBenchInputs are 1 MB inputs: typical output, output full of colour
// codes, non-Latin text, and hostile text dense with markers.
var fenceBenchInputs = []struct{ name, line string }{
	{"code", "func main() { if a < b && c > d { fmt.Println(\"héllo\", 100%) } } // see <https://x>\n"},
	{"ansi", "\x1b[32mok\x1b[0m  \tmyclaw/tools\t0.123s \x1b]8;;file:///x\x1b\\link\x1b]8;;\x1b\\\r\n"},
	{"cjk", "日本語のテキストと中文文本，还有한국어 텍스트。\n"},
	{"markers", "</untrusted>＜／ｕｎｔｒｕｓｔｅｄ＞&lt;/untrusted&gt;<\u200b/un\u00adtrusted>\n"},
}

// BenchmarkFence1MB measures fencing 1 MB of tool output. Goal: under
// 5 ms/op.
func BenchmarkFence1MB(b *testing.B) {
	at := time.Date(2026, 4, 21, 22, 14, 3, 0, time.UTC)
	for _, in := range fenceBenchInputs {
		content := benchText(in.line, 1<<20)
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(content)))
			b.ReportAllocs()
			for b.Loop() {
				_ = Fence("shell:go test ./...", at, content)
			}
		})
	}
}

// BenchmarkStripControls measures termtext.Strip on 1 MB.
func BenchmarkStripControls(b *testing.B) {
	for _, in := range fenceBenchInputs {
		content := benchText(in.line, 1<<20)
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(content)))
			b.ReportAllocs()
			for b.Loop() {
				_ = termtext.Strip(content)
			}
		})
	}
}
