package app

import (
	"os"
	"testing"

	"myclaw/internal/apptest"
	"myclaw/sandbox"
)

// TestMain lets the test binary serve as an MCP server (and as the shell
// sandbox's launcher) when a test starts it so.
func TestMain(m *testing.M) {
	sandbox.Launch()
	if os.Getenv("MYCLAW_TEST_MCP_SERVER") == "1" {
		apptest.ServeMCP()
		return
	}
	code := m.Run()
	if seed.root != "" {
		os.RemoveAll(seed.root)
	}
	os.Exit(code)
}
