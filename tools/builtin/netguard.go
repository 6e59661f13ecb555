package builtin

import (
	"context"
	"errors"
	"fmt"
	"myclaw/tools"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// WebOptions configures web_fetch and web_search.
type WebOptions struct {
	AllowPrivateHosts []string      // host names allowed to resolve to private addresses (off by default)
	Timeout           time.Duration // 0 -> 20 s
	MaxBytes          int64         // download cap, 0 -> 5 MB
	UserAgent         string
}

const (
	webDefaultTimeout   = 20 * time.Second
	webDefaultMaxBytes  = 5 << 20
	webDefaultUserAgent = "myclaw (web_fetch)"
	webMaxRedirects     = 5
)

func (o WebOptions) withDefaults() WebOptions {
	if o.Timeout <= 0 {
		o.Timeout = webDefaultTimeout
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = webDefaultMaxBytes
	}
	if o.UserAgent == "" {
		o.UserAgent = webDefaultUserAgent
	}
	return o
}

// blockedAddrError says that a host resolved to an address web tools may not
// reach.
type blockedAddrError struct {
	Host   string
	Addr   netip.Addr
	Reason string
}

func (e *blockedAddrError) Error() string {
	if e.Host != "" && e.Host != e.Addr.String() {
		return fmt.Sprintf("%s resolves to %s, a %s address", e.Host, e.Addr, e.Reason)
	}
	return fmt.Sprintf("%s is a %s address", e.Addr, e.Reason)
}

// toolError turns the refusal into the error the model reads.
func (e *blockedAddrError) toolError() *tools.Error {
	return (&tools.Error{
		Kind:    tools.KindPermissionDenied,
		Message: e.Error() + "; private, loopback, link-local and metadata addresses are blocked",
		Hint:    "Fetch a public address instead. If the user wants this intranet host reachable, they can add its name to allow_private_hosts in the [web] section of the config; do not try other spellings of the address.",
	}).With("address", e.Addr.String()).With("host", e.Host)
}

// Address ranges web tools refuse, checked after any IPv4-mapped,
// IPv4-compatible or NAT64 form is reduced to its IPv4 address.
var netBlockedPrefixes = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "\"this network\""},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "reserved (IETF protocol assignments)"},
	{netip.MustParsePrefix("192.0.2.0/24"), "reserved (documentation)"},
	{netip.MustParsePrefix("192.88.99.0/24"), "reserved (6to4 relay)"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("198.18.0.0/15"), "reserved (benchmarking)"},
	{netip.MustParsePrefix("198.51.100.0/24"), "reserved (documentation)"},
	{netip.MustParsePrefix("203.0.113.0/24"), "reserved (documentation)"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved (including broadcast)"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("100::/64"), "reserved (discard)"},
	{netip.MustParsePrefix("2001:db8::/32"), "reserved (documentation)"},
	{netip.MustParsePrefix("fc00::/7"), "private (unique local)"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

var (
	netNAT64      = netip.MustParsePrefix("64:ff9b::/96")
	netNAT64Local = netip.MustParsePrefix("64:ff9b:1::/48")
	net6to4       = netip.MustParsePrefix("2002::/16")
)

// netEmbeddedIPv4 returns the IPv4 address that an IPv6 address stands for:
// IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64
// (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::).
func netEmbeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	if !a.Is6() {
		return netip.Addr{}, false
	}
	if a.Is4In6() {
		return a.Unmap(), true
	}
	b := a.As16()
	var zero [12]byte
	if [12]byte(b[:12]) == zero && a != netip.IPv6Unspecified() && a != netip.IPv6Loopback() {
		return netip.AddrFrom4([4]byte(b[12:])), true
	}
	if netNAT64.Contains(a) || netNAT64Local.Contains(a) {
		return netip.AddrFrom4([4]byte(b[12:])), true
	}
	if net6to4.Contains(a) {
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}

// BlockedAddrReason returns why web tools refuse to connect to a, or "" when
// a is a public unicast address. IPv6 forms that embed an IPv4 address are
// judged by that address.
func BlockedAddrReason(a netip.Addr) string {
	if !a.IsValid() {
		return "invalid"
	}
	a = a.WithZone("")
	if v4, ok := netEmbeddedIPv4(a); ok {
		if r := BlockedAddrReason(v4); r != "" {
			return r
		}
		return ""
	}
	if tools.MetadataAddr(a) {
		return "cloud metadata"
	}
	for _, b := range netBlockedPrefixes {
		if b.prefix.Contains(a) {
			return b.reason
		}
	}
	return ""
}

// netGuard decides which hosts may reach private addresses.
type netGuard struct {
	exact    map[string]bool
	suffixes []string // from "*.corp.example" entries: ".corp.example"
}

func newNetGuard(allow []string) *netGuard {
	g := &netGuard{exact: map[string]bool{}}
	for _, h := range allow {
		h = netNormalizeHost(h)
		if h == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(h, "*."); ok {
			g.suffixes = append(g.suffixes, "."+rest)
			continue
		}
		g.exact[h] = true
	}
	return g
}

// netNormalizeHost lower-cases a host name and drops brackets, an IPv6 zone
// and a trailing dot.
func netNormalizeHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	h = strings.TrimSuffix(h, ".")
	if i := strings.IndexByte(h, '%'); i >= 0 {
		h = h[:i]
	}
	return h
}

// allowed reports whether host was opened to private addresses by the user.
func (g *netGuard) allowed(host string) bool {
	host = netNormalizeHost(host)
	if g.exact[host] {
		return true
	}
	for _, s := range g.suffixes {
		if strings.HasSuffix(host, s) {
			return true
		}
	}
	return false
}

// checkHost refuses, before any connection, a host written as a blocked IP
// address or as an ambiguous numeric form (0x7f000001, 2130706433, 0177.1)
// that resolvers disagree on. Names are checked after resolution, at dial
// time.
func (g *netGuard) checkHost(host string) *tools.Error {
	if g.allowed(host) {
		return nil
	}
	h := netNormalizeHost(host)
	if h == "" {
		return tools.Errorf(tools.KindInvalidArgs, "Give a full URL such as https://example.com/page.", "the URL has no host")
	}
	if a, err := netip.ParseAddr(h); err == nil {
		if r := BlockedAddrReason(a); r != "" {
			return (&blockedAddrError{Host: h, Addr: a, Reason: r}).toolError()
		}
		return nil
	}
	if a, ok := netParseLegacyIPv4(h); ok {
		if r := BlockedAddrReason(a); r != "" {
			return (&blockedAddrError{Host: h, Addr: a, Reason: r}).toolError()
		}
		return tools.Errorf(tools.KindInvalidArgs, "Write the address in dotted-decimal form (e.g. 93.184.215.14) or use the host name.",
			"the host %q is a numeric address in a non-standard form (%s)", host, a).With("host", host)
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return (&blockedAddrError{Host: h, Addr: netip.MustParseAddr("127.0.0.1"), Reason: "loopback"}).toolError()
	}
	return nil
}

// netParseLegacyIPv4 parses the inet_aton forms of an IPv4 address that
// netip rejects: one to four parts, each decimal, octal (leading 0) or hex
// (0x), the last part filling the remaining bytes.
func netParseLegacyIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	var vals []uint64
	for _, p := range parts {
		if p == "" {
			return netip.Addr{}, false
		}
		base, digits := 10, p
		switch {
		case len(p) > 2 && (p[:2] == "0x" || p[:2] == "0X"):
			base, digits = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		v, err := strconv.ParseUint(digits, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals = append(vals, v)
	}
	n := len(vals)
	for _, v := range vals[:n-1] {
		if v > 255 {
			return netip.Addr{}, false
		}
	}
	if vals[n-1] >= 1<<(8*(5-n)) {
		return netip.Addr{}, false
	}
	var ip uint32
	for i, v := range vals[:n-1] {
		ip |= uint32(v) << (24 - 8*i)
	}
	ip |= uint32(vals[n-1])
	return netip.AddrFrom4([4]byte{byte(ip >> 24), byte(ip >> 16), byte(ip >> 8), byte(ip)}), true
}

// dialContext connects like net.Dialer but checks, in Control, the address
// actually being connected after DNS resolution, so a name that resolves
// (or re-resolves, DNS rebinding) to a private address is refused.
func (g *netGuard) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !g.allowed(host) {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("refusing to connect to unparsable address %q", address)
			}
			if r := BlockedAddrReason(ap.Addr()); r != "" {
				return &blockedAddrError{Host: netNormalizeHost(host), Addr: ap.Addr().WithZone(""), Reason: r}
			}
			return nil
		}
	}
	return d.DialContext(ctx, network, addr)
}

// checkURL accepts only http and https URLs without credentials, whose host
// passes checkHost.
func (g *netGuard) checkURL(u *url.URL) *tools.Error {
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "file":
		return tools.Errorf(tools.KindPermissionDenied, "web_fetch reads only http and https URLs; use fs_read for files inside the workspace.", "file: URLs are not fetched").With("url", u.Redacted())
	case "":
		return tools.Errorf(tools.KindInvalidArgs, "Give a full URL with its scheme, such as https://example.com/page.", "the URL %q has no scheme", u.Redacted())
	default:
		return tools.Errorf(tools.KindInvalidArgs, "Only http and https URLs can be fetched.", "the %s: scheme is not supported", strings.ToLower(u.Scheme)).With("url", u.Redacted())
	}
	if u.User != nil {
		return tools.Errorf(tools.KindInvalidArgs, "Remove the user name and password from the URL; credentials are not sent.", "the URL contains credentials")
	}
	return g.checkHost(u.Hostname())
}

// client returns an HTTP client for content the model asked for: it
// ignores HTTP_PROXY and friends (a proxy would connect on its behalf, out of
// reach of the address check), refuses to connect to loopback, private,
// link-local, CGNAT, multicast, reserved and cloud metadata addresses after
// DNS resolution unless the host is one the guard allows, follows at most
// 5 redirects and checks each one (scheme, credentials, host) again, and
// gives up after opts.Timeout. A refusal surfaces from Do as an error
// carrying a permission_denied *Error or an address error that
// netFetchError maps to one.
func (g *netGuard) client(opts WebOptions) *http.Client {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           g.dialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		ResponseHeaderTimeout: opts.Timeout,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   opts.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > webMaxRedirects {
				return tools.Errorf(tools.KindExternalError, "The page redirects too often; try the final URL directly if you know it.",
					"stopped after %d redirects (last to %s)", webMaxRedirects, req.URL.Redacted())
			}
			if err := g.checkURL(req.URL); err != nil {
				err.Message = "redirect to " + req.URL.Redacted() + " refused: " + err.Message
				return err
			}
			return nil
		},
	}
}

// netFetchError maps an error from the safe client to what the model reads.
func netFetchError(ctx context.Context, err error, u *url.URL, timeout time.Duration) error {
	var te *tools.Error
	if errors.As(err, &te) {
		return te
	}
	var be *blockedAddrError
	if errors.As(err, &be) {
		return be.toolError()
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return ctx.Err()
	}
	host := u.Hostname()
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return tools.Errorf(tools.KindNetworkError, "Check the host name for typos, or search for the right address.", "host %s not found", host).With("host", host)
	case netIsTimeout(err):
		return tools.Errorf(tools.KindNetworkError, "The server is slow or unreachable; try again later or another source.", "%s did not answer within %s", host, timeout).With("host", host)
	}
	var ue *url.Error
	msg := err.Error()
	if errors.As(err, &ue) {
		msg = ue.Err.Error()
	}
	return tools.Errorf(tools.KindNetworkError, "The server could not be reached; try again later or another source.", "fetching from %s failed: %s", host, msg).With("host", host)
}

func netIsTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
