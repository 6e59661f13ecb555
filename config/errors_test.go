package config

import (
	"strings"
	"testing"
)

func TestConfigErrorsHelp(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"nearest key", "[shell]\ntimeout_secs = 3\n", []string{"f.toml:2:", `unknown key "shell.timeout_secs" (did you mean "timeout_s"?)`}},
		{"nearest top key", "modle = \"x\"\n", []string{`(did you mean "model"?)`}},
		{"nearest provider key", "[providers.a]\nbase_ulr = \"http://h\"\n", []string{`(did you mean "base_url"?)`}},
		{"max timeout", "[shell]\ntimeout_s = 5\nmax_timeout_s = -5\n", []string{"f.toml:3:", "shell.max_timeout_s: must be positive"}},
		{"timeout", "[shell]\nmax_timeout_s = 5\ntimeout_s = -5\n", []string{"f.toml:3:", "shell.timeout_s: must be positive"}},
		{"price output", "price_input = 1\nprice_output = -1\n", []string{"f.toml:2:", "price_output: prices"}},
		{"provider price output", "[providers.a]\nbase_url = \"http://h\"\nprice_output = -1\n", []string{"f.toml:3:", "providers.a.price_output"}},
		{"sandbox list", "[shell.sandbox]\nwritable = [\"/tmp\"]\nvisible = [\"rel\"]\n", []string{"f.toml:3:", "shell.sandbox.visible"}},
		{"second rule", "[[approval.rules]]\ntool = \"x\"\ndecision = \"allow\"\n\n[[approval.rules]]\ntool = \"y\"\ndecision = \"maybe\"\n", []string{"f.toml:7:", "approval.rules[1].decision"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("f.toml", []byte(tt.src))
			if err == nil {
				t.Fatal("got no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if strings.Count(err.Error(), "2") > 1 && strings.Contains(err.Error(), "line 2") {
				t.Errorf("error %q gives the line twice", err)
			}
		})
	}
	if _, err := Parse("f.toml", []byte("zzzzzz = 1\n")); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("a key like nothing known got a suggestion: %v", err)
	}
	if _, err := Parse("f.toml", []byte("provider = \"ollama\"\n")); err != nil {
		t.Errorf("provider = \"ollama\" alone: %v; want it accepted as the built-in default", err)
	}
}
