package sandbox

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// HostGate decides whether a confined command may reach hostport
// ("host:port") through myclaw's proxy; nil allows. It may block while a
// person decides, and must honour ctx.
type HostGate = func(ctx context.Context, hostport string) error

// proxyTokenEnv carries the proxy's token to the command's forwarder; the
// launcher takes it out of the command's own environment.
const proxyTokenEnv = "MYCLAW_PROXY_TOKEN"

// ProxyPort is where, inside a confined command's own network namespace,
// myclaw's proxy listens (http://127.0.0.1:ProxyPort). The namespace has
// nothing else: the proxy is the only way out, one host at a time.
const ProxyPort = 38451

// proxyEnv are the variables that point HTTP clients at the proxy.
func proxyEnv() []string {
	u := "http://127.0.0.1:" + strconv.Itoa(ProxyPort)
	out := []string{"NO_PROXY=", "no_proxy="}
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		out = append(out, k+"="+u)
	}
	return out
}

// withProxyEnv is env pointing at the proxy, any earlier proxy settings
// dropped.
func withProxyEnv(env []string) []string {
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToLower(k) {
		case "http_proxy", "https_proxy", "all_proxy", "no_proxy":
			return true
		}
		return false
	})
	return append(env, proxyEnv()...)
}

// hostProxy is the HTTP proxy (CONNECT, and plain HTTP with an absolute
// URL) one confined command reaches the network through. It listens on a
// Unix socket in a directory of its own, outside what the command may
// write, and asks gate about each host before it connects.
type hostProxy struct {
	// token is the secret the command's forwarder sends first on each
	// connection: the socket's folder is the user's, and another confined
	// command that finds the socket must not borrow this command's hosts.
	token string
	dir   string
	ln    net.Listener
	gate  HostGate
	ctx   context.Context
	stop  context.CancelFunc
	wg    sync.WaitGroup

	// lookup resolves a host name (net.DefaultResolver's, but for tests).
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)

	mu      sync.Mutex
	decided map[string]error // per hostport, for this command
	asking  int              // hosts before the gate now
	over    int              // requests for new hosts refused past maxProxyHosts
	reached []string
	refused []string
}

// startProxy listens on a new Unix socket; the socket's path is
// p.socket().
func startProxy(gate HostGate) (*hostProxy, error) {
	return startProxyResolving(gate, func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	})
}

// startProxyResolving is startProxy with lookup resolving names.
func startProxyResolving(gate HostGate, lookup func(context.Context, string) ([]netip.Addr, error)) (*hostProxy, error) {
	dir, err := os.MkdirTemp("", "myclaw-net-")
	if err != nil {
		return nil, fmt.Errorf("make the proxy's directory: %w", err)
	}
	ln, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("listen for the proxy: %w", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	p := &hostProxy{lookup: lookup, token: rand.Text(), dir: dir, ln: ln, gate: gate, ctx: ctx, stop: stop, decided: map[string]error{}}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

func (p *hostProxy) socket() string { return filepath.Join(p.dir, "s") }

// close stops the proxy and every connection through it, and reports the
// hosts reached and refused.
func (p *hostProxy) close() (reached, refused []string) {
	p.stop()
	p.ln.Close()
	p.wg.Wait()
	os.RemoveAll(p.dir)
	p.mu.Lock()
	defer p.mu.Unlock()
	refused = p.refused
	if p.over > 0 {
		refused = append(refused, fmt.Sprintf("%d more requests for other hosts (past %d hosts, refused without asking)", p.over, maxProxyHosts))
	}
	return p.reached, refused
}

func (p *hostProxy) serve() {
	defer p.wg.Done()
	open := make(chan struct{}, maxProxyConns)
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		select {
		case open <- struct{}{}:
		default:
			_ = c.SetWriteDeadline(time.Now().Add(time.Second)) // never hold up the accepting
			refuse(c, http.StatusServiceUnavailable, fmt.Sprintf("the command has %d connections open through myclaw's proxy already", maxProxyConns))
			c.Close()
			continue
		}
		p.wg.Add(1)
		go func() {
			defer func() { <-open; p.wg.Done() }()
			p.handle(c)
		}()
	}
}

// maxProxyHosts bounds the hosts one command has decided: past it, a new
// host is refused without asking, so that a command cannot keep a person
// answering, nor fill the audit log and its result with hosts.
const maxProxyHosts = 32

// maxProxyConns bounds the connections through the proxy at once, each a
// descriptor and a goroutine of myclaw's.
const maxProxyConns = 256

// allow asks the gate once per host and command.
func (p *hostProxy) allow(hostport string) error {
	p.mu.Lock()
	err, done := p.decided[hostport]
	if !done && len(p.decided)+p.asking >= maxProxyHosts {
		p.over++
		done, err = true, fmt.Errorf("the command asked for more than %d hosts", maxProxyHosts)
	}
	if !done {
		p.asking++
	}
	p.mu.Unlock()
	if done {
		return err
	}
	err = p.gate(p.ctx, hostport)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asking--
	if _, again := p.decided[hostport]; !again {
		p.decided[hostport] = err
		if err != nil {
			p.refused = append(p.refused, hostport+" ("+err.Error()+")")
		} else {
			p.reached = append(p.reached, hostport)
		}
	}
	return p.decided[hostport]
}

// maxProxyHeader bounds a request head from the command.
const maxProxyHeader = 64 << 10

func (p *hostProxy) handle(c net.Conn) {
	defer c.Close()
	stop := context.AfterFunc(p.ctx, func() { c.Close() })
	defer stop()
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	tok := make([]byte, len(p.token)+1)
	if _, err := io.ReadFull(c, tok); err != nil || subtle.ConstantTimeCompare(tok, []byte(p.token+"\n")) != 1 {
		return // not this command's forwarder
	}
	head := &headLimit{r: c, left: maxProxyHeader}
	br := bufio.NewReader(head)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	head.left = -1 // the body and the tunnel are not bounded
	_ = c.SetReadDeadline(time.Time{})
	hostport, err := proxyTarget(req)
	if err != nil {
		refuse(c, http.StatusBadRequest, err.Error())
		return
	}
	if err := p.allow(hostport); err != nil {
		refuse(c, http.StatusForbidden, "myclaw did not allow "+hostport+": "+err.Error())
		return
	}
	up, status, err := p.dial(hostport)
	if err != nil {
		refuse(c, status, err.Error())
		return
	}
	defer up.Close()
	stopUp := context.AfterFunc(p.ctx, func() { up.Close() })
	defer stopUp()
	if req.Method == http.MethodConnect {
		if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
			return
		}
	} else {
		// Plain HTTP: pass the request on in origin form; one request per
		// connection keeps each one gated.
		req.RequestURI = ""
		req.Header.Set("Connection", "close")
		req.Close = true
		if err := req.Write(up); err != nil {
			return
		}
	}
	if req.Method != http.MethodConnect {
		_, _ = io.Copy(c, up)
		return
	}
	// What the reader buffered past the head belongs to the tunnel.
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, io.MultiReader(br, c)); closeWrite(up); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); closeWrite(c); done <- struct{}{} }()
	<-done
	<-done
}

// dial connects to hostport (canonical), and says which status a failure
// deserves. A name other than localhost never leads to this machine or a
// link-local address (a cloud's metadata service): the user allowed the
// name, not what it may resolve to later; such an address is reached
// only by being allowed as itself.
func (p *hostProxy) dial(hostport string) (net.Conn, int, error) {
	var d net.Dialer
	host, port, _ := net.SplitHostPort(hostport)
	if _, err := netip.ParseAddr(host); err == nil || host == "localhost" {
		up, err := d.DialContext(p.ctx, "tcp", hostport)
		if err != nil {
			return nil, http.StatusBadGateway, fmt.Errorf("myclaw could not reach %s: %w", hostport, err)
		}
		return up, 0, nil
	}
	addrs, err := p.lookup(p.ctx, host)
	if err != nil || len(addrs) == 0 {
		return nil, http.StatusBadGateway, fmt.Errorf("myclaw could not resolve %s: %w", host, err)
	}
	for _, a := range addrs {
		a = a.Unmap()
		if a.IsLoopback() || a.IsUnspecified() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() {
			return nil, http.StatusForbidden, fmt.Errorf("myclaw did not allow %s: the name resolves to %s, on this machine or its link; allow %s itself", hostport, a, net.JoinHostPort(a.String(), port))
		}
	}
	var last error
	for _, a := range addrs {
		up, err := d.DialContext(p.ctx, "tcp", net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return up, 0, nil
		}
		last = err
	}
	return nil, http.StatusBadGateway, fmt.Errorf("myclaw could not reach %s: %w", hostport, last)
}

// proxyTarget is the host:port a proxy request is for, in the one
// spelling the gate decides and the proxy dials.
func proxyTarget(req *http.Request) (string, error) {
	if req.Method == http.MethodConnect {
		host, port, err := net.SplitHostPort(req.RequestURI)
		if err != nil {
			return "", fmt.Errorf("CONNECT needs host:port, not %q", req.RequestURI)
		}
		return canonicalHostPort(host, port)
	}
	u := req.URL
	if u == nil || u.Host == "" || u.Scheme != "http" {
		return "", errors.New("myclaw's proxy takes CONNECT and http:// requests with an absolute URL")
	}
	if u.User != nil {
		return "", errors.New("myclaw's proxy takes no user name or password in the host")
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	return canonicalHostPort(u.Hostname(), port)
}

// canonicalHostPort spells host and port the one way a rule names them:
// a name lowercased without its trailing dot, an address as Go prints it
// (an IPv4-mapped one as IPv4), the port in decimal. Anything else the
// dialer or the system's resolver might still take somewhere (a name
// that reads as an address, like 127.1 or 0x7f000001, the unspecified
// address, which is this machine, a zone, userinfo) is refused, so that
// no second spelling of a host walks around a rule about it.
func canonicalHostPort(host, port string) (string, error) {
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil || n == 0 {
		return "", fmt.Errorf("the port must be a number from 1 to 65535, not %q", port)
	}
	port = strconv.FormatUint(n, 10)
	if a, err := netip.ParseAddr(host); err == nil {
		a = a.Unmap()
		if a.Zone() != "" || a.IsUnspecified() {
			return "", fmt.Errorf("myclaw's proxy does not take the host %q", host)
		}
		return net.JoinHostPort(a.String(), port), nil
	}
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if !hostName(name) {
		return "", fmt.Errorf("myclaw's proxy takes a host name or an IP address, not %q", host)
	}
	return net.JoinHostPort(name, port), nil
}

// hostName reports whether name is a DNS name (letters, digits, '-' and
// '_', labels of 1 to 63, 253 in all) whose last label is not a number,
// which a resolver could read as part of an address.
func hostName(name string) bool {
	if name == "" || len(name) > 253 {
		return false
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return false
		}
		for _, r := range l {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	last := labels[len(labels)-1]
	if strings.HasPrefix(last, "0x") || strings.Trim(last, "0123456789") == "" {
		return false
	}
	return true
}

// headLimit fails a read past left bytes; left < 0 is no bound.
type headLimit struct {
	r    io.Reader
	left int
}

func (h *headLimit) Read(b []byte) (int, error) {
	if h.left < 0 {
		return h.r.Read(b)
	}
	if h.left == 0 {
		return 0, errors.New("request head too large")
	}
	if len(b) > h.left {
		b = b[:h.left]
	}
	n, err := h.r.Read(b)
	h.left -= n
	return n, err
}

func refuse(c net.Conn, code int, msg string) {
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s\n", code, http.StatusText(code), len(msg)+1, msg)
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}

// proxyNote says, for the result, which hosts the command reached and
// which myclaw refused.
func proxyNote(reached, refused []string) string {
	var parts []string
	if len(reached) > 0 {
		parts = append(parts, "reached through myclaw's proxy: "+strings.Join(reached, ", "))
	}
	if len(refused) > 0 {
		parts = append(parts, "permission_denied: myclaw's proxy refused "+strings.Join(refused, ", ")+"; the command had no other way out. Do not retry: tell the user which host the command needs, and let them allow it")
	}
	return strings.Join(parts, ". ")
}
