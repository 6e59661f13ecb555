package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"myclaw/tools"
)

// The real MCP servers the tests run, pinned so that a run is reproducible.
// They are installed once into $MYCLAW_NPM_CACHE (default: the user cache
// dir/myclaw-test-npm) and reused by later runs; the tests skip, saying
// why, when Node or npm is missing or the install fails (no network).
var npmPackages = map[string]string{
	"@modelcontextprotocol/server-everything": "2026.8.31",
	"@modelcontextprotocol/server-filesystem": "2026.8.31",
}

var npmSetup struct {
	once sync.Once
	bin  string
	skip string
}

// npmServers returns the node_modules/.bin directory holding the servers, or
// skips the test.
func npmServers(t *testing.T) string {
	t.Helper()
	npmSetup.once.Do(func() { npmSetup.bin, npmSetup.skip = installNPMServers() })
	if npmSetup.skip != "" {
		t.Skip(npmSetup.skip)
	}
	return npmSetup.bin
}

func installNPMServers() (bin, skip string) {
	if _, err := exec.LookPath("node"); err != nil {
		return "", "node is not installed: the tests against real npm MCP servers need Node.js and npm"
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", "npm is not installed: the tests against real npm MCP servers need Node.js and npm"
	}
	dir := os.Getenv("MYCLAW_NPM_CACHE")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", "no cache directory for the npm MCP servers (set MYCLAW_NPM_CACHE): " + err.Error()
		}
		dir = filepath.Join(cache, "myclaw-test-npm")
	}
	if npmInstalled(dir) {
		return filepath.Join(dir, "node_modules", ".bin"), ""
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "cannot create " + dir + ": " + err.Error()
	}
	args := []string{"install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error"}
	for pkg, version := range npmPackages {
		args = append(args, pkg+"@"+version)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, npm, args...).CombinedOutput()
	if err != nil || !npmInstalled(dir) {
		tail := strings.TrimSpace(string(out))
		if len(tail) > 500 {
			tail = "…" + tail[len(tail)-500:]
		}
		return "", "npm install of the MCP servers failed (no network?): " + errString(err) + ": " + tail
	}
	return filepath.Join(dir, "node_modules", ".bin"), ""
}

// npmInstalled reports whether dir holds the pinned versions.
func npmInstalled(dir string) bool {
	for pkg, version := range npmPackages {
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json"))
		if err != nil {
			return false
		}
		var p struct{ Version string }
		if json.Unmarshal(b, &p) != nil || p.Version != version {
			return false
		}
	}
	return true
}

func errString(err error) string {
	if err == nil {
		return "the packages are missing after the install"
	}
	return err.Error()
}

func TestNPMEverythingServer(t *testing.T) {
	bin := npmServers(t)
	t.Setenv("MYCLAW_TEST_API_KEY", "sk-do-not-leak")
	reg := tools.NewRegistry()
	m := newTestManager(t, reg, ServerConfig{
		Name:    "everything",
		Command: filepath.Join(bin, "mcp-server-everything"),
		Args:    []string{"stdio"},
		Env:     map[string]string{"MYCLAW_TEST_VISIBLE": "yes"},
		Enabled: true,
		Timeout: 60 * time.Second,
		Dir:     t.TempDir(),
	})
	m.Start(context.Background(), nil)
	st := waitStatus(t, m, "everything", func(st ServerStatus) bool { return st.State != StateStarting })
	if st.State != StateRunning {
		t.Fatalf("got state %s (%s); want running", st.State, st.LastError)
	}
	t.Logf("tools: %v; skipped: %v", st.Tools, st.Skipped)

	echo, ok := reg.Lookup("everything/echo")
	if !ok {
		t.Fatalf("got no everything/echo; tools: %v", st.Tools)
	}
	if meta := echo.Meta(); meta.ReadOnly || meta.Risk != tools.RiskMedium || !meta.ReturnsUntrusted || !strings.Contains(meta.Claims, "read-only") {
		t.Errorf("got echo meta %+v; want its read-only annotation shown as an unverified claim, medium risk, untrusted", meta)
	}
	res, err := call(t, reg, "everything/echo", `{"message":"hello from myclaw"}`)
	if err != nil || res.Body != "Echo: hello from myclaw" {
		t.Errorf("got %q, %v; want \"Echo: hello from myclaw\"", res.Body, err)
	}
	if _, verr := reg.Validate("everything/echo", json.RawMessage(`{"message":42}`)); verr == nil || verr.Kind != tools.KindInvalidArgs {
		t.Errorf("got %v for a number message; want invalid_args from the server's schema", verr)
	}

	if _, ok := reg.Lookup("everything/get-env"); ok {
		res, err := call(t, reg, "everything/get-env", `{}`)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Body, "sk-do-not-leak") || !strings.Contains(res.Body, "MYCLAW_TEST_VISIBLE") {
			t.Errorf("got an environment with the secret or without the configured variable: %.300s", res.Body)
		}
	}
	if _, ok := reg.Lookup("everything/get-tiny-image"); ok {
		res, err := call(t, reg, "everything/get-tiny-image", `{}`)
		if err != nil || !strings.Contains(res.Body, "[image image/png, ") || len(res.Images) != 1 {
			t.Errorf("got %q (%d images), %v; want the image described and kept for a vision model", res.Body, len(res.Images), err)
		}
	}
}

func TestNPMFilesystemServer(t *testing.T) {
	bin := npmServers(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("line one\nline two\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	m := newTestManager(t, reg, ServerConfig{
		Name:    "fs",
		Command: filepath.Join(bin, "mcp-server-filesystem"),
		Args:    []string{root},
		Enabled: true,
		Timeout: 60 * time.Second,
		Dir:     root,
	})
	m.Start(context.Background(), nil)
	st := waitStatus(t, m, "fs", func(st ServerStatus) bool { return st.State != StateStarting })
	if st.State != StateRunning {
		t.Fatalf("got state %s (%s); want running", st.State, st.LastError)
	}
	t.Logf("tools: %v; skipped: %v", st.Tools, st.Skipped)

	for _, tc := range []struct {
		name     string
		readOnly bool
		risk     tools.Risk
	}{
		{"fs/read_file", false, tools.RiskMedium}, // claims read-only; not trusted
		{"fs/list_directory", false, tools.RiskMedium},
		{"fs/write_file", false, tools.RiskHigh},
		{"fs/create_directory", false, tools.RiskMedium},
	} {
		tl, ok := reg.Lookup(tc.name)
		if !ok {
			t.Errorf("got no %s; tools: %v", tc.name, st.Tools)
			continue
		}
		if meta := tl.Meta(); meta.ReadOnly != tc.readOnly || meta.Risk != tc.risk {
			t.Errorf("%s: got read_only=%v risk=%s; want %v %s", tc.name, meta.ReadOnly, meta.Risk, tc.readOnly, tc.risk)
		}
	}

	res, err := call(t, reg, "fs/read_file", `{"path":`+jsonString(filepath.Join(root, "notes.txt"))+`}`)
	if err != nil || !strings.Contains(res.Body, "line one\nline two") {
		t.Errorf("read_file: got %q, %v; want the file", res.Body, err)
	}
	if res.Output != nil {
		t.Errorf("read_file: got output %v; want none from an untrusted server", res.Output)
	}
	res, err = call(t, reg, "fs/list_directory", `{"path":`+jsonString(root)+`}`)
	if err != nil || !strings.Contains(res.Body, "[FILE] notes.txt") || !strings.Contains(res.Body, "[DIR] sub") {
		t.Errorf("list_directory: got %q, %v; want notes.txt and sub", res.Body, err)
	}
	_, err = call(t, reg, "fs/read_file", `{"path":"/etc/hostname"}`)
	var te *tools.Error
	if !errors.As(err, &te) || te.Kind != tools.KindExternalError || !strings.Contains(te.Message, "fs/read_file failed") {
		t.Errorf("read outside the root: got %v; want external_error from the server", err)
	}
	if _, verr := reg.Validate("fs/read_file", json.RawMessage(`{}`)); verr == nil || verr.Kind != tools.KindInvalidArgs {
		t.Errorf("got %v for a missing path; want invalid_args", verr)
	}

	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if len(reg.List()) != 0 {
		t.Errorf("got %v after Close; want no tools", names(reg))
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
