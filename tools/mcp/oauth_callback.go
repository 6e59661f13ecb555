package mcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"myclaw/tools"
)

// callback is the loopback listener the authorization server redirects the
// browser to (RFC 8252 §7.3): http://127.0.0.1:PORT/callback. It takes one
// answer, then closes.
type callback struct {
	ln     net.Listener
	srv    *http.Server
	result chan callbackResult
	once   sync.Once
}

type callbackResult struct {
	res *auth.AuthorizationResult
	err error
}

func listenCallback(o *OAuthConfig) (*callback, error) {
	port := 0
	if o != nil {
		port = o.CallbackPort
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("listen for the login redirect on 127.0.0.1:%d: %w", port, err)
	}
	cb := &callback{ln: ln, result: make(chan callbackResult, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", cb.serve)
	cb.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = cb.srv.Serve(ln) }()
	return cb, nil
}

func (cb *callback) url() string { return "http://" + cb.ln.Addr().String() + "/callback" }

func (cb *callback) serve(w http.ResponseWriter, r *http.Request) {
	res, ok := answer(r.URL.Query())
	if !ok {
		http.Error(w, "no code in this redirect", http.StatusBadRequest)
		return
	}
	sent := cb.deliver(res)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	switch {
	case !sent:
		fmt.Fprint(w, "<!doctype html><p>This login was already answered. You can close this tab.</p>")
	case res.err != nil:
		fmt.Fprint(w, "<!doctype html><p>The login failed. You can close this tab and look at myclaw.</p>")
	default:
		fmt.Fprint(w, "<!doctype html><p>Logged in. You can close this tab and go back to myclaw.</p>")
	}
}

// answer reads a redirect's query: a code, or the server's refusal; ok is
// false when it holds neither.
func answer(q url.Values) (res callbackResult, ok bool) {
	switch {
	case q.Get("error") != "":
		msg := q.Get("error")
		if d := q.Get("error_description"); d != "" {
			msg += ": " + d
		}
		res.err = fmt.Errorf("the authorization server refused: %s", tools.Clip(tools.Neutralize(msg), 300))
	case q.Get("code") == "":
		return res, false
	default:
		res.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
	}
	return res, true
}

// deliver hands the first answer to wait; later ones are dropped.
func (cb *callback) deliver(res callbackResult) bool {
	sent := false
	cb.once.Do(func() { cb.result <- res; sent = true })
	return sent
}

// paste takes the address a browser on another machine ended on (it could
// not reach the loopback listener) as the redirect. The state it carries
// is checked by the flow, as for a redirect that arrives.
func (cb *callback) paste(s string) error {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Scheme != "http" || u.Host != cb.ln.Addr().String() || u.Path != "/callback" {
		return fmt.Errorf("that is not the address of this login's redirect (it starts with %s?)", cb.url())
	}
	res, ok := answer(u.Query())
	if !ok {
		return errors.New("that address holds no code: copy the whole address of the page the browser ended on")
	}
	cb.deliver(res)
	return nil
}

// wait returns the redirect's answer, or an error when ctx ends first.
// Addresses pasted meanwhile are tried as the redirect; a wrong one is
// reported to retry and the wait goes on.
func (cb *callback) wait(ctx context.Context, pasted <-chan string, retry func(string)) (*auth.AuthorizationResult, error) {
	for {
		select {
		case r := <-cb.result:
			return r.res, r.err
		case s, ok := <-pasted:
			if !ok {
				pasted = nil
				continue
			}
			if strings.TrimSpace(s) == "" {
				continue
			}
			if err := cb.paste(s); err != nil && retry != nil {
				retry(err.Error())
			}
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, errors.New("no answer from the browser in time")
			}
			return nil, ctx.Err()
		}
	}
}

func (cb *callback) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = cb.srv.Shutdown(ctx)
}

// OpenBrowser opens url in the user's browser, without waiting for it:
// the first program of $BROWSER that starts (a colon-separated list, each
// entry a command whose %s is the URL, or which gets it as its last
// argument), else the system's opener. Without a display (a session over
// SSH) there is nothing to open: the error says so and the caller shows the
// URL. The browser gets the scrubbed environment, like every child of
// myclaw.
func OpenBrowser(url string) error {
	if list := os.Getenv("BROWSER"); list != "" {
		return openWithBrowserVar(list, url)
	}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			// xdg-open would start a text browser in this very terminal.
			return errors.New("no graphical display here, and $BROWSER is not set")
		}
		cmd = exec.Command("xdg-open", url)
	}
	return startBrowser(cmd)
}

// openWithBrowserVar runs the first entry of $BROWSER that starts.
func openWithBrowserVar(list, url string) error {
	var errs []string
	for _, entry := range strings.Split(list, string(os.PathListSeparator)) {
		words := strings.Fields(entry)
		if len(words) == 0 {
			continue
		}
		subst := false
		for i, w := range words {
			if strings.Contains(w, "%s") {
				words[i], subst = strings.ReplaceAll(w, "%s", url), true
			}
		}
		if !subst {
			words = append(words, url)
		}
		err := startBrowser(exec.Command(words[0], words[1:]...))
		if err == nil {
			return nil
		}
		errs = append(errs, fmt.Sprintf("$BROWSER %s: %v", words[0], err))
	}
	if len(errs) == 0 {
		return errors.New("$BROWSER names no program")
	}
	return errors.New(strings.Join(errs, "; "))
}

func startBrowser(cmd *exec.Cmd) error {
	cmd.Env = childEnv(nil)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
