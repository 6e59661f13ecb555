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
	"myclaw/tools"
	"myclaw/tools/mcp"
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
		if s.State == mcp.StateFailed {
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
		_ = p.enc.Encode(jsonEvent(e))
		return
	}
	switch ev := e.(type) {
	case agent.TextDelta:
		text := tools.StripControls(ev.Text)
		if text != "" {
			fmt.Fprint(p.out, text)
			p.midLine = !strings.HasSuffix(text, "\n")
		}
	case agent.ReasoningDelta:
		// Reasoning is not part of the answer; scripts get it with --output json.
	case agent.ToolCallEvent:
		if ev.Phase == "started" {
			what := ev.Summary
			if what == "" {
				what = string(ev.Call.Args)
			}
			fmt.Fprintf(p.err, "→ %s: %s\n", ev.Call.Tool, tools.StripControls(oneLine(what, 160)))
		}
	case agent.ToolResultEvent:
		switch {
		case ev.Failed() && ev.Status == agent.StatusOK:
			fmt.Fprintf(p.err, "✗ %s exit %d (%s)\n", ev.Call.Tool, *ev.ExitCode, ev.Duration.Round(time.Millisecond))
		case ev.Status == agent.StatusOK:
			fmt.Fprintf(p.err, "✓ %s (%s)\n", ev.Call.Tool, ev.Duration.Round(time.Millisecond))
		default:
			fmt.Fprintf(p.err, "✗ %s %s: %s\n", ev.Call.Tool, ev.Status, tools.StripControls(ev.Message))
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
		p.endLine()
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

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
