package agent

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/sashabaranov/go-openai"
)

// compactWindow: below this many tokens the catalog is sent compact, since
// on a small window the full tool texts would take most of the room before
// the user has said anything.
const compactWindow = 16384

// compactCatalog keeps every tool and argument name and type but only the
// first paragraph of each description, and describes only required
// arguments, in a short clause. It does not change catalog.
func compactCatalog(catalog []openai.Tool) []openai.Tool {
	out := make([]openai.Tool, 0, len(catalog))
	for _, t := range catalog {
		if t.Function == nil {
			out = append(out, t)
			continue
		}
		f := *t.Function
		f.Description = brief(firstSentence(f.Description), 110)
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

// compactSchema drops descriptions from optional properties and shortens
// those of required ones, and leaves out the bounds the registry checks
// anyway (lengths, maxima, extra properties): a call that breaks one gets
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
	required := map[string]bool{}
	if rs, ok := schema["required"].([]any); ok {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	if props, ok := schema["properties"].(map[string]any); ok {
		names := make([]string, 0, len(props))
		for k := range props {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			p, ok := props[k].(map[string]any)
			if !ok {
				continue
			}
			if d, ok := p["description"].(string); ok && required[k] {
				p["description"] = brief(firstSentence(d), 48)
			} else {
				delete(p, "description")
			}
			// Lengths are checked when the call arrives; the model only
			// needs to know the kind of value.
			for _, k := range []string{"examples", "minLength", "maxLength", "maximum"} {
				delete(p, k)
			}
		}
	}
	for _, k := range []string{"description", "$schema", "additionalProperties"} {
		delete(schema, k)
	}
	return json.RawMessage(catalogJSON(schema))
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
