package app

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"myclaw/agent"
)

// The result of `--output json` counts every request of the task, a
// compaction's too, and splits them by kind.
func TestHeadlessUsageCountsACompaction(t *testing.T) {
	var out, errOut bytes.Buffer
	p := newPrinter(true, &out, &errOut)
	p.print(agent.UsageEvent{Kind: agent.RequestTurn, PromptTokens: 3000, CompletionTokens: 20, TotalTokens: 3020, ContextWindow: 4000})
	p.print(agent.UsageEvent{Kind: agent.RequestCompaction, PromptTokens: 2500, CompletionTokens: 300, TotalTokens: 2800, ContextWindow: 4000})
	p.print(agent.UsageEvent{Kind: agent.RequestTurn, PromptTokens: 1200, CompletionTokens: 10, TotalTokens: 1210, ContextWindow: 4000})
	p.print(agent.DoneEvent{Reason: agent.DoneStop, Rounds: 2})
	if err := p.result(nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var res struct {
		Type  string      `json:"type"`
		Usage usageTotals `json:"usage"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil || res.Type != "result" {
		t.Fatalf("last line %q: %v", lines[len(lines)-1], err)
	}
	u := res.Usage
	if u.Requests != 3 || u.PromptTokens != 6700 || u.CompletionTokens != 330 || u.TotalTokens != 7030 {
		t.Fatalf("usage %+v; want the three requests", u)
	}
	if c := u.ByKind[agent.RequestCompaction]; c == nil || c.Requests != 1 || c.TotalTokens != 2800 || u.ByKind[agent.RequestTurn].Requests != 2 {
		t.Fatalf("by kind %+v", u.ByKind)
	}
	if !strings.Contains(lines[1], `"type":"usage","kind":"compaction"`) {
		t.Fatalf("the compaction's usage event %q does not say its kind", lines[1])
	}
}

// The prompt-cache hits the server reported are summed in the result, and
// each usage event carries its own; a server that never said leaves them out.
func TestHeadlessUsageCarriesCachedTokens(t *testing.T) {
	var out, errOut bytes.Buffer
	p := newPrinter(true, &out, &errOut)
	first, second := 0, 2900
	p.print(agent.UsageEvent{Kind: agent.RequestTurn, PromptTokens: 3000, CompletionTokens: 20, TotalTokens: 3020, CachedTokens: &first})
	p.print(agent.UsageEvent{Kind: agent.RequestTurn, PromptTokens: 3100, CompletionTokens: 20, TotalTokens: 3120, CachedTokens: &second})
	p.print(agent.DoneEvent{Reason: agent.DoneStop, Rounds: 2})
	if err := p.result(nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if !strings.Contains(lines[1], `"cached_tokens":2900`) {
		t.Fatalf("the usage event %q does not carry cached_tokens", lines[1])
	}
	var res struct {
		Usage usageTotals `json:"usage"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil || res.Usage.CachedTokens == nil || *res.Usage.CachedTokens != 2900 {
		t.Fatalf("result %q: want cached_tokens 2900", lines[len(lines)-1])
	}

	out.Reset()
	p = newPrinter(true, &out, &errOut)
	p.print(agent.UsageEvent{Kind: agent.RequestTurn, PromptTokens: 3000, CompletionTokens: 20, TotalTokens: 3020})
	if err := p.result(nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "cached_tokens") {
		t.Fatalf("cached_tokens reported for a server that did not say: %s", out.String())
	}
}
