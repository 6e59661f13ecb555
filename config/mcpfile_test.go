package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAddAndRemoveMCPServerKeepTheRest(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	orig := "# my config\r\nmodel = \"m\" # the model\r\n\r\n# GitHub, by API key\r\n[mcp.servers.gh]\r\nurl = \"https://api.example/mcp\"\r\n\r\n[mcp.servers.gh.headers]\r\nAuthorization = \"Bearer ${GH_TOKEN}\"\r\n\r\n# rules below\r\n[[approval.rules]]\r\ntool = \"gh/*\"\r\ndecision = \"allow\"\r\n"
	if err := os.WriteFile(path, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}
	text, err := AddMCPServer(path, "files.local", MCPServer{Command: "npx", Args: []string{"-y", "srv \"x\"", ""}, Env: map[string]string{"A": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(got), orig) || !strings.Contains(text, "[mcp.servers.\"files.local\"]\r\ncommand = \"npx\"\r\nargs = [\"-y\", \"srv \\\"x\\\"\", \"\"]\r\n") {
		t.Fatalf("after add:\n%q\nappended %q", got, text)
	}
	cfg, err := Parse(path, got)
	if err != nil || cfg.MCP.Servers["files.local"].Args[1] != `srv "x"` || cfg.MCP.Servers["gh"].URL == "" {
		t.Fatalf("the result loads as %+v, %v", cfg, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v; want the file's own kept", fi.Mode().Perm())
	}

	// A duplicate is refused, naming the line, and nothing changes.
	_, err = AddMCPServer(path, "gh", MCPServer{URL: "https://other.example/mcp"})
	if err == nil || !strings.Contains(err.Error(), `named "gh" (line 5)`) || !strings.Contains(err.Error(), "myclaw mcp remove gh") {
		t.Fatalf("duplicate: %v", err)
	}
	if now, _ := os.ReadFile(path); string(now) != string(got) {
		t.Fatal("a refused add changed the file")
	}

	// Removing gh takes its table, its sub-table and the comment above it;
	// the rules' comment stays.
	if err := RemoveMCPServer(path, "gh"); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	want := "# my config\r\nmodel = \"m\" # the model\r\n\r\n# rules below\r\n[[approval.rules]]\r\ntool = \"gh/*\"\r\ndecision = \"allow\"\r\n" + text
	if string(after) != want {
		t.Fatalf("after remove:\n%q\nwant\n%q", after, want)
	}
	if err := RemoveMCPServer(path, "files.local"); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); strings.Contains(string(after), "mcp") || !strings.HasSuffix(string(after), "decision = \"allow\"\r\n") {
		t.Fatalf("after the second remove: %q", after)
	}
	if err := RemoveMCPServer(path, "gh"); !errors.Is(err, ErrNoMCPServer) {
		t.Fatalf("removing a server not there: %v", err)
	}
}

func TestAddMCPServerToANewFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "config.toml")
	text, err := AddMCPServer(path, "web", MCPServer{URL: "https://x.example/mcp", Headers: map[string]string{"X-Key": "${KEY}"}, OAuth: &MCPOAuth{ClientID: "id", ClientSecretEnv: "SECRET"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "[mcp.servers.web]\nurl = \"https://x.example/mcp\"\nheaders = { X-Key = \"${KEY}\" }\noauth = { client_id = \"id\", client_secret_env = \"SECRET\" }\n"
	got, _ := os.ReadFile(path)
	if text != want || string(got) != want {
		t.Fatalf("got %q (appended %q); want %q", got, text, want)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("new file mode %v; want 0600", fi.Mode().Perm())
	}
}

func TestMCPServerEditsRefuseWhatTheyCannotDoCleanly(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, src, op string }{
		// The servers are an inline table: a [mcp.servers.x] header would redefine it.
		{"inline add", "mcp = { servers = { a = { command = \"a\" } } }\n", "add"},
		{"inline remove", "mcp = { servers = { a = { command = \"a\" } } }\n", "remove"},
		{"dotted remove", "[mcp]\nservers.a.command = \"a\"\n", "remove"},
		{"broken", "model = [\n", "add"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".toml")
		os.WriteFile(path, []byte(tc.src), 0o600)
		var err error
		if tc.op == "add" {
			_, err = AddMCPServer(path, "b", MCPServer{Command: "b"})
		} else {
			err = RemoveMCPServer(path, "a")
		}
		if err == nil {
			t.Errorf("%s: no error", tc.name)
		} else if tc.name != "broken" && !strings.Contains(err.Error(), "by hand") {
			t.Errorf("%s: %v; want it to say to edit by hand", tc.name, err)
		}
		if got, _ := os.ReadFile(path); string(got) != tc.src {
			t.Errorf("%s: the file changed: %q", tc.name, got)
		}
	}
	// A value the config refuses is not written either.
	path := filepath.Join(dir, "bad.toml")
	if _, err := AddMCPServer(path, "c", MCPServer{Command: "c", Headers: map[string]string{"K": "v"}}); err == nil || !strings.Contains(err.Error(), "would not load") {
		t.Errorf("headers on a stdio server: %v", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a refused add created the file")
	}
}
