//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// proxied runs line confined through the proxy, with gate deciding hosts.
func proxied(t *testing.T, s *Sandbox, ws, line string, gate HostGate) (string, string, string) {
	t.Helper()
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = ws
	finish, err := s.ConfineProxied(cmd, gate)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := cmd.CombinedOutput()
	conf, note := finish(string(out))
	return string(out), conf, note
}

// loopbackServer answers every request with "hello from the dev server".
func loopbackServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "hello from the dev server")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// viaProxy is a bash line that asks the proxy for url with plain HTTP,
// the way an HTTP client told by HTTP_PROXY does.
func viaProxy(hostport string) string {
	return fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && printf 'GET http://%s/health HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' >&3 && cat <&3`, ProxyPort, hostport, hostport)
}

func TestProxiedCommandReachesOnlyHostsTheGateAllows(t *testing.T) {
	ws := t.TempDir()
	s := active(t, ws)
	addr := loopbackServer(t)
	var mu sync.Mutex
	var asked []string
	allow := func(_ context.Context, hostport string) error {
		mu.Lock()
		asked = append(asked, hostport)
		mu.Unlock()
		return nil
	}
	// Asked once per host, however often the command connects.
	out, conf, note := proxied(t, s, ws, viaProxy(addr)+"; "+viaProxy(addr), allow)
	if strings.Count(out, "hello from the dev server") != 2 {
		t.Fatalf("allowed host not reached through the proxy: %q (note %q)", out, note)
	}
	if len(asked) != 1 || asked[0] != addr {
		t.Errorf("gate asked %q; want once for %s", asked, addr)
	}
	if conf != ProxiedLine || !strings.Contains(note, "reached through myclaw's proxy: "+addr) {
		t.Errorf("confinement %q, note %q", conf, note)
	}

	deny := func(context.Context, string) error { return errors.New("denied by the user") }
	out, _, note = proxied(t, s, ws, viaProxy(addr), deny)
	if strings.Contains(out, "hello from the dev server") || !strings.Contains(out, "403") {
		t.Fatalf("refused host reached, or no 403: %q", out)
	}
	if !strings.Contains(note, "permission_denied: myclaw's proxy refused "+addr+" (denied by the user)") {
		t.Errorf("note = %q; want the refused host named", note)
	}
}

func TestProxiedCommandHasNoOtherWayOut(t *testing.T) {
	ws := t.TempDir()
	s := active(t, ws)
	addr := loopbackServer(t)
	_, port, _ := net.SplitHostPort(addr)
	allow := func(context.Context, string) error { return nil }
	// Straight to the server: the namespace's loopback is not the host's.
	out, _, _ := proxied(t, s, ws, fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%s && printf 'GET / HTTP/1.0\r\n\r\n' >&3 && cat <&3; echo done`, port), allow)
	if strings.Contains(out, "hello from the dev server") {
		t.Fatalf("a direct connection left the sandbox: %q", out)
	}
	// The proxy refuses what is not a proxy request, and the forwarder
	// is gone once the command is.
	before := forwarders()
	out, _, _ = proxied(t, s, ws, fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && printf 'GET /x HTTP/1.1\r\nHost: a\r\n\r\n' >&3 && cat <&3`, ProxyPort), allow)
	if !strings.Contains(out, "400") {
		t.Errorf("an origin-form request got %q; want 400", out)
	}
	if _, err := exec.LookPath("pgrep"); err != nil {
		return
	}
	// It ends as soon as it sees the command gone; give a loaded machine
	// time. Forwarders of other commands on this machine are not ours.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		left := slices.DeleteFunc(forwarders(), func(pid string) bool { return slices.Contains(before, pid) })
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a proxy forwarder outlived its command: pids %s", left)
		}
	}
}

// forwarders lists the pids of the proxy forwarders running here.
func forwarders() []string {
	b, _ := exec.Command("pgrep", "-f", netfwdArg).Output()
	return strings.Fields(string(b))
}

// A confined command that finds another command's proxy socket (the
// folder is the user's, and a path-named Unix socket is reachable below
// Landlock ABI 9) gets nothing through it: the proxy serves only
// connections from its own command's network namespace, so one command
// cannot borrow the hosts allowed for another.
func TestProxyServesOnlyItsOwnCommand(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: nothing here speaks to a Unix socket")
	}
	ws := t.TempDir()
	s := active(t, ws)
	addr := loopbackServer(t)
	allow := func(context.Context, string) error { return nil }
	deny := func(context.Context, string) error { return errors.New("denied by the user") }
	// The proxies' folders of this test only, not those of other
	// programs on this machine.
	t.Setenv("TMPDIR", t.TempDir())

	other := exec.Command("bash", "-c", "read x")
	other.Dir = ws
	finishOther, err := s.ConfineProxied(other, allow)
	if err != nil {
		t.Fatal(err)
	}
	stdin, _ := other.StdinPipe()
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); other.Wait(); finishOther("") }()

	script := fmt.Sprintf(`
import glob, socket
for p in glob.glob(%q):
    try:
        s = socket.socket(socket.AF_UNIX); s.connect(p)
        s.sendall(b"GET http://%s/ HTTP/1.1\r\nHost: x\r\n\r\n")
        print(p, s.recv(4096))
    except Exception as e:
        print(p, e)
`, filepath.Join(os.TempDir(), "myclaw-net-*", "s"), addr)
	out, _, _ := proxied(t, s, ws, "python3 -c '"+script+"'", deny)
	if strings.Contains(out, "hello from the dev server") {
		t.Fatalf("a command reached a host through another command's proxy: %s", out)
	}
	if !strings.Contains(out, "myclaw-net-") {
		t.Fatalf("the command found no proxy socket to try: %s", out)
	}
	// Nor does a command learn its own proxy's secret.
	if out, _, _ := proxied(t, s, ws, "env; cat /proc/self/environ", deny); strings.Contains(out, proxyTokenEnv) {
		t.Errorf("the command's environment holds the proxy's token: %s", out)
	}
}
