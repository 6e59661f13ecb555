package mcp

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"myclaw/internal/mcptest"
	"myclaw/tools"
)

// TestFreshLoginReplacesTheStoredOne: Options.Login (myclaw mcp login)
// logs in in the browser even with a stored login, and the new token
// replaces the old one only once obtained.
func TestFreshLoginReplacesTheStoredOne(t *testing.T) {
	f := mcptest.NewOAuth(t, testServer(t))
	state := t.TempDir()
	br := &browser{}
	cfg := ServerConfig{Name: "web", URL: f.RS.URL + "/mcp", Enabled: true, Timeout: 30 * time.Second}
	login := func() ServerStatus {
		m := newTestManager(t, tools.NewRegistry(), cfg)
		m.SetOptions(Options{StateDir: state, Interactive: true, Login: "web", Browse: br.open})
		m.Start(context.Background(), nil)
		defer m.Close()
		return waitStatus(t, m, "web", func(st ServerStatus) bool { return st.State != StateStarting })
	}
	if st := login(); st.State != StateRunning || st.Auth != AuthLoggedIn {
		t.Fatalf("first login: %+v", st)
	}
	file := LoginFile(state, "web")
	first, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if st := login(); st.State != StateRunning || st.Auth != AuthLoggedIn || br.count() != 2 {
		t.Fatalf("second login: %+v, browser opened %d times; want twice", st, br.count())
	}
	if second, _ := os.ReadFile(file); string(second) == string(first) {
		t.Error("the second login did not replace the stored token")
	}
	// A login given up on keeps the stored one.
	before, _ := os.ReadFile(file)
	m := newTestManager(t, tools.NewRegistry(), cfg)
	m.SetOptions(Options{StateDir: state, Interactive: true, Login: "web", Browse: func(string) error { return nil }})
	ctx, cancel := context.WithCancel(context.Background())
	m.Start(ctx, nil)
	cancel() // the person gives up
	waitStatus(t, m, "web", func(st ServerStatus) bool { return st.State != StateStarting })
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Error("a login given up on changed the stored token")
	}
	if had, err := ForgetLogin(state, "web"); !had || err != nil {
		t.Fatalf("ForgetLogin: %v %v", had, err)
	}
	if had, err := ForgetLogin(state, "web"); had || err != nil {
		t.Fatalf("ForgetLogin again: %v %v", had, err)
	}
	if _, err := ForgetLogin(state, "../x"); err == nil {
		t.Error("ForgetLogin took a name that is not a server's")
	}
}

// TestLoginTakesAPastedRedirect: no browser can be opened (over SSH); the
// address the browser elsewhere ended on, pasted, completes the login; a
// wrong one is reported and the wait goes on.
func TestLoginTakesAPastedRedirect(t *testing.T) {
	f := mcptest.NewOAuth(t, testServer(t))
	pasted := make(chan string)
	var mu sync.Mutex
	var notes []string
	urls := make(chan string, 1)
	m := newTestManager(t, tools.NewRegistry(), ServerConfig{Name: "web", URL: f.RS.URL + "/mcp", Enabled: true, Timeout: 30 * time.Second})
	m.SetOptions(Options{StateDir: t.TempDir(), Interactive: true, Login: "web", Redirects: pasted,
		Browse: func(u string) error { urls <- u; return os.ErrNotExist },
		Notify: func(_, text string) { mu.Lock(); notes = append(notes, text); mu.Unlock() },
	})
	m.Start(context.Background(), nil)
	u := <-urls
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	pasted <- "   "
	pasted <- "http://127.0.0.1:1/callback?code=x"
	pasted <- resp.Header.Get("Location")
	st := waitStatus(t, m, "web", func(st ServerStatus) bool { return st.State != StateStarting })
	if st.State != StateRunning || st.Auth != AuthLoggedIn {
		t.Fatalf("after the paste: %+v", st)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 2 || !strings.Contains(notes[0], "Could not open a browser") || !strings.Contains(notes[0], "paste that page's address") || !strings.Contains(notes[1], "not the address of this login's redirect") {
		t.Errorf("notices %q", notes)
	}
}

// TestOpenBrowserHonoursBROWSER: the first entry of $BROWSER that starts
// gets the URL, in place of %s or as its last argument.
func TestOpenBrowserHonoursBROWSER(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "opened")
	script := filepath.Join(dir, "browser")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"$@\" > "+out+".tmp && mv "+out+".tmp "+out+"\n"), 0o755)
	for _, tc := range []struct{ browser, want string }{
		{filepath.Join(dir, "missing") + ":" + script + " --new-window", "--new-window http://127.0.0.1/x?a=b"},
		{script + " --url=%s --go", "--url=http://127.0.0.1/x?a=b --go"},
	} {
		os.Remove(out)
		t.Setenv("BROWSER", tc.browser)
		if err := OpenBrowser("http://127.0.0.1/x?a=b"); err != nil {
			t.Fatal(err)
		}
		var got []byte
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if got, _ = os.ReadFile(out); len(got) > 0 {
				break
			}
		}
		if strings.TrimSpace(string(got)) != tc.want {
			t.Errorf("BROWSER=%q: the browser got %q; want %q", tc.browser, got, tc.want)
		}
	}
	t.Setenv("BROWSER", filepath.Join(dir, "missing"))
	if err := OpenBrowser("http://127.0.0.1/"); err == nil || !strings.Contains(err.Error(), "$BROWSER") {
		t.Errorf("a $BROWSER that cannot start: %v", err)
	}
	t.Setenv("BROWSER", "")
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	if err := OpenBrowser("http://127.0.0.1/"); err == nil && runtime.GOOS != "darwin" && runtime.GOOS != "windows" {
		t.Error("no display, no $BROWSER: want an error, not a text browser in the terminal")
	}
}
