package acp

import (
	"os"
	"testing"

	"myclaw/sandbox"
)

// TestMain lets the test binary serve as the shell sandbox's launcher.
func TestMain(m *testing.M) {
	sandbox.Launch()
	os.Exit(m.Run())
}
