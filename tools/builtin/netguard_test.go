package builtin

import (
	"context"
	"errors"
	"myclaw/tools"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

func TestBlockedAddrReason(t *testing.T) {
	tests := []struct {
		addr string
		want string // "" = allowed; otherwise a word the reason must contain
	}{
		{"127.0.0.1", "loopback"},
		{"127.255.255.254", "loopback"},
		{"10.0.0.1", "private"},
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"192.168.1.1", "private"},
		{"169.254.169.254", "metadata"},
		{"169.254.170.2", "metadata"},
		{"169.254.1.1", "link-local"},
		{"100.64.0.1", "carrier-grade"},
		{"100.127.255.255", "carrier-grade"},
		{"100.100.100.200", "metadata"},
		{"0.0.0.0", "this network"},
		{"0.1.2.3", "this network"},
		{"224.0.0.1", "multicast"},
		{"239.255.255.250", "multicast"},
		{"255.255.255.255", "broadcast"},
		{"240.0.0.1", "reserved"},
		{"192.0.2.10", "documentation"},
		{"198.18.0.1", "benchmarking"},
		{"::", "unspecified"},
		{"::1", "loopback"},
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"fc00::1", "private"},
		{"fd12:3456::1", "private"},
		{"fd00:ec2::254", "metadata"},
		{"ff02::1", "multicast"},
		{"fec0::1", "site-local"},
		{"::ffff:127.0.0.1", "loopback"},
		{"::ffff:10.0.0.1", "private"},
		{"::ffff:169.254.169.254", "metadata"},
		{"::127.0.0.1", "loopback"},
		{"::10.1.2.3", "private"},
		{"64:ff9b::7f00:1", "loopback"},
		{"64:ff9b::a9fe:a9fe", "metadata"},
		{"2002:7f00:1::", "loopback"},
		{"2002:c0a8:101::1", "private"},
		{"2001:db8::1", "documentation"},
		{"8.8.8.8", ""},
		{"1.1.1.1", ""},
		{"93.184.215.14", ""},
		{"172.15.255.255", ""},
		{"172.32.0.1", ""},
		{"100.63.255.255", ""},
		{"100.128.0.1", ""},
		{"169.253.255.255", ""},
		{"2606:4700:4700::1111", ""},
		{"2001:4860:4860::8888", ""},
		{"::ffff:8.8.8.8", ""},
		{"64:ff9b::808:808", ""},
		{"2002:808:808::1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			got := BlockedAddrReason(netip.MustParseAddr(tt.addr))
			switch {
			case tt.want == "" && got != "":
				t.Errorf("BlockedAddrReason(%s) = %q; want allowed", tt.addr, got)
			case tt.want != "" && !strings.Contains(got, tt.want):
				t.Errorf("BlockedAddrReason(%s) = %q; want a reason containing %q", tt.addr, got, tt.want)
			}
		})
	}
	if got := BlockedAddrReason(netip.Addr{}); got == "" {
		t.Errorf("BlockedAddrReason(zero Addr) = \"\"; want refused")
	}
}

func TestNetParseLegacyIPv4(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" = not a numeric form
	}{
		{"0x7f000001", "127.0.0.1"},
		{"0X7F000001", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"10.1", "10.0.0.1"},
		{"0xa9.0xfe.0xa9.0xfe", "169.254.169.254"},
		{"3232235777", "192.168.1.1"},
		{"0", "0.0.0.0"},
		{"1.2.3.4", "1.2.3.4"},
		{"4294967296", ""},
		{"256.1.1.1", ""},
		{"1.2.3.256", ""},
		{"1.2.65536", ""},
		{"1.2.3.4.5", ""},
		{"example.com", ""},
		{"1..2", ""},
		{"08", ""},
		{"0x", ""},
		{"-1", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := netParseLegacyIPv4(tt.in)
			switch {
			case tt.want == "" && ok:
				t.Errorf("netParseLegacyIPv4(%q) = %s; want not numeric", tt.in, got)
			case tt.want != "" && (!ok || got.String() != tt.want):
				t.Errorf("netParseLegacyIPv4(%q) = %s, %v; want %s", tt.in, got, ok, tt.want)
			}
		})
	}
}

func TestNetGuardCheckHost(t *testing.T) {
	g := newNetGuard([]string{"Intranet.Example", "*.corp.example", "10.1.2.3", " "})
	tests := []struct {
		host string
		want tools.Kind // "" = accepted before any connection
	}{
		{"example.com", ""},
		{"intranet.example", ""},
		{"INTRANET.EXAMPLE.", ""},
		{"wiki.corp.example", ""},
		{"corp.example", ""}, // a name: checked when dialling
		{"10.1.2.3", ""},
		{"10.1.2.4", tools.KindPermissionDenied},
		{"127.0.0.1", tools.KindPermissionDenied},
		{"[::1]", tools.KindPermissionDenied},
		{"::ffff:127.0.0.1", tools.KindPermissionDenied},
		{"0x7f000001", tools.KindPermissionDenied},
		{"2130706433", tools.KindPermissionDenied},
		{"169.254.169.254", tools.KindPermissionDenied},
		{"localhost", tools.KindPermissionDenied},
		{"LocalHost.", tools.KindPermissionDenied},
		{"api.localhost", tools.KindPermissionDenied},
		{"0x08080808", tools.KindInvalidArgs},
		{"8.8.8.8", ""},
		{"", tools.KindInvalidArgs},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			err := g.checkHost(tt.host)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("checkHost(%q) = %v; want accepted", tt.host, err)
			case tt.want != "" && (err == nil || err.Kind != tt.want):
				t.Errorf("checkHost(%q) = %v; want kind %s", tt.host, err, tt.want)
			}
		})
	}
}

// netTestServer counts the requests that reach it.
func netTestServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("reached"))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestSafeHTTPClientDialCheck(t *testing.T) {
	srv, hits := netTestServer(t)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	tests := []struct {
		name      string
		allow     []string
		host      string
		wantBlock bool
	}{
		{"ip literal refused at dial", nil, "127.0.0.1", true},
		{"name resolving to loopback refused", nil, "localhost", true},
		{"allowed name reaches the server", []string{"localhost"}, "localhost", false},
		{"allowing a name does not open the address", []string{"localhost"}, "127.0.0.1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := hits.Load()
			c := safeHTTPClient(WebOptions{AllowPrivateHosts: tt.allow})
			u := "http://" + net.JoinHostPort(tt.host, strconv.Itoa(port)) + "/"
			resp, err := c.Get(u)
			if resp != nil {
				resp.Body.Close()
			}
			var be *blockedAddrError
			if tt.wantBlock {
				if !errors.As(err, &be) {
					t.Fatalf("Get(%s) error = %v; want a blocked address", u, err)
				}
				if be.Addr.String() != "127.0.0.1" && be.Addr.String() != "::1" {
					t.Errorf("blocked address = %s; want the loopback address connected to", be.Addr)
				}
				if got := hits.Load() - before; got != 0 {
					t.Errorf("server got %d requests; want 0", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Get(%s) error = %v; want success", u, err)
			}
			if got := hits.Load() - before; got != 1 {
				t.Errorf("server got %d requests; want 1", got)
			}
		})
	}
}

func TestSafeHTTPClientIgnoresProxy(t *testing.T) {
	c := safeHTTPClient(WebOptions{})
	tr, ok := c.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("Transport is %T; want *http.Transport", c.Transport)
	}
	if tr.Proxy != nil {
		t.Errorf("Transport.Proxy is set; want nil so HTTP_PROXY cannot route around the address check")
	}
}

func TestSafeHTTPClientRedirectChecks(t *testing.T) {
	c := safeHTTPClient(WebOptions{})
	mk := func(s string) *http.Request {
		u, _ := url.Parse(s)
		return &http.Request{URL: u}
	}
	tests := []struct {
		name string
		to   string
		via  int
		want tools.Kind
	}{
		{"public https", "https://example.com/x", 1, ""},
		{"fifth redirect", "https://example.com/x", 5, ""},
		{"sixth redirect", "https://example.com/x", 6, tools.KindExternalError},
		{"to file", "file:///etc/passwd", 1, tools.KindPermissionDenied},
		{"to ftp", "ftp://example.com/x", 1, tools.KindInvalidArgs},
		{"to loopback literal", "http://127.0.0.1/", 1, tools.KindPermissionDenied},
		{"to metadata", "http://169.254.169.254/latest/meta-data/", 1, tools.KindPermissionDenied},
		{"with credentials", "https://u:p@example.com/", 1, tools.KindInvalidArgs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			via := make([]*http.Request, tt.via)
			err := c.CheckRedirect(mk(tt.to), via)
			var te *tools.Error
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckRedirect(%s) = %v; want allowed", tt.to, err)
			case tt.want != "" && (!errors.As(err, &te) || te.Kind != tt.want):
				t.Errorf("CheckRedirect(%s) = %v; want kind %s", tt.to, err, tt.want)
			}
		})
	}
}

func TestNetFetchErrorMapping(t *testing.T) {
	u, _ := url.Parse("https://example.com/")
	ctx := context.Background()
	be := &blockedAddrError{Host: "evil.example", Addr: netip.MustParseAddr("10.0.0.7"), Reason: "private"}
	tests := []struct {
		name string
		err  error
		want tools.Kind
		msg  string
	}{
		{"blocked", &url.Error{Op: "Get", URL: u.String(), Err: &net.OpError{Op: "dial", Err: be}}, tools.KindPermissionDenied, "evil.example resolves to 10.0.0.7"},
		{"dns", &url.Error{Op: "Get", URL: u.String(), Err: &net.DNSError{Err: "no such host", Name: "example.com", IsNotFound: true}}, tools.KindNetworkError, "not found"},
		{"timeout", &url.Error{Op: "Get", URL: u.String(), Err: context.DeadlineExceeded}, tools.KindNetworkError, "did not answer"},
		{"other", &url.Error{Op: "Get", URL: u.String(), Err: errors.New("connection reset")}, tools.KindNetworkError, "connection reset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var te *tools.Error
			if err := netFetchError(ctx, tt.err, u, webDefaultTimeout); !errors.As(err, &te) || te.Kind != tt.want || !strings.Contains(te.Message, tt.msg) {
				t.Errorf("netFetchError = %v; want kind %s with %q", err, tt.want, tt.msg)
			}
		})
	}
}

// safeHTTPClient is the client web_fetch uses, built from opts.
func safeHTTPClient(opts WebOptions) *http.Client {
	opts = opts.withDefaults()
	return newNetGuard(opts.AllowPrivateHosts).client(opts)
}
