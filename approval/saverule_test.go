package approval

import (
	"myclaw/config"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// savedRules decodes the rules of a config file the way the config reader
// does.
func savedRules(t *testing.T, path string) []Rule {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Approval struct {
			Rules []Rule `toml:"rules"`
		} `toml:"approval"`
	}
	if err := toml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("the saved config does not parse: %v\n%s", err, data)
	}
	return cfg.Approval.Rules
}

func TestSaveRuleAppends(t *testing.T) {
	rule := Rule{Tool: "shell_run", Match: "go test *", Decision: "allow"}
	block := "[[approval.rules]]\ntool = \"shell_run\"\nmatch = \"go test *\"\ndecision = \"allow\"\n"
	tests := []struct {
		name, old, sep string
	}{
		{"new file", "", ""},
		{"ends with newline", "model = \"qwen3\"  # local\n\n[approval]\n", "\n"},
		{"no final newline", "# my config\nautonomy = \"ask\"", "\n\n"},
		{"existing rules", "[[approval.rules]]\ntool = \"fs_read\"\ndecision = \"allow\"\n\n[web]\ntimeout_s = 20\n", "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cfg", "myclaw", "config.toml")
			if tt.old != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tt.old), 0o640); err != nil {
					t.Fatal(err)
				}
			}
			text, err := saveRule(path, rule)
			if err != nil {
				t.Fatalf("SaveRule: %v", err)
			}
			if want := tt.sep + block; text != want {
				t.Errorf("SaveRule returned %q; want %q", text, want)
			}
			if !strings.Contains(text, rule.String()) {
				t.Errorf("the appended text %q does not show the rule as String() does", text)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(data); got != tt.old+text {
				t.Errorf("file = %q; want the old content followed by the returned text %q", got, tt.old+text)
			}
			rules := savedRules(t, path)
			if len(rules) == 0 || rules[len(rules)-1] != rule {
				t.Errorf("saved rules = %+v; want the last to be %+v", rules, rule)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			wantMode := os.FileMode(0o600)
			if tt.old != "" {
				wantMode = 0o640
			}
			if fi.Mode().Perm() != wantMode {
				t.Errorf("mode = %v; want %v", fi.Mode().Perm(), wantMode)
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 1 {
				t.Errorf("the config directory holds %d entries; want only the config (no temp files left)", len(entries))
			}
		})
	}
}

func TestSaveRuleRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	rules := []Rule{
		SessionRule(shellReq(`find . -name "*.go" && git status`)),
		{Tool: "fs_*", Match: `fs:write:C:\odd "path"`, Decision: "deny"},
		{Tool: "github/*", Decision: "ask"},
	}
	for _, r := range rules {
		if _, err := saveRule(path, r); err != nil {
			t.Fatalf("SaveRule(%+v): %v", r, err)
		}
	}
	got := savedRules(t, path)
	if len(got) != len(rules) {
		t.Fatalf("saved %d rules; want %d", len(got), len(rules))
	}
	for i := range rules {
		if got[i] != rules[i] {
			t.Errorf("rule %d read back as %+v; want %+v", i, got[i], rules[i])
		}
	}
	if err := ValidateRules(got); err != nil {
		t.Errorf("saved rules do not validate: %v", err)
	}
}

func TestSaveRuleDuplicate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	rule := Rule{Tool: "fs_write", Decision: "allow"}
	if _, err := saveRule(path, rule); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	text, err := saveRule(path, rule)
	if err != nil || text != "" {
		t.Errorf("SaveRule of a rule already there = %q, %v; want \"\", nil", text, err)
	}
	after, _ := os.ReadFile(path)
	if string(after) != string(before) {
		t.Errorf("the file changed:\n%s\nwant\n%s", after, before)
	}
}

func TestSaveRuleCRLF(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	old := "autonomy = \"ask\"\r\n"
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	text, err := saveRule(path, Rule{Tool: "x", Decision: "deny"})
	if err != nil {
		t.Fatal(err)
	}
	want := "\r\n[[approval.rules]]\r\ntool = \"x\"\r\ndecision = \"deny\"\r\n"
	if text != want {
		t.Errorf("SaveRule returned %q; want %q", text, want)
	}
	if data, _ := os.ReadFile(path); string(data) != old+want {
		t.Errorf("file = %q; want %q", data, old+want)
	}
}

func TestSaveRuleThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "config.toml")
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("autonomy = \"ask\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "config.toml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := saveRule(link, Rule{Tool: "x", Decision: "deny"}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the config is no longer a symlink (%v)", err)
	}
	if rules := savedRules(t, target); len(rules) != 1 {
		t.Errorf("the link's target holds %d rules; want 1", len(rules))
	}
}

func TestSaveRuleRefuses(t *testing.T) {
	tests := []struct {
		name string
		old  string // "" means no file
		rule Rule
		want []string
	}{
		{"broken config", "model = \"qwen3\"\n[approval\ntool = 1\n", Rule{Tool: "x", Decision: "allow"},
			[]string{"does not parse as TOML", "line 2", "nothing was changed"}},
		{"inline array of rules", "approval = { rules = [] }\n", Rule{Tool: "x", Decision: "allow"},
			[]string{"cannot append a [[approval.rules]] block", "add the rule by hand", "[[approval.rules]]\ntool = \"x\""}},
		{"static array of rules", "[approval]\nrules = [{ tool = \"a\", decision = \"deny\" }]\n", Rule{Tool: "x", Decision: "allow"},
			[]string{"cannot append"}},
		{"approval is not a table", "approval = 3\n", Rule{Tool: "x", Decision: "allow"},
			[]string{"cannot append"}},
		{"bad rule, existing file", "autonomy = \"ask\"\n", Rule{Tool: "x", Decision: "always"},
			[]string{"decision", "want allow, ask or deny"}},
		{"bad rule, no file", "", Rule{Tool: "x{", Decision: "allow"},
			[]string{"tool", "unclosed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "config.toml")
			if tt.old != "" {
				if err := os.WriteFile(path, []byte(tt.old), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			text, err := saveRule(path, tt.rule)
			if err == nil {
				t.Fatalf("SaveRule = %q, nil; want an error", text)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("SaveRule error = %q; want it to contain %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("SaveRule error = %q; want it to name %s", err, path)
			}
			entries, _ := os.ReadDir(dir)
			if tt.old == "" {
				if len(entries) != 0 {
					t.Errorf("SaveRule left %d files behind", len(entries))
				}
				return
			}
			if len(entries) != 1 {
				t.Errorf("SaveRule left %d files in the directory; want only the config", len(entries))
			}
			if data, _ := os.ReadFile(path); string(data) != tt.old {
				t.Errorf("the config changed to %q; want it untouched", data)
			}
		})
	}
}

func TestSaveRuleNotAFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := saveRule(dir, Rule{Tool: "x", Decision: "allow"}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("SaveRule(dir) error = %v; want not a regular file", err)
	}
}

// saveRule saves r as the pane's "save rule" does.
func saveRule(path string, r Rule) (string, error) { return config.SaveRule(path, r, CheckRule) }
