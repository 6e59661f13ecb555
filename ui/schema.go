package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// schemaParam is one argument of a tool as /tools NAME shows it.
type schemaParam struct {
	name, kind, desc string
}

// schemaParams reads the top-level properties of a JSON Schema: name,
// type (required or not, with an enum, a default, bounds) and description,
// in the schema's own order. A schema it cannot read is shown as indented
// JSON, one "line" per row.
func schemaParams(raw json.RawMessage) []schemaParam {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	var props map[string]json.RawMessage
	if json.Unmarshal(raw, &s) != nil || json.Unmarshal(s.Properties, &props) != nil {
		var b bytes.Buffer
		if json.Indent(&b, raw, "", "  ") != nil {
			return []schemaParam{{name: "schema", desc: oneLine(string(raw))}}
		}
		var out []schemaParam
		for l := range strings.SplitSeq(b.String(), "\n") {
			out = append(out, schemaParam{name: oneLine(l)})
		}
		return out
	}
	if len(props) == 0 {
		return []schemaParam{{name: "(no arguments)"}}
	}
	names := propertyOrder(s.Properties, props)
	out := make([]schemaParam, 0, len(names))
	for _, name := range names {
		var p struct {
			Type        any      `json:"type"`
			Description string   `json:"description"`
			Enum        []any    `json:"enum"`
			Default     any      `json:"default"`
			Minimum     *float64 `json:"minimum"`
			Maximum     *float64 `json:"maximum"`
			Items       struct {
				Type any `json:"type"`
			} `json:"items"`
		}
		_ = json.Unmarshal(props[name], &p)
		kind := typeName(p.Type)
		if kind == "array" && p.Items.Type != nil {
			kind = "array of " + typeName(p.Items.Type)
		}
		var notes []string
		if kind != "" {
			notes = append(notes, kind)
		}
		if slices.Contains(s.Required, name) {
			notes = append(notes, "required")
		} else {
			notes = append(notes, "optional")
		}
		if len(p.Enum) > 0 {
			vals := make([]string, len(p.Enum))
			for i, v := range p.Enum {
				b, _ := json.Marshal(v)
				vals[i] = string(b)
			}
			notes = append(notes, "one of "+strings.Join(vals, ", "))
		}
		if p.Minimum != nil {
			notes = append(notes, fmt.Sprintf("≥ %g", *p.Minimum))
		}
		if p.Maximum != nil {
			notes = append(notes, fmt.Sprintf("≤ %g", *p.Maximum))
		}
		if p.Default != nil {
			b, _ := json.Marshal(p.Default)
			notes = append(notes, "default "+string(b))
		}
		out = append(out, schemaParam{name: oneLine(name), kind: oneLine("(" + strings.Join(notes, ", ") + ")"), desc: oneLine(p.Description)})
	}
	return out
}

// typeName is a schema "type": a name, or names joined ("string|null").
func typeName(t any) string {
	switch v := t.(type) {
	case string:
		return v
	case []any:
		var names []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				names = append(names, s)
			}
		}
		return strings.Join(names, "|")
	}
	return ""
}

// propertyOrder lists the keys of the properties object in the order the
// schema writes them (Go maps forget it), falling back to sorted order.
func propertyOrder(raw json.RawMessage, props map[string]json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var names []string
	if tok, err := dec.Token(); err == nil && tok == json.Delim('{') {
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			name, _ := tok.(string)
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				break
			}
			names = append(names, name)
		}
	}
	if len(names) != len(props) {
		names = names[:0]
		for k := range props {
			names = append(names, k)
		}
		sort.Strings(names)
	}
	return names
}
