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
	m = runLine(t, m, "/mcp login x y")
	if !strings.Contains(lastBlock(m), "usage: /mcp") {
		t.Errorf("bad login: %q", lastBlock(m))
	}
	f.servers[2].Log = []string{"10:00:00 warning db: disk \x1b[31mnearly full"}
	m = runLine(t, m, "/mcp sentry")
	got = lastBlock(m)
	if !strings.Contains(got, "auth: logged in") || !strings.Contains(got, "warning db: disk") || strings.ContainsRune(got, 0x1b) {
		t.Errorf("/mcp sentry: %q; want its state and its log, clean", got)
	}
	m = runLine(t, m, "/mcp linear")
	if !strings.Contains(lastBlock(m), "no log messages") {
		t.Errorf("/mcp linear: %q", lastBlock(m))
	}
	m = runLine(t, m, "/mcp resources docs")
	got = lastBlock(m)
	for _, want := range []string{"resources of docs (1)", "docs://guide  guide", "How to deploy", "more resources not shown", "docs/read_resource"} {
		if !strings.Contains(got, want) {
			t.Errorf("/mcp resources docs: %q lacks %q", got, want)
		}
	}
	m = runLine(t, m, "/mcp resources sentry")
	if !strings.Contains(lastBlock(m), "offers no resources") {
		t.Errorf("/mcp resources sentry: %q", lastBlock(m))
	}
	m = runLine(t, m, "/mcp nope")
	if !strings.Contains(lastBlock(m), `no MCP server "nope"`) {
		t.Errorf("/mcp nope: %q", lastBlock(m))
	}
}
