package acp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sdkVersion is the reference ACP client library the end-to-end test
// drives myclaw with.
const sdkVersion = "2.4.0"

// installSDK installs the client library into a cache folder (once) and
// returns its entry point; the test is skipped, saying why, where npm or
// the registry cannot be had.
func installSDK(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the end-to-end test installs an npm package and builds myclaw")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the end-to-end test drives myclaw with the ACP client library for Node")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed: it installs the ACP client library the end-to-end test uses")
	}
	_ = node
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "myclaw-test", "acp-sdk-"+sdkVersion)
	entry := filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk", "dist", "v1", "stable", "acp.js")
	if _, err := os.Stat(entry); err == nil {
		return entry
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "--no-save", "@agentclientprotocol/sdk@"+sdkVersion)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm could not install @agentclientprotocol/sdk@%s (no network to the registry?): %v\n%s", sdkVersion, err, out)
	}
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("@agentclientprotocol/sdk@%s installed without %s: its layout changed", sdkVersion, entry)
	}
	return entry
}

// buildMyclaw builds the myclaw command from this tree.
func buildMyclaw(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "myclaw")
	cmd := exec.Command("go", "build", "-o", bin, "myclaw")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build myclaw: %v\n%s", err, out)
	}
	return bin
}

// TestEditorClient drives `myclaw acp` with the reference client: a
// write asks with its diff; a rejection with a reason leaves the file and
// the reason reaches the model; an approval writes it and /undo restores
// it; a cancel while asking runs nothing; under full the card names the
// level; closing stdin ends myclaw.
func TestEditorClient(t *testing.T) {
	entry := installSDK(t)
	bin := buildMyclaw(t)
	model := newFakeModel(t, map[string][2]string{
		"edit the file": {"fs_write", `{"path":"notes.txt","content":"goodbye\n"}`},
	})
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("testdata", "client.mjs"), entry, bin, ws)
	cmd.Env = []string{
		"OPENAI_BASE_URL=" + model.url(),
		"HOME=" + t.TempDir(),
		"XDG_CONFIG_HOME=" + t.TempDir(),
		"XDG_STATE_HOME=" + t.TempDir(),
		"XDG_DATA_HOME=" + t.TempDir(),
		"XDG_CACHE_HOME=" + t.TempDir(),
		"PATH=" + os.Getenv("PATH"),
	}
	out, err := cmd.CombinedOutput()
	t.Logf("client:\n%s", out)
	if err != nil {
		t.Fatalf("the client failed: %v", err)
	}
	if !model.saw("My reason for rejecting your fs_write call:) keep the greeting friendly", "the user denied fs_write") {
		t.Error("the reason given after \"reject with a reason\" did not reach the model beside the denial")
	}
	if strings.Count(string(out), "ok: ") < 10 {
		t.Errorf("the client ran only part of its checks")
	}
}
