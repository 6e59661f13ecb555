package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"myclaw/tools/mcp"
)

// extFake is a backend with MCP servers and a project config to trust.
type extFake struct {
	*fakeBackend
	servers   []mcp.ServerStatus
	restarted []string
	logins    []string
	trusted   bool
}

func (f *extFake) MCPServers() []mcp.ServerStatus { return f.servers }

func (f *extFake) RestartMCP(ctx context.Context, name string) error {
	if name != "docs" {
		return errors.New(`no MCP server "` + name + `"`)
	}
	f.restarted = append(f.restarted, name)
	return nil
}

func (f *extFake) LoginMCP(ctx context.Context, name string) error {
	f.logins = append(f.logins, "login "+name)
	return nil
}

func (f *extFake) LogoutMCP(ctx context.Context, name string) error {
	f.logins = append(f.logins, "logout "+name)
	return nil
}

func (f *extFake) MCPResources(ctx context.Context, name string) ([]mcp.Resource, bool, error) {
	if name != "docs" {
		return nil, false, errors.New("MCP server " + name + " offers no resources")
	}
	return []mcp.Resource{{URI: "docs://guide", Name: "guide", MIMEType: "text/markdown", Description: "How to deploy"}}, true, nil
}

func (f *extFake) TrustProject(ctx context.Context) (string, error) {
	f.trusted = true
	return "Trusted .myclaw.toml and loaded 1 tool.", nil
}

func TestMCPAndTrustCommands(t *testing.T) {
	f := &extFake{fakeBackend: newFake(), servers: []mcp.ServerStatus{
		{Name: "docs", State: mcp.StateFailed, LastError: "process exited: exit status 1", Since: time.Unix(0, 0)},
		{Name: "fs", State: mcp.StateRunning, Tools: []string{"fs/read_file", "fs/list_directory"}, Since: time.Unix(0, 0)},
	}}
	m := runLine(t, newTestModel(t, f), "/mcp")
	got := lastBlock(m)
	for _, want := range []string{"docs", "failed", "last error: process exited", "fs/read_file", "/mcp restart NAME"} {
		if !strings.Contains(got, want) {
			t.Errorf("/mcp output %q lacks %q", got, want)
		}
	}
	m = runLine(t, m, "/mcp restart docs")
	if len(f.restarted) != 1 || !strings.Contains(lastBlock(m), "restarting MCP server docs") {
		t.Fatalf("restart: %v, %q", f.restarted, lastBlock(m))
	}
	m = runLine(t, m, "/mcp restart nope")
	if !strings.Contains(lastBlock(m), `no MCP server "nope"`) {
		t.Fatalf("bad restart: %q", lastBlock(m))
	}
	m = runLine(t, m, "/trust")
	if !f.trusted || !strings.Contains(lastBlock(m), "Trusted .myclaw.toml") {
		t.Fatalf("trust: %v, %q", f.trusted, lastBlock(m))
	}
	// A backend without extensions says so.
	m = runLine(t, newTestModel(t, newFake()), "/mcp")
	if !strings.Contains(lastBlock(m), "not available") {
		t.Fatalf("plain backend: %q", lastBlock(m))
	}
}

func TestNoticesAppear(t *testing.T) {
	ch := make(chan Notice, 2)
	m := newTestModel(t, newFake())
	m.notices = ch
	ch <- Notice{Text: "MCP server docs failed: exit status 1", Warning: true}
	msg := waitForNotice(ch)()
	next, _ := m.Update(msg)
	if got := lastBlock(next.(Model)); !strings.Contains(got, "MCP server docs failed") || !strings.Contains(got, "!") {
		t.Fatalf("warning block %q", got)
	}
	ch <- Notice{Text: "MCP server docs is running with 2 tools."}
	next, _ = next.(Model).Update(waitForNotice(ch)())
	if got := lastBlock(next.(Model)); !strings.Contains(got, "running with 2 tools") || strings.Contains(got, "!") {
		t.Fatalf("news drawn as a warning: %q", got)
	}
	close(ch)
	if waitForNotice(ch)() != nil {
		t.Fatal("a closed channel must end the wait")
	}
}
