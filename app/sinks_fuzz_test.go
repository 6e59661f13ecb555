package app

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/history"
	"myclaw/tools"
	"myclaw/tools/termtext"
	"myclaw/ui"
)

// FuzzSinks feeds one hostile string through the terminal-text sanitiser
// and through every sink that prints for a person or a script: the
// headless text printer (answer, tool lines, errors, notices, all through
// the shell writer), every string of --output json, `myclaw history`,
// `history --approvals`, error envelopes, result fields, the fence and a
// custom command's front matter. Nothing that comes out holds a control
// character, and what the sanitiser promises holds: Strip is idempotent, a
// Stream gives what one call gives, Editable round trips byte for byte.
func FuzzSinks(f *testing.F) {
	for _, s := range []string{
		"plain", "rm -rf ./build \x1b] ./victim \x07", "./bu\u200bild", "\x1b]0;title\x07file.txt",
		"\x1b[31mred\x1b[0m \u009b2J \u202eevil", "\U000E0069\U000E0067 <|im_start|> [INST]", "\xff\xfe\r\n\x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		inert := func(where, out string) {
			t.Helper()
			if !termtext.IsInert(out) {
				t.Fatalf("%s lets a control character through for %q: %q", where, s, out)
			}
		}
		// The sanitiser itself.
		for name, out := range map[string]string{
			"Strip": termtext.Strip(s), "Screen": termtext.Screen(s), "Visible": termtext.Visible(s),
			"OneLine": termtext.OneLine(s, 40), "Editable": termtext.Editable(s),
		} {
			inert(name, out)
		}
		if st := termtext.Strip(s); termtext.Strip(st) != st {
			t.Fatalf("Strip is not idempotent on %q", s)
		}
		if termtext.ParseEditable(termtext.Editable(s)) != s {
			t.Fatalf("Editable does not round trip %q", s)
		}
		if !strings.Contains(s, "\U000E0000") || len(s) < 200 { // long tag runs may be cut by the hold-back bound
			half := len(s) / 2
			var st termtext.Stream
			if got := st.Write(s[:half]) + st.Write(s[half:]) + st.Flush(); got != termtext.Screen(s) {
				t.Fatalf("Stream gives %q; one call gives %q", got, termtext.Screen(s))
			}
		}

		call := agent.Call{ID: s, Tool: s, Args: json.RawMessage(mustMarshal(map[string]string{"path": s}))}
		events := []agent.Event{
			agent.TextDelta{Text: s}, agent.ReasoningDelta{Text: s},
			agent.ToolResultEvent{Call: call, Status: agent.StatusError, Kind: "unknown", Message: s, Hint: s},
			agent.NoticeEvent{Text: s}, agent.ErrorEvent{Message: s, Hint: s},
		}

		// Headless text, as run() wires it: stdout and stderr through the writer.
		var out, errOut bytes.Buffer
		ow, ew := termtext.NewWriter(&out), termtext.NewWriter(&errOut)
		p := newPrinter(false, ow, ew)
		for _, e := range events {
			p.print(e)
		}
		p.finish()
		ow.Flush()
		ew.Flush()
		inert("headless stdout", out.String())
		inert("headless stderr", errOut.String())

		// --output json: every string a script decodes.
		for _, e := range events {
			var v any
			if err := json.Unmarshal(inertJSON(jsonEvent(e)), &v); err != nil {
				t.Fatalf("json event does not decode: %v", err)
			}
			walkStrings(v, func(str string) { inert("--output json", str) })
		}

		// myclaw history and history --approvals.
		now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		inert("history", formatHistory([]history.Labelled{{Session: s, Entry: history.Entry{Seq: 1, Tool: s, Summary: s, Time: now, State: history.StateApplied}}}))
		inert("approvals", approval.FormatAudit([]approval.AuditEntry{{Time: now, Tool: s, Summary: s, Decision: s, By: s, Reason: s}}, true))

		// Errors that quote a path, in the message and in details, and a
		// result that names one: what the model decodes shows every escape
		// as text, as the approval pane shows a name.
		shown := func(where, out string) {
			t.Helper()
			inert(where, out)
			if termtext.HasHidden(out) {
				t.Fatalf("%s hides a character for %q: %q", where, s, out)
			}
		}
		shown("error envelope", decodedStrings(t, tools.ErrorEnvelope((&tools.Error{Kind: tools.KindNotFound, Message: "no file " + s, Hint: s}).With("path", s).With(s, []string{s}))))
		line, _, _ := strings.Cut(tools.Envelope(tools.Meta{Name: "fs_write"}, tools.Result{Output: map[string]any{"path": s, s: 1}}, nil, now), "\n")
		shown("result fields", decodedStrings(t, line))
		inert("fence", tools.Fence(s, now, s))

		// A custom command's front matter, drawn in /help and completion.
		if !strings.ContainsAny(s, "\r\n") { // one front-matter line
			dir := t.TempDir()
			src := "---\ndescription: " + s + "\nargument-hint: " + s + "\n---\nprompt"
			if err := os.WriteFile(filepath.Join(dir, "c.md"), []byte(src), 0o600); err != nil {
				t.Fatal(err)
			}
			cmds, _ := ui.LoadCommands(ui.CommandDir{Path: dir, Scope: "user", Trusted: true})
			for _, c := range cmds {
				shown("command description", c.Desc)
				shown("command argument-hint", c.Hint)
			}
		}
	})
}

func mustMarshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func walkStrings(v any, fn func(string)) {
	switch v := v.(type) {
	case string:
		fn(v)
	case []any:
		for _, x := range v {
			walkStrings(x, fn)
		}
	case map[string]any:
		for k, x := range v {
			fn(k)
			walkStrings(x, fn)
		}
	}
}

// decodedStrings joins every string of a JSON document, as decoded.
func decodedStrings(t *testing.T, doc string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("%q does not decode: %v", doc, err)
	}
	var b strings.Builder
	walkStrings(v, func(s string) { b.WriteString(s) })
	return b.String()
}
