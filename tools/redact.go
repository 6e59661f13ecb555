package tools

import (
	"io"

	"myclaw/tools/secret"
)

// Redact replaces every credential value myclaw holds (the registry of
// package secret: keys, MCP header and env values, OAuth tokens) with
// "[redacted]". Tool results and errors pass through it in Call and the
// envelope, before the model, the screen or the transcript get them.
func Redact(s string) string { return secret.Redact(s) }

// RedactWriter writes through to w with the secrets redacted, one Write
// at a time (a secret split across two writes is missed; log lines are
// written whole).
func RedactWriter(w io.Writer) io.Writer { return redactWriter{w} }

type redactWriter struct{ w io.Writer }

func (r redactWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, Redact(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
