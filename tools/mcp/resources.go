package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"myclaw/tools"
)

// maxResources bounds one listing of a server's resources.
const maxResources = 200

// Resource is one resource a server offers, for /mcp resources NAME.
type Resource struct {
	URI, Name, Title, MIMEType, Description string
	Size                                    int64
}

// hasResources reports whether the server declared the resources
// capability.
func hasResources(sess *sdk.ClientSession) bool {
	res := sess.InitializeResult()
	return res != nil && res.Capabilities != nil && res.Capabilities.Resources != nil
}

// listResources fetches up to maxResources of the server's resources,
// cleaned for the screen and the prompt; more reports that some were left.
func listResources(ctx context.Context, sess *sdk.ClientSession) (list []Resource, more bool, err error) {
	for r, err := range sess.Resources(ctx, nil) {
		if err != nil {
			return nil, false, err
		}
		if len(list) == maxResources {
			return list, true, nil
		}
		clean := func(s string, n int) string {
			return tools.Clip(strings.Join(strings.Fields(tools.Neutralize(s)), " "), n)
		}
		list = append(list, Resource{URI: clean(r.URI, 500), Name: clean(r.Name, 120), Title: clean(r.Title, 120),
			MIMEType: clean(r.MIMEType, 80), Description: clean(r.Description, 300), Size: r.Size})
	}
	return list, false, nil
}

// Resources lists the resources of the named server (/mcp resources NAME).
func (m *Manager) Resources(ctx context.Context, name string) ([]Resource, bool, error) {
	r, sess, err := m.liveRun(name)
	if err != nil {
		return nil, false, err
	}
	if !hasResources(sess) {
		return nil, false, fmt.Errorf("MCP server %s offers no resources", name)
	}
	ctx, cancel := context.WithTimeout(ctx, r.s.cfg.Timeout)
	defer cancel()
	return listResources(ctx, sess)
}

// resourceTool is one of the two read-only tools that give the model a
// server's resources: NAME/list_resources and NAME/read_resource. Their
// output is fenced like the server's tools'.
type resourceTool struct {
	rt   *remoteTool // for the meta and the error mapping
	read bool
}

// resourceTools builds the resource tools of a server that declares the
// capability.
func (r *run) resourceTools() []*resourceTool {
	cfg := r.s.cfg
	mk := func(short, desc, schema string, read bool) *resourceTool {
		display := cfg.Name + "/" + short
		if !cfg.Trust {
			desc = "[from the MCP server " + cfg.Name + "] " + desc
		}
		return &resourceTool{read: read, rt: &remoteTool{r: r, name: short, meta: tools.Meta{
			Name:             display,
			Description:      desc,
			Schema:           json.RawMessage(schema),
			ReadOnly:         true,
			Risk:             tools.RiskLow,
			ReturnsUntrusted: !cfg.Trust,
			Idempotent:       true,
			Capability:       "mcp:" + display,
			Timeout:          cfg.Timeout,
			Source:           tools.SourceMCP,
		}}}
	}
	return []*resourceTool{
		mk("list_resources", "List the resources (documents, files, records) the MCP server "+cfg.Name+" offers: URI, name, type, size. Read one with "+cfg.Name+"/read_resource.",
			`{"type":"object","properties":{},"additionalProperties":false}`, false),
		mk("read_resource", "Read one resource of the MCP server "+cfg.Name+" by its URI (from "+cfg.Name+"/list_resources or a resource link in a result).",
			`{"type":"object","properties":{"uri":{"type":"string","minLength":1,"description":"the resource's URI"}},"required":["uri"],"additionalProperties":false}`, true),
	}
}

// Meta implements tools.Tool.
func (t *resourceTool) Meta() tools.Meta { return t.rt.meta }

// DryRun implements tools.Tool: reading is free of side effects.
func (t *resourceTool) DryRun(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	return t.Execute(ctx, args)
}

// Execute implements tools.Tool.
func (t *resourceTool) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	r := t.rt.r
	sess, err := r.session()
	if err != nil {
		return tools.Result{}, err
	}
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(r.ctx, func() { cancel(errServerDown) })
	defer stop()
	name := r.s.cfg.Name
	if !t.read {
		list, more, err := listResources(callCtx, sess)
		if err != nil {
			return tools.Result{}, t.rt.callError(ctx, err)
		}
		var b strings.Builder
		for _, res := range list {
			fmt.Fprintf(&b, "%s", res.URI)
			if res.Name != "" {
				fmt.Fprintf(&b, " — %s", res.Name)
			}
			if res.MIMEType != "" || res.Size > 0 {
				fmt.Fprintf(&b, " (%s", orUnknown(res.MIMEType))
				if res.Size > 0 {
					fmt.Fprintf(&b, ", %s", tools.HumanSize(res.Size))
				}
				b.WriteString(")")
			}
			if res.Description != "" {
				fmt.Fprintf(&b, ": %s", res.Description)
			}
			b.WriteString("\n")
		}
		out := map[string]any{"server": name, "count": len(list)}
		if more {
			out["truncated"] = fmt.Sprintf("shown the first %d resources", len(list))
		}
		return tools.Result{Output: out, Body: capBody(b.String()), Source: "mcp:" + name + "/resources", Summary: fmt.Sprintf("%d resources of %s", len(list), name)}, nil
	}
	var in struct {
		URI string `json:"uri"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return tools.Result{}, &tools.Error{Kind: tools.KindInvalidArgs, Message: err.Error(), Hint: `Send {"uri": "..."}.`}
	}
	res, err := sess.ReadResource(callCtx, &sdk.ReadResourceParams{URI: in.URI})
	if err != nil {
		return tools.Result{}, t.rt.callError(ctx, err)
	}
	var parts []string
	for _, c := range res.Contents {
		if c == nil {
			continue
		}
		if c.Blob != nil {
			parts = append(parts, fmt.Sprintf("[binary resource %s, %s, %s]", c.URI, tools.HumanSize(int64(len(c.Blob))), orUnknown(c.MIMEType)))
			continue
		}
		parts = append(parts, c.Text)
	}
	return tools.Result{
		Output:  map[string]any{"server": name, "uri": in.URI, "parts": len(parts)},
		Body:    capBody(strings.Join(parts, "\n")),
		Source:  "mcp:" + name + ":" + tools.Clip(in.URI, 200),
		Summary: "Read " + tools.Clip(in.URI, 120) + " from " + name,
	}, nil
}

// registerResourceToolsLocked adds the resource tools of a server that
// declares resources; a name the server's own tools took is skipped, with
// the reason. m.mu is held.
func (r *run) registerResourceToolsLocked(old, skipped []string) []string {
	if r.sess == nil || !hasResources(r.sess) {
		return skipped
	}
	for _, t := range r.resourceTools() {
		err := fmt.Errorf("register %q: the server has a tool of that name", t.rt.meta.Name)
		if !slices.Contains(r.names, t.rt.meta.Name) {
			err = r.replaceOwnLocked(old, t)
		}
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%q (myclaw's resource tool): %s", t.rt.name, tools.FirstAndLastLines(err.Error(), 400)))
			continue
		}
		r.names = append(r.names, t.rt.meta.Name)
	}
	return skipped
}

// ResourceReader returns the tool that reads the resources of the named
// server, for an @server:uri mention; the error says why there is none.
func (m *Manager) ResourceReader(name string) (tools.Tool, error) {
	r, sess, err := m.liveRun(name)
	if err != nil {
		return nil, err
	}
	if !hasResources(sess) {
		return nil, fmt.Errorf("MCP server %s offers no resources", name)
	}
	return r.resourceTools()[1], nil
}
