package agent

import (
	"strings"
	"sync"
	"testing"

	"myclaw/tools/secret"
)

// TestLiveOutputRedacts: a credential printed by a running command never
// reaches the screen's live output, even split across two writes.
func TestLiveOutputRedacts(t *testing.T) {
	const key = "live-output-key-5e3b7a"
	secret.Add(key)
	var mu sync.Mutex
	var shown strings.Builder
	o := newOutputStream("c1", func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		shown.WriteString(e.(ToolOutputEvent).Text)
	})
	o.write([]byte("LLM_AUTH=" + key[:9]))
	o.write([]byte(key[9:] + "\nnext line\n"))
	o.flush()
	o.close()
	mu.Lock()
	defer mu.Unlock()
	if strings.Contains(shown.String(), key) || strings.Contains(shown.String(), key[:9]) || !strings.Contains(shown.String(), "LLM_AUTH=[redacted]\nnext line\n") {
		t.Errorf("live output %q; want the key redacted and nothing of it shown", shown.String())
	}
}
