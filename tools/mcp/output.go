package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"myclaw/tools"
)

// outputSchema compiles a tool's outputSchema, if it declares one. A
// schema that does not compile is reported, and the tool is skipped: its
// results could not be checked.
func outputSchema(display string, schema any) (*jsonschema.Schema, error) {
	if schema == nil {
		return nil, nil
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refusingLoader{})
	url := "mem://mcp-output/" + sanitize(display) + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("output schema does not compile: %w", err)
	}
	return s, nil
}

// refusingLoader keeps a server's schema from reading files or fetching.
type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external references are not allowed (%s)", url)
}

// checkStructured validates a result's structuredContent against the
// tool's outputSchema: a tool that declares one must return conforming
// structured content (MCP spec, tools: output schema).
func (t *remoteTool) checkStructured(v any) error {
	if t.output == nil {
		return nil
	}
	var err error
	if v == nil {
		err = fmt.Errorf("it declares an outputSchema but sent no structuredContent")
	} else {
		raw, merr := json.Marshal(v)
		if merr != nil {
			return merr
		}
		doc, derr := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if derr != nil {
			return derr
		}
		if verr := t.output.Validate(doc); verr != nil {
			err = fmt.Errorf("its structuredContent does not match its outputSchema: %s", tools.FirstAndLastLines(verr.Error(), 600))
		}
	}
	if err == nil {
		return nil
	}
	return (&tools.Error{
		Kind:    tools.KindExternalError,
		Message: fmt.Sprintf("%s returned a malformed result: %v", t.meta.Name, err),
		Hint:    "The server broke its own contract; the result was not used. Try another approach or tell the user.",
	}).With("server", t.r.s.cfg.Name)
}
