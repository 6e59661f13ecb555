package ui

import (
	"strings"
	"testing"
	"time"

	"myclaw/tools/mcp"
)

func TestMCPLoginCommands(t *testing.T) {
	f := &extFake{fakeBackend: newFake(), servers: []mcp.ServerStatus{
		{Name: "linear", State: mcp.StateFailed, Auth: mcp.AuthExpired, LastError: "the server refused the stored login", Since: time.Unix(0, 0)},
		{Name: "github", State: mcp.StateRunning, Auth: mcp.AuthHeaders, Since: time.Unix(0, 0)},
		{Name: "sentry", State: mcp.StateRunning, Auth: mcp.AuthLoggedIn, Since: time.Unix(0, 0)},
	}}
	m := runLine(t, newTestModel(t, f), "/mcp")
	got := lastBlock(m)
	for _, want := range []string{"auth: login expired (/mcp login linear)", "auth: headers", "auth: logged in"} {
		if !strings.Contains(got, want) {
			t.Errorf("/mcp output %q lacks %q", got, want)
		}
	}
	m = runLine(t, m, "/mcp login linear")
	if !strings.Contains(lastBlock(m), "logging in to MCP server linear") {
		t.Errorf("login: %q", lastBlock(m))
	}
	m = runLine(t, m, "/mcp logout sentry")
	if !strings.Contains(lastBlock(m), "logged out of MCP server sentry") {
		t.Errorf("logout: %q", lastBlock(m))
	}
	if strings.Join(f.logins, ",") != "login linear,logout sentry" {
		t.Errorf("got calls %v; want login linear, logout sentry", f.logins)
	}
	m = runLine(t, m, "/mcp login")
	if !strings.Contains(lastBlock(m), "usage: /mcp") {
		t.Errorf("bare login: %q", lastBlock(m))
	}
}
