package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSampling(t *testing.T) {
	for _, v := range protocolVersions {
		t.Run("version "+v, func(t *testing.T) { testSampling(t, v) })
	}
}

func testSampling(t *testing.T, v string) {
	var mu sync.Mutex
	var asked []SamplingRequest
	approve := true
	opts := Options{Sample: func(ctx context.Context, r SamplingRequest) (SamplingAnswer, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, r)
		if !approve {
			return SamplingAnswer{}, ErrSamplingDeclined
		}
		return SamplingAnswer{Text: "It renames a field.", Model: "test-model"}, nil
	}}
	_, reg := startFeatures(t, v, opts, ServerConfig{Name: "f", Command: "unused", Enabled: true, Sampling: true, Timeout: 30 * time.Second})

	res, err := call(t, reg, "f/caps", `{}`)
	if err != nil || !strings.Contains(res.Body, `"sampling":{}`) {
		t.Errorf("got capabilities %q, %v; want sampling declared for a server that opted in", res.Body, err)
	}
	res, err = call(t, reg, "f/sample", `{}`)
	if err != nil || !strings.Contains(res.Body, "It renames a field.") || !strings.Contains(res.Body, `"model":"test-model"`) {
		t.Fatalf("approved: got %q, %v; want the model's answer", res.Body, err)
	}
	mu.Lock()
	r := asked[0]
	if r.Server != "f" || r.System != "Be brief." || r.MaxTokens != maxSamplingTokens || len(r.Messages) != 1 || r.Messages[0].Role != "user" {
		t.Errorf("got request %+v; want the server's messages, the token bound capped", r)
	}
	if d := r.Describe(); !strings.Contains(d, "at most 8192 tokens") || !strings.Contains(d, "[system]\nBe brief.") || strings.ContainsRune(d, 0x1b) {
		t.Errorf("got description %q; want the bound, the messages, no escapes", d)
	}
	approve = false
	mu.Unlock()
	if res, err := call(t, reg, "f/sample", `{}`); err == nil || !strings.Contains(err.Error(), "declined") {
		t.Errorf("declined: got %q, %v; want the call to fail saying it was declined", res.Body, err)
	}
}

func TestSamplingOffByDefaultAndHeadless(t *testing.T) {
	called := false
	opts := Options{Sample: func(context.Context, SamplingRequest) (SamplingAnswer, error) {
		called = true
		return SamplingAnswer{Text: "no"}, nil
	}}
	// Not opted in: not declared, never asked.
	_, reg := startFeatures(t, "2025-11-25", opts, ServerConfig{Name: "f", Command: "unused", Enabled: true, Timeout: 30 * time.Second})
	res, err := call(t, reg, "f/caps", `{}`)
	var caps map[string]any
	if err != nil || json.Unmarshal([]byte(res.Body), &caps) != nil || caps["sampling"] != nil {
		t.Errorf("got capabilities %q, %v; want no sampling", res.Body, err)
	}
	if _, err := call(t, reg, "f/sample", `{}`); err == nil || called {
		t.Errorf("a server that did not opt in could sample (err %v, asked %v)", err, called)
	}
	// Opted in but headless (no Sample): declined.
	_, reg = startFeatures(t, "2025-11-25", Options{}, ServerConfig{Name: "g", Command: "unused", Enabled: true, Sampling: true, Timeout: 30 * time.Second})
	_, err = call(t, reg, "g/sample", `{}`)
	if err == nil || !strings.Contains(err.Error(), "declined") {
		t.Errorf("headless: got %v; want the request declined", err)
	}
}
