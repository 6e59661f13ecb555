package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSaveModel(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, old, want string
	}{
		{"new file", "", "model = \"qwen2.5-coder:7b\"\n"},
		{"replaces the top-level key", "# mine\nmodel = \"old\"\n\n[ui]\nnotify = \"bell\"\n", "# mine\nmodel = \"qwen2.5-coder:7b\"\n\n[ui]\nnotify = \"bell\"\n"},
		{"keeps the line's comment", "model = \"other\" # keep\n", "model = \"qwen2.5-coder:7b\" # keep\n"},
		{"a # in the value is not a comment", "model = \"a#b\\\"#c\"   # keep #2\r\nautonomy = \"ask\"\r\n", "model = \"qwen2.5-coder:7b\"   # keep #2\r\nautonomy = \"ask\"\r\n"},
		{"a literal string", "model = 'x#y'#keep\n", "model = \"qwen2.5-coder:7b\"#keep\n"},
		{"no comment", "model = \"x # y\"\n", "model = \"qwen2.5-coder:7b\"\n"},
		{"goes before the first table", "autonomy = \"ask\"\n[providers.x]\nbase_url = \"http://h/v1\"\nmodel = \"p\"\n", "autonomy = \"ask\"\nmodel = \"qwen2.5-coder:7b\"\n[providers.x]\nbase_url = \"http://h/v1\"\nmodel = \"p\"\n"},
		{"no final newline", "autonomy = \"ask\"", "autonomy = \"ask\"\nmodel = \"qwen2.5-coder:7b\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"), "config.toml")
			if tc.old != "" {
				os.MkdirAll(filepath.Dir(path), 0o700)
				os.WriteFile(path, []byte(tc.old), 0o600)
			}
			line, err := SaveModel(path, "qwen2.5-coder:7b")
			got, _ := os.ReadFile(path)
			if err != nil || line != `model = "qwen2.5-coder:7b"` || string(got) != tc.want {
				t.Fatalf("SaveModel = %q, %v; file\n%q\nwant\n%q", line, err, got, tc.want)
			}
			if _, err := Parse(path, got); err != nil {
				t.Fatalf("the saved config does not load: %v", err)
			}
		})
	}
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("model = [\n"), 0o600)
	if _, err := SaveModel(bad, "m"); err == nil {
		t.Fatal("saved into a file that does not parse")
	}
	if got, _ := os.ReadFile(bad); string(got) != "model = [\n" {
		t.Fatalf("a refused save changed the file: %q", got)
	}
}
