package tools

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"myclaw/tools/secret"
)

func TestRedactSecretsInResultsErrorsAndLogs(t *testing.T) {
	const key = "sk-redact-test-0123456789"
	secret.Add(key, "short")
	meta := Meta{Name: "shell_run", ReturnsUntrusted: true}
	env := Envelope(meta, Result{Output: map[string]string{"note": "key " + key}, Body: "OPENAI_API_KEY=" + key + "\n", Source: "shell:env"}, nil, time.Unix(0, 0))
	if strings.Contains(env, key) || !strings.Contains(env, "[redacted]") {
		t.Errorf("envelope %q; want the key redacted", env)
	}
	env = Envelope(meta, Result{}, errors.New("auth failed with "+key), time.Unix(0, 0))
	if strings.Contains(env, key) {
		t.Errorf("error envelope %q; want the key redacted", env)
	}
	var log bytes.Buffer
	w := RedactWriter(&log)
	if _, err := w.Write([]byte("request with " + key + "\n")); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), key) || !strings.Contains(log.String(), "[redacted]") {
		t.Errorf("log %q; want the key redacted", log.String())
	}
	if got := Redact("a short word"); got != "a short word" {
		t.Errorf("Redact = %q; short values must not be redacted", got)
	}
}
