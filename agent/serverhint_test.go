package agent

import (
	"strings"
	"testing"

	"myclaw/agent/chat"
)

func TestNoServerHintNamesTheLikelyFix(t *testing.T) {
	a := &Agent{opts: Options{Client: chat.NewClient(chat.ClientConfig{BaseURL: "http://localhost:11434/v1"}), BaseURLOrigin: "the default (a local Ollama)"}}
	if h := a.noServerHint(); !strings.Contains(h, "ollama serve") || strings.Contains(h, "OPENAI_BASE_URL") {
		t.Errorf("default hint %q; want Ollama's steps without OPENAI_BASE_URL", h)
	}
	a.opts.BaseURLOrigin = "OPENAI_BASE_URL"
	if h := a.noServerHint(); !strings.Contains(h, "OPENAI_BASE_URL") {
		t.Errorf("hint %q; want OPENAI_BASE_URL named when it set the URL", h)
	}
	a.opts = Options{Client: chat.NewClient(chat.ClientConfig{BaseURL: "http://gpu:8000/v1"}), BaseURLOrigin: "base_url of [providers.vllm] in c.toml"}
	if h := a.noServerHint(); !strings.Contains(h, "[providers.vllm]") || strings.Contains(h, "OPENAI_BASE_URL") {
		t.Errorf("hint %q; want the config setting named", h)
	}
}
