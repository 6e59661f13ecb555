package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// selfTest runs one confined command in a scratch workspace that must be
// able to write there and must fail to write outside it, to write
// .git/hooks, to read a hidden file, and to connect to a loopback
// listener.
func (s *Sandbox) selfTest(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	root, err := os.MkdirTemp("", "myclaw-sandbox-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	ws, outside := filepath.Join(root, "ws"), filepath.Join(root, "outside")
	secretDir, secretFile := filepath.Join(root, "secret"), filepath.Join(root, "secret-file")
	for _, d := range []string{filepath.Join(ws, ".git", "hooks"), outside, secretDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	const secret = "hidden-check-secret"
	for _, f := range []string{filepath.Join(secretDir, "key"), secretFile} {
		if err := os.WriteFile(f, []byte(secret), 0o600); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen on loopback for the check: %w", err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	script := fmt.Sprintf(`echo ok > inside; echo x > "$TMPDIR/t" && echo ok > tmp-ok; echo x > %s/escape; echo x > .git/hooks/x; (echo x > /dev/tcp/127.0.0.1/%d) && echo x > connected; cat %s/key %s; exit 0`, shellQuote(outside), port, shellQuote(secretDir), shellQuote(secretFile))
	probe := New(Options{Workspace: ws, Executable: s.opts.Executable, Hidden: []string{secretDir, secretFile}})
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = ws
	c, err := probe.confine(cmd, false)
	if err != nil {
		return err
	}
	out, err := cmd.CombinedOutput()
	c.finish("")
	text := strings.TrimSpace(string(out))
	if err != nil {
		return fmt.Errorf("the confined command failed: %w: %s", err, text)
	}
	var bad []string
	exists := func(p string) bool { _, err := os.Lstat(p); return err == nil }
	if !exists(filepath.Join(ws, "inside")) {
		bad = append(bad, "it could not write in the workspace")
	}
	if !exists(filepath.Join(ws, "tmp-ok")) {
		bad = append(bad, "it could not write in its temp dir")
	}
	if exists(filepath.Join(outside, "escape")) {
		bad = append(bad, "it wrote outside the workspace")
	}
	if exists(filepath.Join(ws, ".git", "hooks", "x")) {
		bad = append(bad, "it wrote in .git/hooks")
	}
	// A connect that succeeded finished its handshake before the command
	// exited, so it is queued already: a short wait is enough.
	_ = ln.(*net.TCPListener).SetDeadline(time.Now().Add(5 * time.Millisecond))
	conn, aerr := ln.Accept()
	if aerr == nil {
		conn.Close()
	}
	if aerr == nil || exists(filepath.Join(ws, "connected")) {
		bad = append(bad, "it connected to a loopback listener")
	}
	if strings.Contains(text, secret) {
		bad = append(bad, "it read a hidden file")
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "; ") + " (output: " + text + ")")
	}
	return nil
}

// shellQuote quotes s for bash.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// layerTest checks that a cache seen through a layer (in LayerDir, where
// the real layers go) takes a confined command's writes while the cache
// itself stays as it was.
func (s *Sandbox) layerTest(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := os.MkdirAll(s.opts.LayerDir, 0o700); err != nil {
		return err
	}
	root, err := os.MkdirTemp(s.opts.LayerDir, ".check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	ws, cache := filepath.Join(root, "ws"), filepath.Join(root, "cache")
	for _, d := range []string{ws, cache} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	existing := filepath.Join(cache, "existing")
	if err := os.WriteFile(existing, []byte("cached"), 0o644); err != nil {
		return err
	}
	probe := New(Options{Workspace: ws, Executable: s.opts.Executable, Writable: []string{cache}, LayerDir: filepath.Join(root, "layers")})
	probe.layered = true
	cmd := exec.CommandContext(ctx, "bash", "-c", fmt.Sprintf(`echo changed > %s/existing && echo x > %s/new && grep -q changed %s/existing && echo ok > layered`, shellQuote(cache), shellQuote(cache), shellQuote(cache)))
	cmd.Dir = ws
	c, err := probe.confine(cmd, false)
	if err != nil {
		return err
	}
	out, err := cmd.CombinedOutput()
	c.finish("")
	if err != nil {
		return fmt.Errorf("a cache layer does not work here: %w: %s", err, strings.TrimSpace(string(out)))
	}
	if b, _ := os.ReadFile(existing); string(b) != "cached" {
		return errors.New("a write through the cache layer reached the cache")
	}
	if _, err := os.Lstat(filepath.Join(cache, "new")); err == nil {
		return errors.New("a file made through the cache layer landed in the cache")
	}
	if _, err := os.Lstat(filepath.Join(ws, "layered")); err != nil {
		return errors.New("the command could not write through the cache layer")
	}
	return nil
}
