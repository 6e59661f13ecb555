package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExampleConfigParses(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "config.example.toml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Parse("config.example.toml", src)
	if err != nil {
		t.Fatalf("config.example.toml: %v", err)
	}
	if cfg.Provider != "ollama" || len(cfg.Providers) != 6 || len(cfg.Approval.Rules) != 2 {
		t.Fatalf("got provider %q, %d providers, %d rules; want ollama, 6, 2", cfg.Provider, len(cfg.Providers), len(cfg.Approval.Rules))
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"unknown key", "autonomy = \"ask\"\nmodle = \"x\"\n", []string{"f.toml:2", `unknown key "modle"`}},
		{"unknown nested key", "[shell]\ntimeout = 3\n", []string{"f.toml:2", `"shell.timeout"`}},
		{"bad level", "model = \"m\"\nautonomy = \"yolo\"\n", []string{"f.toml:2", "autonomy", "readonly, ask, auto-edit, full"}},
		{"wrong type", "max_tool_rounds = \"many\"\n", []string{"f.toml:1"}},
		{"missing provider", "provider = \"x\"\n", []string{"provider", "no [providers.x]"}},
		{"provider without url", "[providers.a]\nmodel = \"m\"\n", []string{"f.toml:1", "providers.a.base_url", "required"}},
		{"bad url", "[providers.a]\nbase_url = \"localhost:1\"\n", []string{"f.toml:2", "http://"}},
		{"bad rule decision", "[[approval.rules]]\ntool = \"x\"\ndecision = \"maybe\"\n", []string{"f.toml:3", "approval.rules[0].decision", "allow, ask or deny"}},
		{"rule without tool", "[[approval.rules]]\ndecision = \"allow\"\n", []string{"approval.rules[0].tool"}},
		{"mcp both", "[mcp.servers.s]\ncommand = \"x\"\nurl = \"http://h\"\n", []string{"mcp.servers.s", "either command"}},
		{"mcp headers on stdio", "[mcp.servers.s]\ncommand = \"x\"\nheaders = { A = \"b\" }\n", []string{"mcp.servers.s.headers", "url servers only"}},
		{"mcp header name", "[mcp.servers.s]\nurl = \"http://h\"\nheaders = { \"A B\" = \"b\" }\n", []string{"mcp.servers.s.headers", `"A B"`}},
		{"mcp oauth port", "[mcp.servers.s]\nurl = \"http://h\"\noauth = { callback_port = 70000 }\n", []string{"mcp.servers.s.oauth", "callback_port"}},
		{"mcp oauth secret without id", "[mcp.servers.s]\nurl = \"http://h\"\noauth = { client_secret_env = \"X\" }\n", []string{"mcp.servers.s.oauth", "needs client_id"}},
		{"mcp oauth unknown key", "[mcp.servers.s]\nurl = \"http://h\"\n[mcp.servers.s.oauth]\nclient = \"x\"\n", []string{"client"}},
		{"mcp log level", "[mcp.servers.s]\ncommand = \"x\"\nlog_level = \"loud\"\n", []string{"mcp.servers.s.log_level", "debug, info"}},
		{"tool risk", "[[tools]]\nname = \"a/b\"\nrisk = \"huge\"\n", []string{"tools[0].risk"}},
		{"tool schema string", "[[tools]]\nname = \"a/b\"\ninput_schema = \"{nope\"\n", []string{"tools[0].input_schema"}},
		{"hook command", "[[hooks.pre_tool]]\ntool = \"*\"\n", []string{"hooks.pre_tool[0].command"}},
		{"stop hook command", "[[hooks.stop]]\ncommand = [\"a\"]\n[[hooks.stop]]\ntimeout_s = 3\n", []string{"f.toml:3", "hooks.stop[1].command", "required"}},
		{"hook tool on a stage without tools", "[[hooks.user_prompt]]\ntool = \"fs_*\"\ncommand = [\"a\"]\n", []string{"hooks.user_prompt[0].tool", "only pre_tool and post_tool"}},
		{"unknown hook stage", "[[hooks.pre_prompt]]\ncommand = [\"a\"]\n", []string{"pre_prompt"}},
		{"notify mode", "[ui]\nnotify = \"loud\"\n", []string{"f.toml:2", "ui.notify", "off, bell or osc"}},
		{"screen mode", "[ui]\nscreen = \"normal\"\n", []string{"f.toml:2", "ui.screen", `"normal": want auto, alternate or inline`}},
		{"instruction file outside", "[instructions]\nfiles = [\"../x.md\"]\n", []string{"f.toml:2", "instructions.files", "relative to the workspace"}},
		{"negative price", "price_input = -1\n", []string{"f.toml:1", "price_input", "negative"}},
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
		})
	}
}

func TestResolvePrecedence(t *testing.T) {
	cfg, err := Parse("f.toml", []byte("provider = \"p\"\n[providers.p]\nbase_url = \"http://cfg/v1\"\nmodel = \"cfg-model\"\napi_key_env = \"P_KEY\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"P_KEY": "from-p"}
	lookup := func(k string) string { return env[k] }
	s := cfg.Resolve(lookup, Overrides{})
	if s.BaseURL != "http://cfg/v1" || s.Model != "cfg-model" || s.APIKey != "from-p" || s.Autonomy != "ask" {
		t.Fatalf("config only: got %+v", s)
	}
	env["OPENAI_BASE_URL"], env["OPENAI_API_KEY"] = "http://env/v1", "from-env"
	s = cfg.Resolve(lookup, Overrides{Model: "flag-model", Autonomy: "full"})
	if s.BaseURL != "http://env/v1" || s.APIKey != "from-env" || s.Model != "flag-model" || s.Autonomy != "full" || s.Origin != "OPENAI_BASE_URL" {
		t.Fatalf("env and flags: got %+v", s)
	}
	empty := &Config{}
	if s := empty.Resolve(func(string) string { return "" }, Overrides{}); s.BaseURL != DefaultBaseURL {
		t.Fatalf("default base URL: got %q", s.BaseURL)
	}
}

func TestProjectScope(t *testing.T) {
	ok, err := Parse("p.toml", []byte("[[tools]]\nname = \"a/b\"\ncommand = [\"x\"]\n[[hooks.pre_tool]]\ncommand = [\"y\"]\n[[hooks.stop]]\ncommand = [\"z\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ok.CheckProjectScope(); err != nil {
		t.Fatalf("tools and hooks: %v", err)
	}
	bad, err := Parse("p.toml", []byte("autonomy = \"full\"\n[[approval.rules]]\ntool = \"*\"\ndecision = \"allow\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := bad.CheckProjectScope(); err == nil || !strings.Contains(err.Error(), "approval rules") {
		t.Fatalf("got %v; want a refusal naming approval rules", err)
	}
}

// The four values of [ui] screen parse, and ScreenMode names the mode
// each asks for: "scrollback", the old name, is auto.
func TestScreenModes(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"", ScreenAuto},
		{"[ui]\nscreen = \"auto\"\n", ScreenAuto},
		{"[ui]\nscreen = \"scrollback\"\n", ScreenAuto},
		{"[ui]\nscreen = \"alternate\"\n", ScreenAlternate},
		{"[ui]\nscreen = \"inline\"\n", ScreenInline},
	} {
		cfg, err := Parse("f.toml", []byte(tc.src))
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		if got := cfg.UI.ScreenMode(); got != tc.want {
			t.Errorf("%q: ScreenMode() = %q, want %q", tc.src, got, tc.want)
		}
	}
}
