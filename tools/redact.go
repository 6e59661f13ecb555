package tools

import (
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// redactMinLen is the shortest value redacted: shorter ones ("1", "dev")
// would blank ordinary words.
const redactMinLen = 8

// redactMark replaces a secret value.
const redactMark = "[redacted]"

// redactor holds the secret values this program knows (API keys read at
// start, MCP env values); they are process-wide, like the environment they
// came from.
var redactor atomic.Pointer[strings.Replacer]

// AddSecrets registers values to redact from everything Redact sees: tool
// results and errors as the model and the transcript get them, and the
// log. Values shorter than 8 bytes are ignored. It may be called more
// than once; values accumulate.
func AddSecrets(values ...string) {
	secrets.mu.Lock()
	defer secrets.mu.Unlock()
	for _, v := range values {
		if len(v) >= redactMinLen && !slices.Contains(secrets.list, v) {
			secrets.list = append(secrets.list, v)
		}
	}
	// Longest first, so a secret that contains another goes whole.
	slices.SortFunc(secrets.list, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(secrets.list))
	for _, v := range secrets.list {
		pairs = append(pairs, v, redactMark)
	}
	redactor.Store(strings.NewReplacer(pairs...))
}

var secrets struct {
	mu   sync.Mutex
	list []string
}

// Redact replaces every registered secret value in s with "[redacted]".
func Redact(s string) string {
	r := redactor.Load()
	if r == nil || s == "" {
		return s
	}
	return r.Replace(s)
}

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
