package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

// One host has one name at the gate: every spelling the dialer would
// take to the same place is the spelling a rule names, and a name the
// resolver could read as an address is refused, so a deny rule for a
// host cannot be walked around.
func TestProxyTargetIsCanonical(t *testing.T) {
	same := map[string]string{
		"CONNECT Evil.COM.:443 HTTP/1.1":                   "evil.com:443",
		"CONNECT evil.com:0443 HTTP/1.1":                   "evil.com:443",
		"CONNECT [::ffff:127.0.0.1]:22 HTTP/1.1":           "127.0.0.1:22",
		"CONNECT [0:0::1]:22 HTTP/1.1":                     "[::1]:22",
		"GET http://EVIL.com./x HTTP/1.1":                  "evil.com:80",
		"GET http://[::ffff:7f00:1]:8080/ HTTP/1.1":        "127.0.0.1:8080",
		"CONNECT proxy.golang.org:443 HTTP/1.1":            "proxy.golang.org:443",
		"CONNECT 127.0.0.1:3000 HTTP/1.1":                  "127.0.0.1:3000",
		"CONNECT localhost:3000 HTTP/1.1":                  "localhost:3000",
		"CONNECT my_host-1.internal.example:8443 HTTP/1.1": "my_host-1.internal.example:8443",
	}
	for line, want := range same {
		got, err := target(t, line)
		if err != nil || got != want {
			t.Errorf("%s: got %q, %v; want %q", line, got, err, want)
		}
	}
	refused := []string{
		"CONNECT evil.com:https HTTP/1.1",    // a service name for a port
		"CONNECT evil.com:0 HTTP/1.1",        // no port
		"CONNECT evil.com:65536 HTTP/1.1",    // past the last port
		"CONNECT evil.com: HTTP/1.1",         // empty port
		"CONNECT a@evil.com:443 HTTP/1.1",    // userinfo
		"CONNECT 127.1:22 HTTP/1.1",          // inet_aton's short form
		"CONNECT 2130706433:22 HTTP/1.1",     // an address as one number
		"CONNECT 0x7f.0.0.1:22 HTTP/1.1",     // hex
		"CONNECT 0.0.0.0:22 HTTP/1.1",        // the unspecified address is this machine
		"CONNECT [::]:22 HTTP/1.1",           // the same in IPv6
		"CONNECT [fe80::1%25lo]:22 HTTP/1.1", // a zone
		"CONNECT evil..com:443 HTTP/1.1",     // an empty label
		"CONNECT " + strings.Repeat("a", 64) + ".com:443 HTTP/1.1",
		"CONNECT " + strings.Repeat("a.", 127) + "com:443 HTTP/1.1",
		"GET http://:80/ HTTP/1.1", // no host: this machine
		"GET http://evil.com:http/ HTTP/1.1",
	}
	for _, line := range refused {
		if got, err := target(t, line); err == nil {
			t.Errorf("%s: got %q; want it refused", line, got)
		} else if !strings.Contains(err.Error(), "host") && !strings.Contains(err.Error(), "port") {
			t.Errorf("%s: error %q does not say what was wrong", line, err)
		}
	}
}

func target(t *testing.T, line string) (string, error) {
	t.Helper()
	req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(line + "\r\nHost: x\r\n\r\n")))
	if err != nil {
		return "", err
	}
	return proxyTarget(req)
}

// A command cannot make myclaw ask about host after host, nor fill its
// result with them: past maxProxyHosts the proxy refuses a new host
// without asking, and the note counts what it does not list.
func TestProxyBoundsTheHostsOneCommandAsksFor(t *testing.T) {
	asked := 0
	p, err := startProxy(func(context.Context, string) error {
		asked++
		return errors.New("denied by the user")
	})
	if err != nil {
		t.Fatal(err)
	}
	const n = 3 * maxProxyHosts
	for i := range n {
		c, err := net.Dial("unix", p.socket())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "%s\nCONNECT h%d.example:443 HTTP/1.1\r\nHost: x\r\n\r\n", p.token, i)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("host %d: %v, %v; want 403", i, resp, err)
		}
		c.Close()
	}
	reached, refused := p.close()
	if asked != maxProxyHosts {
		t.Errorf("the gate was asked %d times; want %d", asked, maxProxyHosts)
	}
	note := proxyNote(reached, refused)
	if len(refused) > maxProxyHosts+1 || !strings.Contains(note, fmt.Sprintf("%d more requests for other hosts", n-maxProxyHosts)) {
		t.Errorf("%d refusals listed; note %q", len(refused), note)
	}
}

// A command cannot hold myclaw's descriptors and memory with connection
// after connection: past maxProxyConns at once, a new one is turned away
// at once with a 503 that says why.
func TestProxyBoundsItsConnections(t *testing.T) {
	p, err := startProxy(func(context.Context, string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	for range maxProxyConns {
		c, err := net.Dial("unix", p.socket())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close() // idle: sends nothing
	}
	c, err := net.Dial("unix", p.socket())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("connection %d: %v, %v; want 503", maxProxyConns+1, resp, err)
	}
}

// A name the user allowed that resolves to this machine (or to a cloud's
// metadata address) does not lead there: loopback, unspecified and
// link-local addresses are reached only by being allowed as themselves.
func TestProxyNameNeverLeadsToThisMachine(t *testing.T) {
	for _, tc := range []struct{ name, addr string }{
		{"rebound.example", "127.0.0.1"},
		{"rebound6.example", "::1"},
		{"metadata.example", "169.254.169.254"},
	} {
		p, err := startProxyResolving(func(context.Context, string) error { return nil }, func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr(tc.addr)}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		c, err := net.Dial("unix", p.socket())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "%s\nCONNECT %s:22 HTTP/1.1\r\nHost: x\r\n\r\n", p.token, tc.name)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		c.Close()
		p.close()
		if err != nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s resolving to %s: %v, %v; want 403", tc.name, tc.addr, resp, err)
		}
	}
}
