package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"myclaw/approval"
)

// The catalog is counted as exactly the JSON the request sends, whether
// its tools' lengths were kept from an earlier count or not.
func TestCatalogIsCountedAsItsJSON(t *testing.T) {
	h := newHarness(t, approval.Ask, newFakeServer(t))
	req, _ := h.agent.buildRequest()
	if len(req.Tools) == 0 {
		t.Fatal("the harness's request has no tools")
	}
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	fn := func(name, desc string, params any) openai.Tool {
		return openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: name, Description: desc, Parameters: params}}
	}
	cases := map[string][]openai.Tool{
		"builtin":   req.Tools,
		"compact":   compactCatalog(req.Tools),
		"none":      nil,
		"empty":     {},
		"escaped":   {fn("html", "a <b> & \"c\"\n", raw(`{ "type": "object",  "properties": {"x": {"type": "string", "pattern": "<&>"}} }`))},
		"map":       {fn("m", "d", map[string]any{"type": "object"})},
		"no schema": {fn("n", "", nil), fn("r", "", raw(`null`))},
		"strict":    {{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "s", Strict: true, Parameters: raw(`{}`)}}},
		"extra":     {{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "e"}, Parameters: map[string]any{"cache_control": "x"}}},
		"bare":      {{Type: openai.ToolTypeFunction}},
	}
	for name, catalog := range cases {
		b, err := json.Marshal(catalog)
		if err != nil {
			t.Fatal(err)
		}
		for round := range 2 { // the second from what the first kept
			if got := catalogLen(catalog); got != len(b) {
				t.Fatalf("%s, count %d: %d bytes; the JSON has %d", name, round+1, got, len(b))
			}
			if got, want := estimateCatalog(catalog), estimateText(string(b)); got != want {
				t.Fatalf("%s, count %d: %d tokens; want %d", name, round+1, got, want)
			}
		}
	}
}

// A tool that changes under the same name (an MCP server's, restarted) is
// counted as it is now, not as it was.
func TestCatalogCountFollowsAChangedTool(t *testing.T) {
	tool := func(schema, desc string) []openai.Tool {
		return []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "mcp__srv__t", Description: desc, Parameters: json.RawMessage(schema)}}}
	}
	for _, c := range [][]openai.Tool{
		tool(`{"type":"object"}`, "d"),
		tool(`{"type":"object","properties":{"q":{"type":"string"}}}`, "d"),
		tool(`{"type":"object"}`, "a longer description"),
		tool(`{"type":"object"}`, "d"),
	} {
		b, _ := json.Marshal(c)
		if got := catalogLen(c); got != len(b) {
			t.Fatalf("%s counted %d bytes; it is %d", b, got, len(b))
		}
	}
}

// BenchmarkContext counts the context as the status line does at every
// refresh: the system prompt, the builtin catalog and the conversation.
func BenchmarkContext(b *testing.B) {
	h := newHarness(b, approval.Ask, newFakeServer(b))
	h.agent.messages = []openai.ChatCompletionMessage{{Role: "user", Content: strings.Repeat("a prompt ", 20)}}
	b.ReportAllocs()
	for b.Loop() {
		if r := h.agent.Context(); r.Catalog == 0 {
			b.Fatal("no catalog counted")
		}
	}
}
