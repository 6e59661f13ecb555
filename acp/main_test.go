package acp

import (
	"os"
	"testing"

	"myclaw/sandbox"
)

// TestMain lets the test binary serve as the shell sandbox's launcher, and
// as a stdio MCP server (mcpHelperEnv).
func TestMain(m *testing.M) {
	sandbox.Launch()
	if os.Getenv(mcpHelperEnv) != "" {
		serveHelperMCP()
		os.Exit(0)
	}
	os.Exit(m.Run())
}
