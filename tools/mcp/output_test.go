package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"myclaw/tools"
)

func TestStructuredContentChecked(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "shapes", Version: "1"}, nil)
	obj := json.RawMessage(`{"type":"object"}`)
	out := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	for name, sc := range map[string]any{"good": map[string]any{"n": 1}, "bad": map[string]any{"n": "one"}, "none": nil} {
		s.AddTool(&sdk.Tool{Name: name, InputSchema: obj, OutputSchema: out, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}, StructuredContent: sc}, nil
			})
	}
	reg := tools.NewRegistry()
	m := newTestManager(t, reg, ServerConfig{Name: "s", Command: "unused", Enabled: true, Trust: true, Timeout: 30 * time.Second})
	inMemory(t, m, s)
	m.Start(context.Background(), nil)
	waitStatus(t, m, "s", inState(StateRunning))

	res, err := call(t, reg, "s/good", `{}`)
	if err != nil || res.Output == nil {
		t.Errorf("good: got %+v, %v; want the structured result", res, err)
	}
	for _, tc := range []struct{ tool, want string }{
		{"s/bad", "does not match its outputSchema"},
		{"s/none", "sent no structuredContent"},
	} {
		_, err := call(t, reg, tc.tool, `{}`)
		var te *tools.Error
		if !errors.As(err, &te) || te.Kind != tools.KindExternalError || !strings.Contains(te.Message, tc.want) {
			t.Errorf("%s: got %v; want external_error saying %q", tc.tool, err, tc.want)
		}
	}
}
