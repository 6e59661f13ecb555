package mcp

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"myclaw/tools"
	"myclaw/tools/termtext"
)

// progressSeq numbers the progress tokens of calls, unique in the process.
var progressSeq atomic.Int64

// progressWatch routes a server's progress notifications to the calls
// that asked for them, by token.
type progressWatch struct {
	mu    sync.Mutex
	calls map[string]func(string)
}

// watch gives a call a progress token; its notifications go to fn until
// the returned stop is called. With fn nil the token is still sent (the
// server may use it) and its notifications are dropped.
func (w *progressWatch) watch(fn func(string)) (token string, stop func()) {
	token = "myclaw-" + strconv.FormatInt(progressSeq.Add(1), 10)
	if fn == nil {
		return token, func() {}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.calls == nil {
		w.calls = map[string]func(string){}
	}
	w.calls[token] = fn
	return token, func() {
		w.mu.Lock()
		delete(w.calls, token)
		w.mu.Unlock()
	}
}

// notify handles notifications/progress: a token of no running call (late,
// or made up) is ignored.
func (w *progressWatch) notify(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	p := req.Params
	if p == nil {
		return
	}
	token, ok := p.ProgressToken.(string)
	if !ok {
		return
	}
	w.mu.Lock()
	fn := w.calls[token]
	w.mu.Unlock()
	if fn != nil {
		fn(progressLine(p))
	}
}

// progressLine is a notification as one clean line: "3/10 (30%) · message".
func progressLine(p *sdk.ProgressNotificationParams) string {
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	line := num(p.Progress)
	if p.Total > 0 {
		line += "/" + num(p.Total)
		if pct := p.Progress / p.Total * 100; pct >= 0 && pct <= 100 {
			line += fmt.Sprintf(" (%.0f%%)", pct)
		}
	}
	if msg := tools.Clip(strings.Join(strings.Fields(termtext.Strip(tools.Neutralize(p.Message))), " "), 200); msg != "" {
		line += " · " + msg
	}
	return line
}
