package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"myclaw/tools"
)

// run is one life of a server, from start to failure or stop. A restart is a
// new run, so a tool or goroutine of an old run can never touch the new one.
type run struct {
	m      *Manager
	s      *server
	ctx    context.Context // cancelled when the run ends
	cancel context.CancelFunc
	done   chan struct{} // closed when main has returned and the server is gone

	// Guarded by m.mu.
	sess   *sdk.ClientSession
	over   bool   // the run has ended; later failures are ignored
	reason string // why it ended, when it failed
	names  []string
	// prompts are the server's prompts, offered as /SERVER:NAME.
	prompts []Prompt

	syncMu sync.Mutex // serialises refreshes of the tool list

	progress progressWatch
}

// main starts the server, registers its tools and watches the session until
// it ends, then makes sure the server is gone.
func (r *run) main() {
	defer r.m.wg.Done()
	defer close(r.done)
	cfg := r.s.cfg
	if r.s.cfgErr != nil {
		r.end(StateFailed, r.s.cfgErr.Error())
		return
	}

	timeout := cfg.Timeout
	if a := r.s.auth; a != nil && a.beginRun() {
		// This run logs in: the start-up waits for a person in a browser.
		// Later 401s of the session only refresh.
		timeout = max(timeout, loginTimeout)
		defer a.endLogin() // when the start-up fails
	}
	startCtx, cancelStart := context.WithTimeoutCause(r.ctx, timeout, errStartTimeout)
	defer cancelStart()
	transport, err := r.m.dial(cfg)
	if err != nil {
		r.end(StateFailed, "start: "+err.Error())
		return
	}
	stdio, _ := transport.(*stdioTransport)
	var sessOpts *sdk.ClientSessionOptions
	if v := r.m.protocolVersion; v != "" {
		sessOpts = &sdk.ClientSessionOptions{ProtocolVersion: v}
	}
	sess, err := r.newClient().Connect(startCtx, transport, sessOpts)
	if err != nil {
		if stdio != nil && stdio.proc != nil {
			stdio.proc.stop()
		}
		r.endStart(startCtx, "initialize", err, stdio)
		return
	}
	r.m.mu.Lock()
	r.sess = sess
	r.m.mu.Unlock()
	r.setLogLevel(startCtx, sess)

	listed, err := listTools(startCtx, sess)
	if err != nil {
		r.endStart(startCtx, "list tools", err, stdio)
		r.closeSession(sess, stdio)
		return
	}
	if a := r.s.auth; a != nil {
		a.endLogin()
	}
	prompts := r.listPrompts(startCtx, sess)
	if !r.install(listed, prompts) {
		r.closeSession(sess, stdio)
		return
	}

	waitc := make(chan error, 1)
	go func() { waitc <- sess.Wait() }()
	select {
	case err := <-waitc:
		// The process is gone or going: let it finish so that its exit
		// status and last words explain the failure.
		if stdio != nil && stdio.proc != nil {
			stdio.proc.stop()
		}
		reason := deathReason(err, stdio)
		if a := r.s.auth; a != nil && a.needsLogin() {
			reason = a.loginReason()
		}
		r.end(StateFailed, reason)
		r.closeSession(sess, stdio)
	case <-r.ctx.Done():
		r.end(StateStopped, "")
		r.closeSession(sess, stdio)
		<-waitc //nolint:errcheck // the run has ended; how its session ended adds nothing
	}
}

// closeSession ends the session; in-flight calls are cancelled through the
// run's ctx first so that the close does not wait for them.
func (r *run) closeSession(sess *sdk.ClientSession, stdio *stdioTransport) {
	r.cancel()
	_ = sess.Close()
	if stdio != nil && stdio.proc != nil {
		stdio.proc.stop()
	}
}

// endStart ends a run whose start-up failed, saying why.
func (r *run) endStart(startCtx context.Context, step string, err error, stdio *stdioTransport) {
	switch {
	case r.s.auth != nil && r.s.auth.needsLogin():
		r.end(StateFailed, r.s.auth.loginReason())
	case errors.Is(context.Cause(startCtx), errStartTimeout):
		msg := fmt.Sprintf("no answer within %s at start-up (%s)", r.s.cfg.Timeout, step)
		r.end(StateFailed, withStderr(msg, stdio))
	case r.ctx.Err() != nil:
		r.end(StateStopped, "")
	case stdio != nil && stdio.proc == nil:
		r.end(StateFailed, fmt.Sprintf("cannot run %s: %v", r.s.cfg.Command, err))
	default:
		r.end(StateFailed, withStderr(step+": "+err.Error(), stdio))
	}
}

// deathReason explains a session that ended without being closed by us.
func deathReason(err error, stdio *stdioTransport) string {
	msg := "the server closed the connection"
	if stdio != nil && stdio.proc != nil {
		if st := stdio.proc.exitStatus(); st != "" {
			msg = "the server exited (" + st + ")"
		}
	} else if err != nil {
		msg = "connection lost: " + err.Error()
	}
	return withStderr(msg, stdio)
}

func withStderr(msg string, stdio *stdioTransport) string {
	if stdio == nil || stdio.proc == nil {
		return msg
	}
	if tail := stdio.proc.lastStderrLines(3); tail != "" {
		msg += "; stderr: " + tools.Clip(tail, 600)
	}
	return msg
}

// end finishes the run unless it already ended, withdrawing its tools.
func (r *run) end(st State, reason string) {
	r.m.mu.Lock()
	ended := r.endLocked(st, reason)
	r.m.mu.Unlock()
	if ended {
		r.cancel()
		if st == StateFailed {
			r.m.logf("mcp: server %s failed: %s", r.s.cfg.Name, reason)
		}
	}
}

// endLocked is end with m.mu held; the caller cancels r.ctx after unlocking
// (cancelling runs AfterFuncs of calls in flight, which must not need m.mu).
func (r *run) endLocked(st State, reason string) bool {
	if r.over {
		return false
	}
	r.over = true
	r.reason = reason
	for _, n := range r.names {
		r.m.reg.Unregister(n)
	}
	r.names = nil
	r.prompts = nil
	s := r.s
	if s.cur == r {
		lastErr := s.lastErr
		if st == StateFailed {
			lastErr = reason
		}
		s.setLocked(st, lastErr)
		r.m.events.push(s.statusLocked())
	}
	return true
}

// install registers the listed tools and marks the server running; it
// reports false if the run ended meanwhile.
func (r *run) install(listed []*sdk.Tool, prompts []Prompt) bool {
	r.m.mu.Lock()
	if r.over {
		r.m.mu.Unlock()
		return false
	}
	r.prompts = prompts
	skipped, changed, notices := r.registerLocked(listed)
	r.s.setLocked(StateRunning, "")
	r.m.events.push(r.s.statusLocked())
	n := len(r.names)
	metas := r.listedLocked()
	r.m.mu.Unlock()
	r.m.saveSeen(metas)
	r.logSkipped(skipped, changed, notices)
	r.m.logf("mcp: server %s running with %d tools (%d skipped)", r.s.cfg.Name, n, len(skipped))
	return true
}

// logSkipped logs the tools left out and shows notices (once a tool, see
// registerLocked); it is called without m.mu, as logf and Notify are the
// caller's code.
func (r *run) logSkipped(skipped, changed, notices []string) {
	for _, reason := range skipped {
		r.m.logf("mcp: server %s: skipping tool %s", r.s.cfg.Name, reason)
	}
	if notify := r.m.opts.Notify; notify != nil {
		for _, n := range notices {
			notify(r.s.cfg.Name, n)
		}
	}
	for _, line := range changed {
		r.m.logf("%s", line)
		if notify := r.m.opts.Notify; notify != nil {
			notify(r.s.cfg.Name, strings.TrimPrefix(line, "mcp: ")+" (grants and saved rules for its old definition no longer cover it; a hand-written rule without a digest still does)")
		}
	}
}

// listedLocked returns the Meta of the run's server tools (not the
// resource tools myclaw adds). Called with m.mu held.
func (r *run) listedLocked() []tools.Meta {
	var out []tools.Meta
	for _, name := range r.names {
		if m, ok := r.s.listed[name]; ok && m.Definition != "" {
			out = append(out, m)
		}
	}
	return out
}

// Bounds of what a server's tools add to every request: each tool's input
// schema and description go to the model with every request, so a tool
// with 20,000 fields would make each one megabytes long.
const (
	maxToolCatalogBytes   = 32 << 10
	maxServerCatalogBytes = 256 << 10
)

// catalogCost is what t adds to every request: its input schema and
// description, serialized.
func catalogCost(t *remoteTool) int { return len(t.meta.Schema) + len(t.meta.Description) }

// oversized says why a tool that adds cost bytes to every request, after
// tools of its server that add total, is hidden from the model, or "".
func oversized(cost, total int) string {
	switch {
	case cost > maxToolCatalogBytes:
		return fmt.Sprintf("hidden from the model: its input schema and description take %s of every request, over the %s one tool may take",
			tools.HumanSize(int64(cost)), tools.HumanSize(maxToolCatalogBytes))
	case total+cost > maxServerCatalogBytes:
		return fmt.Sprintf("hidden from the model: it would bring the server's tools to %s of every request, over the %s one server may take",
			tools.HumanSize(int64(total+cost)), tools.HumanSize(maxServerCatalogBytes))
	}
	return ""
}

// registerLocked replaces the run's tools in the registry with listed and
// returns the reasons of the tools it skipped, log lines for the tools
// whose definition changed, and notices for tools newly hidden for their
// size.
func (r *run) registerLocked(listed []*sdk.Tool) (skipped, changed, notices []string) {
	// Tools listed again are swapped in place, so a call looking one up
	// while the list is refreshed never finds it missing.
	old := r.names
	stale := map[string]bool{}
	for _, n := range r.names {
		stale[n] = true
	}
	r.names = nil
	cfg := r.s.cfg
	displays := displayNames(cfg.Name, listed)
	if r.s.listed == nil {
		r.s.listed = map[string]tools.Meta{}
	}
	if r.s.warned == nil {
		r.s.warned = map[string]bool{}
	}
	r.s.hidden = nil
	total := 0 // what the tools registered so far add to every request
	for i, lt := range listed {
		t, err := newRemoteTool(r, lt, displays[i])
		if err == nil {
			if why := oversized(catalogCost(t), total); why != "" {
				r.s.hidden = append(r.s.hidden, HiddenTool{Name: displays[i], Why: why})
				skipped = append(skipped, fmt.Sprintf("%q: %s", lt.Name, why))
				if !r.s.warned[displays[i]] {
					r.s.warned[displays[i]] = true
					notices = append(notices, fmt.Sprintf("MCP server %s: the tool %s is %s (/mcp %s lists what was left out).", cfg.Name, displays[i], why, cfg.Name))
				}
				continue
			}
			total += catalogCost(t)
		}
		if err == nil {
			if old, ok := r.s.listed[displays[i]]; ok && old.Definition != t.meta.Definition {
				t.meta.Changed = "since it was first listed: " + describeChange(old, t.meta)
				changed = append(changed, fmt.Sprintf("mcp: server %s changed tool %s %s", cfg.Name, displays[i], t.meta.Changed))
			} else if ok {
				t.meta.Changed = old.Changed
			} else if prev, seen := r.m.lastSeenLocked()[displays[i]]; seen && prev.Definition != t.meta.Definition {
				t.meta.Changed = "since myclaw last ran in this workspace: " + describeChange(prev.meta(), t.meta)
				changed = append(changed, fmt.Sprintf("mcp: server %s changed tool %s %s", cfg.Name, displays[i], t.meta.Changed))
			}
			r.s.listed[displays[i]] = t.meta
			if stale[displays[i]] {
				delete(stale, displays[i])
				err = r.m.reg.Replace(t)
			} else {
				err = r.m.reg.Register(t)
			}
		}
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%q: %s", lt.Name, tools.FirstAndLastLines(err.Error(), 400)))
			continue
		}
		r.names = append(r.names, displays[i])
	}
	skipped = r.registerResourceToolsLocked(old, skipped)
	for n := range stale {
		if !slices.Contains(r.names, n) {
			r.m.reg.Unregister(n)
		}
	}
	r.s.skipped = skipped
	return skipped, changed, notices
}

// displayNames maps listed tools to display names. Names that are valid as
// they are keep them; sanitised ones come second, so that when "a b" and
// "a_b" meet, the clean "a_b" keeps its name and the other gets a hash.
func displayNames(serverName string, listed []*sdk.Tool) []string {
	out := make([]string, len(listed))
	taken := map[string]bool{}
	for pass := 0; pass < 2; pass++ {
		for i, lt := range listed {
			clean := displayName(serverName, lt.Name, nil) == serverName+"/"+lt.Name
			if clean != (pass == 0) {
				continue
			}
			out[i] = displayName(serverName, lt.Name, taken)
			taken[out[i]] = true
		}
	}
	return out
}

// toolsChanged handles notifications/tools/list_changed: the tool list is
// fetched again and the catalog follows it.
func (r *run) toolsChanged(_ context.Context, req *sdk.ToolListChangedRequest) {
	r.inBackground(func() {
		r.syncMu.Lock()
		defer r.syncMu.Unlock()
		ctx, cancel := context.WithTimeout(r.ctx, r.s.cfg.Timeout)
		defer cancel()
		listed, err := listTools(ctx, req.Session)
		if err != nil {
			if r.ctx.Err() == nil {
				r.m.logf("mcp: server %s: refreshing its tools: %v", r.s.cfg.Name, err)
			}
			return
		}
		r.m.mu.Lock()
		if r.over {
			r.m.mu.Unlock()
			return
		}
		skipped, changed, notices := r.registerLocked(listed)
		r.m.events.push(r.s.statusLocked())
		metas := r.listedLocked()
		r.m.mu.Unlock()
		r.m.saveSeen(metas)
		r.logSkipped(skipped, changed, notices)
	})
}

// inBackground runs fn in a goroutine of its own unless the run is over;
// Close waits for it.
func (r *run) inBackground(fn func()) {
	r.m.mu.Lock()
	if r.over {
		r.m.mu.Unlock()
		return
	}
	// main holds a WaitGroup count while the session lives, so this Add
	// cannot race with Close's Wait reaching zero.
	r.m.wg.Add(1)
	r.m.mu.Unlock()
	go func() {
		defer r.m.wg.Done()
		fn()
	}()
}

// session returns the live session, or the error a call gets when the
// server is down.
func (r *run) session() (*sdk.ClientSession, error) {
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	if r.over || r.sess == nil {
		return nil, r.downErrorLocked()
	}
	return r.sess, nil
}

func (r *run) downError() *tools.Error {
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	return r.downErrorLocked()
}

func (r *run) downErrorLocked() *tools.Error {
	name := r.s.cfg.Name
	e := (&tools.Error{
		Kind:    tools.KindNetworkError,
		Message: fmt.Sprintf("the MCP server %s is down", name),
		Hint:    fmt.Sprintf("Its tools are withdrawn. Tell the user; they can restart it with /mcp restart %s. Meanwhile, use other tools or ask the user how to proceed; do not retry this call.", name),
	}).With("server", name)
	switch {
	case r.reason == "":
		e.Message += ": it was stopped"
	case r.s.cfg.Trust:
		e.Message += ": " + r.reason
	default:
		// The reason may end with the server's stderr: fenced like its output.
		e.Quote("mcp:"+name+" error", r.reason)
	}
	return e
}

// listTools fetches every page of the server's tool list.
func listTools(ctx context.Context, sess *sdk.ClientSession) ([]*sdk.Tool, error) {
	var out []*sdk.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// schemaOf returns a tool's input schema as JSON; a server that sends none
// gets the empty object schema.
func schemaOf(t *sdk.Tool) (json.RawMessage, error) {
	if t.InputSchema == nil {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	b, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	return b, nil
}

// replaceOwnLocked registers t, replacing a tool of the same name only if
// it was this run's own (never another source's tool that took the name).
func (r *run) replaceOwnLocked(old []string, t tools.Tool) error {
	if slices.Contains(old, t.Meta().Name) {
		return r.m.reg.Replace(t)
	}
	return r.m.reg.Register(t)
}
