package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/tools/mcp"
	"myclaw/tools/termtext"
)

// runHeadless runs one task without a person: assistant text on stdout,
// activity on stderr (or one JSON event per line on stdout). Calls that
// would ask are denied.
func runHeadless(ctx context.Context, o options, secrets map[string]string, stdout, stderr io.Writer) error {
	a, err := newApp(o, secrets)
	if err != nil {
		return err
	}
	defer a.close()
	ag, err := a.buildAgent(true)
	if err != nil {
		return err
	}
	for _, n := range a.notices {
		fmt.Fprintln(stderr, "note:", n)
	}
	if err := ag.CheckServer(ctx); err != nil {
		return err
	}
	a.startMCP(ctx, func(s mcp.ServerStatus) {
		switch {
		case s.State == mcp.StateFailed && (s.Auth == mcp.AuthNeeded || s.Auth == mcp.AuthExpired):
			// No browser is ever opened headless.
			fmt.Fprintf(stderr, "note: MCP server %s is not logged in (%s); log in from the TUI: myclaw, then /mcp login %s\n", s.Name, s.Auth, s.Name)
		case s.State == mcp.StateFailed:
			fmt.Fprintf(stderr, "note: MCP server %s failed: %s\n", s.Name, s.LastError)
		}
	})
	// A headless task cannot wait for tools that show up later: give the
	// servers their start-up time first.
	a.waitMCP(ctx)
	p := newPrinter(o.output == "json", stdout, stderr)
	var done agent.DoneEvent
	err = ag.Run(ctx, o.prompt, func(e agent.Event) {
		if d, ok := e.(agent.DoneEvent); ok {
			done = d
		}
		p.print(e)
	}, approval.Headless{})
	p.finish()
	switch {
	case err != nil && errors.Is(err, context.Canceled):
		return err
	case err != nil:
		// The error event already said what happened.
		return errReported
	case done.Reason == agent.DoneLimit:
		return errReported
	}
	return nil
}

// printer writes a turn's events for scripts. The loop emits one event at
// a time, so it needs no lock of its own.
type printer struct {
	json     bool
	out, err io.Writer
	// midLine is set when the last text written to out did not end a line.
	midLine bool
	enc     *json.Encoder
	text    termtext.Stream // the answer, held where a sequence is cut
}

func newPrinter(asJSON bool, stdout, stderr io.Writer) *printer {
	p := &printer{json: asJSON, out: stdout, err: stderr}
	if asJSON {
		p.enc = json.NewEncoder(stdout)
		p.enc.SetEscapeHTML(false)
	}
	return p
}

func (p *printer) print(e agent.Event) {
	if p.json {
		_ = p.enc.Encode(json.RawMessage(inertJSON(jsonEvent(e))))
		return
	}
	if _, ok := e.(agent.TextDelta); !ok {
		p.writeText(p.text.Flush())
	}
	switch ev := e.(type) {
	case agent.TextDelta:
		p.writeText(p.text.Write(ev.Text))
	case agent.ReasoningDelta:
		// Reasoning is not part of the answer; scripts get it with --output json.
	case agent.ToolCallEvent:
		if ev.Phase == "started" {
			what := ev.Summary
			if what == "" {
				what = string(ev.Call.Args)
			}
			fmt.Fprintf(p.err, "→ %s: %s\n", oneLine(ev.Call.Tool, 0), oneLine(what, 160))
		}
	case agent.ToolResultEvent:
		switch {
		case ev.Failed() && ev.Status == agent.StatusOK:
			fmt.Fprintf(p.err, "✗ %s exit %d (%s)\n", oneLine(ev.Call.Tool, 0), *ev.ExitCode, ev.Duration.Round(time.Millisecond))
		case ev.Status == agent.StatusOK:
			fmt.Fprintf(p.err, "✓ %s (%s)\n", oneLine(ev.Call.Tool, 0), ev.Duration.Round(time.Millisecond))
		default:
			fmt.Fprintf(p.err, "✗ %s %s: %s\n", oneLine(ev.Call.Tool, 0), ev.Status, termtext.Visible(ev.Message))
		}
	case agent.RetryEvent:
		fmt.Fprintf(p.err, "retry %d/%d in %s: %s\n", ev.Attempt, ev.Max, ev.Wait.Round(100*time.Millisecond), ev.Reason)
	case agent.NoticeEvent:
		fmt.Fprintf(p.err, "note: %s\n", ev.Text)
	case agent.ErrorEvent:
		p.endLine()
		fmt.Fprintf(p.err, "error: %s\n", ev.Message)
		if ev.Hint != "" {
			fmt.Fprintf(p.err, "hint: %s\n", ev.Hint)
		}
	}
}

func (p *printer) finish() {
	if !p.json {
		p.writeText(p.text.Flush())
		p.endLine()
	}
}

func (p *printer) writeText(text string) {
	if text != "" {
		fmt.Fprint(p.out, text)
		p.midLine = !strings.HasSuffix(text, "\n")
	}
}

func (p *printer) endLine() {
	if p.midLine {
		fmt.Fprintln(p.out)
		p.midLine = false
	}
}

// jsonEvent renders an event as one JSON object with its type first.
func jsonEvent(e agent.Event) json.RawMessage {
	typ, _ := json.Marshal(e.Type())
	b, err := json.Marshal(e)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"marshal_error": err.Error()})
	}
	out := append([]byte(`{"type":`), typ...)
	if len(b) > 2 {
		out = append(out, ',')
	}
	return append(out, b[1:]...)
}

// oneLine is termtext.OneLine: one line, controls shown as escapes, cut to
// max characters.
func oneLine(s string, max int) string { return termtext.OneLine(s, max) }

// inertJSON rewrites every string of a JSON document through
// termtext.Visible, so that no string a script decodes holds a control
// character or an invisible one: `\u001b]0;x\u0007` becomes `\\e]0;x\\a`.
func inertJSON(doc []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(doc); i++ {
		if doc[i] != '"' {
			continue
		}
		end := i + 1
		for end < len(doc) && doc[end] != '"' {
			if doc[end] == '\\' {
				end++
			}
			end++
		}
		end++ // the closing quote
		var s string
		if end <= len(doc) && json.Unmarshal(doc[i:end], &s) == nil {
			if v := termtext.Visible(s); v != s {
				var b strings.Builder
				enc := json.NewEncoder(&b)
				enc.SetEscapeHTML(false)
				_ = enc.Encode(v)
				out = append(out, doc[last:i]...)
				out = append(out, strings.TrimSuffix(b.String(), "\n")...)
				last = end
			}
		}
		i = end - 1
	}
	if out == nil {
		return doc
	}
	return append(out, doc[last:]...)
}
