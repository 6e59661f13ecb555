package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"myclaw/agent"
	"myclaw/tools"
)

func TestToolsUsesTheWidthAndShowsTheSchema(t *testing.T) {
	f := newFake()
	long := "github/create_pull_request_review_comment"
	f.tools = append(catalog(), agent.ToolInfo{
		Meta: tools.Meta{Name: long, Source: tools.SourceMCP, Capability: "mcp:github",
			Description: "Comment on a pull request.\n\nUse it for:\n- a line of the diff\n- a whole file",
			Schema:      json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"File in the repository."},"line":{"type":"integer","minimum":1},"side":{"type":"string","enum":["LEFT","RIGHT"],"default":"RIGHT"},"labels":{"type":"array","items":{"type":"string"}}},"required":["path"]}`)},
		Wire: "github_create_pull_request_review_comment", Visible: true,
	})
	m := update(newTestModel(t, f), sizeMsg(120, 40))
	m = runLine(t, m, "/tools")
	if got := lastBlock(m); !strings.Contains(got, long+" mcp") {
		t.Fatalf("/tools at 120 columns cuts the name:\n%s", got)
	}
	m = runLine(t, m, "/tools "+long)
	got := lastBlock(m)
	for _, want := range []string{
		"Use it for:", "- a line of the diff", "- a whole file",
		"input", "path (string, required)", "File in the repository.",
		"line (integer, optional, ≥ 1)", `side (string, optional, one of "LEFT", "RIGHT", default "RIGHT")`,
		"labels (array of string, optional)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("/tools NAME lacks %q:\n%s", want, got)
		}
	}
	if i, j := strings.Index(got, "path ("), strings.Index(got, "labels ("); i < 0 || j < i {
		t.Errorf("arguments not in the schema's order:\n%s", got)
	}
}
