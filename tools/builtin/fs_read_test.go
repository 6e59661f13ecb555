package builtin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"myclaw/tools"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestFsRead(t *testing.T) {
	ws, dir := fsTestWorkspace(t)
	outside := t.TempDir()
	secret := fsTestFile(t, outside, "secret.txt", "top secret\n", 0o644)

	fsTestFile(t, dir, "five.txt", "one\ntwo\nthree\nfour\nfive\n", 0o644)
	fsTestFile(t, dir, "nonl.txt", "a\nb", 0o644)
	fsTestFile(t, dir, "empty.txt", "", 0o644)
	fsTestFile(t, dir, "bin.dat", "GIF89a\x00\x01\x02", 0o644)
	fsTestFile(t, dir, "latin1.txt", "caf\xe9\n", 0o644)
	fsTestFile(t, dir, "utf16le.txt", "\xff\xfeh\x00\xe9\x00\n\x00", 0o644)
	fsTestFile(t, dir, "utf16be.txt", "\xfe\xff\x00h\x00\xe9\x00\n", 0o644)
	fsTestFile(t, dir, "late-nul.txt", "text\n\x00", 0o644)
	fsTestFile(t, dir, "src/main.go", "package main\n", 0o644)
	fsTestFile(t, dir, "long.txt", "short\n"+strings.Repeat("é", 3000)+"\nend\n", 0o644)
	big := make([]byte, 0, 5<<20+100)
	for i := 1; len(big) < 5<<20; i++ {
		big = append(big, "line "...)
		big = strconv.AppendInt(big, int64(i), 10)
		big = append(big, " of a five megabyte file, padded to look like a real log line\n"...)
	}
	fsTestFile(t, dir, "big.log", string(big), 0o644)
	bigLines := bytes.Count(big, []byte{'\n'})
	if err := os.Symlink(secret, filepath.Join(dir, "abs-link")); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(dir, secret)
	if err := os.Symlink(rel, filepath.Join(dir, "rel-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("five.txt", filepath.Join(dir, "inside-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out-dir")); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, filepath.Join(dir, "pipe"))

	tests := []struct {
		name      string
		args      map[string]any
		wantKind  tools.Kind
		wantBody  string
		wantOut   fsReadOutput
		wantInMsg string // for errors: in the message; else in the note
	}{
		{
			name:     "whole file",
			args:     map[string]any{"path": "five.txt"},
			wantBody: "one\ntwo\nthree\nfour\nfive\n",
			wantOut:  fsReadOutput{Path: "five.txt", SizeBytes: 24, TotalLines: 5, StartLine: 1, EndLine: 5},
		},
		{
			name:      "a window",
			args:      map[string]any{"path": "five.txt", "offset": 2, "limit": 2},
			wantBody:  "two\nthree\n",
			wantOut:   fsReadOutput{Path: "five.txt", SizeBytes: 24, TotalLines: 5, StartLine: 2, EndLine: 3, Truncated: true},
			wantInMsg: "shown lines 2-3 of 5; read on with offset=4",
		},
		{
			name:     "the tail",
			args:     map[string]any{"path": "five.txt", "offset": 4},
			wantBody: "four\nfive\n",
			wantOut:  fsReadOutput{Path: "five.txt", SizeBytes: 24, TotalLines: 5, StartLine: 4, EndLine: 5},
		},
		{
			name:     "no final newline",
			args:     map[string]any{"path": "nonl.txt"},
			wantBody: "a\nb",
			wantOut:  fsReadOutput{Path: "nonl.txt", SizeBytes: 3, TotalLines: 2, StartLine: 1, EndLine: 2},
		},
		{
			name:      "empty file",
			args:      map[string]any{"path": "empty.txt"},
			wantOut:   fsReadOutput{Path: "empty.txt"},
			wantInMsg: "empty",
		},
		{
			name:     "absolute path inside",
			args:     map[string]any{"path": filepath.Join(dir, "src", "main.go")},
			wantBody: "package main\n",
			wantOut:  fsReadOutput{Path: "src/main.go", SizeBytes: 13, TotalLines: 1, StartLine: 1, EndLine: 1},
		},
		{
			name:     "symlink inside",
			args:     map[string]any{"path": "inside-link", "limit": 1},
			wantBody: "one\n",
			wantOut:  fsReadOutput{Path: "inside-link", SizeBytes: 24, TotalLines: 5, StartLine: 1, EndLine: 1, Truncated: true},
		},
		{
			name:      "long line cut",
			args:      map[string]any{"path": "long.txt"},
			wantBody:  "short\n" + strings.Repeat("é", 1000) + " … [line cut: 2000 of 6000 bytes shown]\nend\n",
			wantOut:   fsReadOutput{Path: "long.txt", SizeBytes: 6011, TotalLines: 3, StartLine: 1, EndLine: 3, Truncated: true},
			wantInMsg: "1 long line cut at 2000 bytes",
		},
		{name: "offset past the end", args: map[string]any{"path": "five.txt", "offset": 9}, wantKind: tools.KindInvalidArgs, wantInMsg: "past the end"},
		{name: "missing", args: map[string]any{"path": "nope.txt"}, wantKind: tools.KindNotFound, wantInMsg: "does not exist"},
		{name: "parent is a file", args: map[string]any{"path": "five.txt/x"}, wantKind: tools.KindNotFound},
		{name: "folder", args: map[string]any{"path": "src"}, wantKind: tools.KindInvalidArgs, wantInMsg: "is a folder"},
		{name: "binary", args: map[string]any{"path": "bin.dat"}, wantKind: tools.KindUnsupported, wantInMsg: "not a text file"},
		{
			name: "Latin-1", args: map[string]any{"path": "latin1.txt"}, wantBody: "caf\\xe9\n",
			wantOut:   fsReadOutput{Path: "latin1.txt", SizeBytes: 5, TotalLines: 1, StartLine: 1, EndLine: 1, Encoding: "not UTF-8"},
			wantInMsg: "fs_edit cannot change it",
		},
		{
			name: "UTF-16LE", args: map[string]any{"path": "utf16le.txt"}, wantBody: "hé\n",
			wantOut:   fsReadOutput{Path: "utf16le.txt", SizeBytes: 8, TotalLines: 1, StartLine: 1, EndLine: 1, Encoding: "UTF-16LE"},
			wantInMsg: "shown transcoded",
		},
		{
			name: "UTF-16BE", args: map[string]any{"path": "utf16be.txt"}, wantBody: "hé\n",
			wantOut: fsReadOutput{Path: "utf16be.txt", SizeBytes: 8, TotalLines: 1, StartLine: 1, EndLine: 1, Encoding: "UTF-16BE"},
		},
		{name: "NUL in the first bytes", args: map[string]any{"path": "late-nul.txt"}, wantKind: tools.KindUnsupported, wantInMsg: "not a text file"},
		{name: "FIFO", args: map[string]any{"path": "pipe"}, wantKind: tools.KindUnsupported, wantInMsg: "named pipe"},
		{name: "dotdot", args: map[string]any{"path": "../x"}, wantKind: tools.KindPermissionDenied},
		{name: "etc passwd", args: map[string]any{"path": "/etc/passwd"}, wantKind: tools.KindPermissionDenied},
		{name: "NUL byte", args: map[string]any{"path": "five\x00.txt"}, wantKind: tools.KindInvalidArgs},
		{name: "absolute symlink out", args: map[string]any{"path": "abs-link"}, wantKind: tools.KindPermissionDenied, wantInMsg: "outside the workspace"},
		{name: "relative symlink out", args: map[string]any{"path": "rel-link"}, wantKind: tools.KindPermissionDenied},
		{name: "through a symlinked folder out", args: map[string]any{"path": "out-dir/secret.txt"}, wantKind: tools.KindPermissionDenied},
	}
	tool := NewFsRead(ws)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tool.Execute(context.Background(), fsTestArgs(t, tt.args))
			if tt.wantKind != "" {
				if got := fsTestKind(err); got != tt.wantKind {
					t.Fatalf("got kind %q (%v); want %s", got, err, tt.wantKind)
				}
				if !strings.Contains(err.Error(), tt.wantInMsg) {
					t.Errorf("got message %q; want it to contain %q", err.Error(), tt.wantInMsg)
				}
				if strings.Contains(err.Error(), "secret") && !strings.Contains(tt.name, "out") {
					t.Errorf("got %q; want no outside content", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v; want success", err)
			}
			if res.Body != tt.wantBody {
				t.Errorf("got body %q; want %q", res.Body, tt.wantBody)
			}
			out := res.Output.(fsReadOutput)
			note := out.Note
			out.Note = ""
			if out != tt.wantOut {
				t.Errorf("got output %+v; want %+v", out, tt.wantOut)
			}
			if !strings.Contains(note, tt.wantInMsg) {
				t.Errorf("got note %q; want it to contain %q", note, tt.wantInMsg)
			}
			if res.Source != "file:"+tt.wantOut.Path || res.Capability != "fs:read:"+tt.wantOut.Path {
				t.Errorf("got Source %q Capability %q; want file:%s and fs:read:%s", res.Source, res.Capability, tt.wantOut.Path, tt.wantOut.Path)
			}
		})
	}

	t.Run("5 MB file", func(t *testing.T) {
		res, err := tool.Execute(context.Background(), fsTestArgs(t, map[string]any{"path": "big.log"}))
		if err != nil {
			t.Fatal(err)
		}
		out := res.Output.(fsReadOutput)
		if out.TotalLines != bigLines || !out.Truncated || out.StartLine != 1 {
			t.Errorf("got %+v; want %d lines in all, truncated, from line 1", out, bigLines)
		}
		if len(res.Body) > fsReadMaxBody || !strings.HasSuffix(res.Body, "\n") {
			t.Errorf("got a %d-byte body; want at most %d bytes of whole lines", len(res.Body), fsReadMaxBody)
		}
		if got := strings.Count(res.Body, "\n"); got != out.EndLine {
			t.Errorf("got %d lines in the body; want end_line %d", got, out.EndLine)
		}
		want := fmt.Sprintf("shown lines 1-%d of %d (output capped at 50.0 KB); read on with offset=%d", out.EndLine, bigLines, out.EndLine+1)
		if out.Note != want {
			t.Errorf("got note %q; want %q", out.Note, want)
		}
	})

	t.Run("unreadable", func(t *testing.T) {
		p := fsTestFile(t, dir, "locked.txt", "x", 0o000)
		if f, err := os.Open(p); err == nil {
			f.Close()
			t.Skip("this process reads a mode 000 file (root, or CAP_DAC_OVERRIDE), so there is no unreadable file to test with")
		}
		_, err := tool.Execute(context.Background(), fsTestArgs(t, map[string]any{"path": "locked.txt"}))
		if got := fsTestKind(err); got != tools.KindPermissionDenied {
			t.Errorf("got kind %q (%v); want permission_denied", got, err)
		}
	})

	t.Run("dry run reads", func(t *testing.T) {
		res, err := tools.Call(context.Background(), tool, fsTestArgs(t, map[string]any{"path": "five.txt", "limit": 1}), true)
		if err != nil || res.Body != "one\n" {
			t.Errorf("got %q, %v; want the first line", res.Body, err)
		}
	})

	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := tool.Execute(ctx, fsTestArgs(t, map[string]any{"path": "big.log"}))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v; want context.Canceled, so that the caller can tell", err)
		}
	})
}
