package agent

import (
	"encoding/json"
	"myclaw/tools"
	"strings"

	"github.com/sashabaranov/go-openai"
)

// compactWindow: below this many tokens the catalog is sent compact, since
// on a small window the full tool texts would take most of the room before
// the user has said anything.
const compactWindow = 16384

// compactCatalog keeps every tool and argument name, type and enum, with
// the first sentence of each tool's description and no argument
// descriptions (the names say enough at this size). It does not change
// catalog.
func compactCatalog(catalog []openai.Tool) []openai.Tool {
	out := make([]openai.Tool, 0, len(catalog))
	for _, t := range catalog {
		if t.Function == nil {
			out = append(out, t)
			continue
		}
		f := *t.Function
		f.Description = brief(firstSentence(f.Description), 90)
		f.Parameters = compactSchema(f.Parameters)
		out = append(out, openai.Tool{Type: t.Type, Function: &f})
	}
	return out
}

// brief is the first paragraph of s, cut to n bytes at a word.
func brief(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut <= 0 {
		cut = n
	}
	return s[:cut] + "…"
}

// compactSchema drops the descriptions of arguments, and leaves out the
// bounds the registry checks
// anyway (lengths, bounds, extra properties): a call that breaks one gets
// an invalid_args error naming it.
func compactSchema(params any) any {
	raw, err := json.Marshal(params)
	if err != nil {
		return params
	}
	var schema map[string]any
	if json.Unmarshal(raw, &schema) != nil {
		return params
	}
	compactObject(schema)
	delete(schema, "$schema")
	return json.RawMessage(catalogJSON(schema))
}

// compactObject compacts one (sub)schema in place, items of arrays too.
func compactObject(schema map[string]any) {
	for _, k := range []string{"description", "additionalProperties", "examples", "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems"} {
		delete(schema, k)
	}
	if items, ok := schema["items"].(map[string]any); ok {
		compactObject(items)
	}
	props, _ := schema["properties"].(map[string]any)
	for _, v := range props {
		if p, ok := v.(map[string]any); ok {
			compactObject(p)
		}
	}
}

// firstSentence ends at the first ". " or ": " (a colon starts a list of
// details).
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	for _, sep := range []string{". ", ": "} {
		if i := strings.Index(s, sep); i >= 0 {
			s = s[:i+1]
		}
	}
	return strings.TrimSuffix(s, ":")
}

func catalogJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// textToolsSection describes the catalog in the system prompt for a server
// that refuses tool definitions, with the one format ParseTextToolCalls
// reads back.
func textToolsSection(catalog []openai.Tool) string {
	var b strings.Builder
	b.WriteString("\n\n## Tools\nThis server cannot take tool definitions, so call tools by writing, on its own, exactly:\n<tool_call>{\"name\": \"TOOL\", \"arguments\": {...}}</tool_call>\nThen stop and wait for the result. The tools, with their arguments as JSON Schema:\n")
	for _, t := range compactCatalog(catalog) {
		if t.Function == nil {
			continue
		}
		b.WriteString("- " + t.Function.Name + ": " + t.Function.Description + " Arguments: " + string(catalogJSON(t.Function.Parameters)) + "\n")
	}
	return b.String()
}

// wireCatalog is the registry's definitions in the chat completions format.
func wireCatalog(defs []tools.Definition) []openai.Tool {
	out := make([]openai.Tool, 0, len(defs))
	for _, d := range defs {
		out = append(out, openai.Tool{
			Type:     openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{Name: d.Wire, Description: d.Description, Parameters: d.Parameters},
		})
	}
	return out
}
