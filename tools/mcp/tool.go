package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"myclaw/tools"
)

// maxBody caps the text of one result that reaches the model.
const maxBody = 32 << 10

// maxErrorText caps a server's error text in an error message.
const maxErrorText = 2000

// codeRejected is the JSON-RPC code the SDK gives a request that its
// transport could not deliver (jsonrpc2.ErrRejected, not exported).
const codeRejected = -32005

// remoteTool is one tool of an MCP server, as a catalog tool.
type remoteTool struct {
	r      *run
	name   string // the tool's name on the server, sent as is
	meta   tools.Meta
	output *jsonschema.Schema // the tool's outputSchema, if it has one
}

func newRemoteTool(r *run, lt *sdk.Tool, display string) (*remoteTool, error) {
	schema, err := schemaOf(lt)
	if err != nil {
		return nil, err
	}
	output, err := outputSchema(display, lt.OutputSchema)
	if err != nil {
		return nil, err
	}
	cfg := r.s.cfg
	ann := lt.Annotations
	// The specification has clients treat annotations as untrusted unless
	// the server is: a hint from a server without trust = true is shown,
	// never acted on, so a destructive tool that claims to be read-only
	// still asks.
	claimsReadOnly := ann != nil && ann.ReadOnlyHint
	readOnly := claimsReadOnly && cfg.Trust
	// The MCP default of destructiveHint is true: only an explicit false
	// lowers the risk of a side-effecting tool.
	destructive := ann == nil || ann.DestructiveHint == nil || *ann.DestructiveHint
	risk := tools.RiskMedium
	switch {
	case readOnly:
		risk = tools.RiskLow
	case claimsReadOnly:
		// Unverified: neither low nor trusted to be harmless.
	case destructive:
		risk = tools.RiskHigh
	}
	var claims []string
	if !cfg.Trust && ann != nil {
		if ann.ReadOnlyHint {
			claims = append(claims, "read-only")
		}
		if ann.DestructiveHint != nil && !*ann.DestructiveHint {
			claims = append(claims, "not destructive")
		}
		if ann.IdempotentHint {
			claims = append(claims, "idempotent")
		}
	}
	claim := ""
	if len(claims) > 0 {
		claim = "the server says: " + strings.Join(claims, ", ") + " (unverified: the server is not trusted)"
	}
	def := definition(lt, schema)
	desc := strings.TrimSpace(lt.Description)
	const maxDescription = 1024
	if desc == "" {
		title := lt.Title
		if title == "" && ann != nil {
			title = ann.Title
		}
		desc = fmt.Sprintf("Tool %q of the MCP server %s.", lt.Name, cfg.Name)
		if title != "" {
			desc = title + ". " + desc
		}
	}
	// The description reaches the model's catalog as is, so a server could
	// use it to plant instructions: bound it, strip control sequences and
	// defuse fence markers, and say where it comes from.
	desc = tools.Neutralize(desc)
	if runes := []rune(desc); len(runes) > maxDescription {
		desc = string(runes[:maxDescription]) + "…"
	}
	if !cfg.Trust {
		desc = "[from the MCP server " + cfg.Name + "] " + desc
	}
	return &remoteTool{
		r:      r,
		name:   lt.Name,
		output: output,
		meta: tools.Meta{
			Name:             display,
			Description:      desc,
			Schema:           schema,
			ReadOnly:         readOnly,
			Risk:             risk,
			ReturnsUntrusted: !cfg.Trust,
			Idempotent:       readOnly || (cfg.Trust && ann != nil && ann.IdempotentHint),
			SupportsDryRun:   false,
			Capability:       "mcp:" + display,
			Timeout:          cfg.Timeout,
			Source:           tools.SourceMCP,
			Definition:       def,
			Claims:           claim,
			HintServer:       hintServer(claimsReadOnly && !cfg.Trust, cfg.Name),
		},
	}, nil
}

// hintServer is the server whose read-only hint a user may choose to
// trust, or "" when the tool does not depend on it.
func hintServer(untrustedClaim bool, server string) string {
	if !untrustedClaim {
		return ""
	}
	return server
}

// definition is the digest of a tool's name, description and input
// schema: what a person approved when they granted the tool.
func definition(lt *sdk.Tool, schema json.RawMessage) string {
	h := sha256.New()
	for _, part := range [][]byte{[]byte(lt.Name), []byte(lt.Description), schema} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// describeChange says how a tool's definition changed: its description
// before and after, and the parameters added or removed.
func describeChange(old, cur tools.Meta) string {
	var parts []string
	if old.Description != cur.Description {
		parts = append(parts, fmt.Sprintf("description was %q, now %q",
			tools.ClipOneLine(old.Description, 300), tools.ClipOneLine(cur.Description, 300)))
	}
	before, after := schemaParams(old.Schema), schemaParams(cur.Schema)
	var added, removed []string
	for p := range after {
		if !before[p] {
			added = append(added, p)
		}
	}
	for p := range before {
		if !after[p] {
			removed = append(removed, p)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	if len(added) > 0 {
		parts = append(parts, "new parameters: "+tools.ClipOneLine(strings.Join(added, ", "), 300))
	}
	if len(removed) > 0 {
		parts = append(parts, "removed parameters: "+tools.ClipOneLine(strings.Join(removed, ", "), 300))
	}
	if len(parts) == 0 {
		parts = append(parts, "its input schema changed")
	}
	return strings.Join(parts, "; ")
}

// schemaParams returns the names of a schema's top-level properties.
func schemaParams(schema json.RawMessage) map[string]bool {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	out := map[string]bool{}
	for p := range s.Properties {
		out[p] = true
	}
	return out
}

// capability is the concrete capability of a call: the tool and the
// definition it had when called.
func (t *remoteTool) capability() string { return t.meta.Capability + "@" + t.meta.Definition }

// Meta implements tools.Tool.
func (t *remoteTool) Meta() tools.Meta { return t.meta }

// DryRun implements tools.Tool. MCP has no dry run: a side-effecting call is
// described by its exact arguments; a read-only one simply runs.
func (t *remoteTool) DryRun(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	summary := "Call " + t.meta.Name
	if t.name != t.meta.Name[strings.IndexByte(t.meta.Name, '/')+1:] {
		summary += fmt.Sprintf(" (tool %q on the server)", t.name)
	}
	if t.meta.ReadOnly {
		res, err := t.Execute(ctx, args)
		if err == nil {
			res.Summary = summary
		}
		return res, err
	}
	return tools.Result{Summary: summary, Preview: tools.PrettyJSON(args), Capability: t.capability()}, nil
}

// Execute implements tools.Tool: it calls the tool on the server until ctx
// ends; tools.Call bounds it with the server's timeout. A call that gets no
// answer within that timeout marks the server failed (it hangs); a call
// whose server goes down meanwhile says so.
func (t *remoteTool) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	sess, err := t.r.session()
	if err != nil {
		return tools.Result{}, err
	}
	callCtx, cancelCall := context.WithCancelCause(ctx)
	defer cancelCall(nil)
	stopWatch := context.AfterFunc(t.r.ctx, func() { cancelCall(errServerDown) })
	defer stopWatch()

	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	params := &sdk.CallToolParams{Meta: t.r.callMeta(), Name: t.name, Arguments: args}
	token, stop := t.r.progress.watch(tools.ProgressNote(ctx))
	defer stop()
	params.SetProgressToken(token)
	res, err := sess.CallTool(callCtx, params)
	if err != nil {
		return tools.Result{}, t.callError(ctx, err)
	}
	return t.result(res)
}

// callError sorts out why a call failed: the server went down, it hangs (the
// call's own timeout expired), the caller gave up, or the server refused
// the call.
func (t *remoteTool) callError(ctx context.Context, err error) error {
	name := t.r.s.cfg.Name
	var wire *jsonrpc.Error
	switch {
	case t.r.ctx.Err() != nil:
		return t.r.downError()
	case t.r.s.auth != nil && t.r.s.auth.needsLogin():
		return t.r.loginError()
	case tools.TimedOut(ctx):
		reason := fmt.Sprintf("%s got no answer within %s", t.meta.Name, t.meta.EffectiveTimeout())
		t.r.end(StateFailed, reason)
		return (&tools.Error{
			Kind:    tools.KindNetworkError,
			Message: reason + "; the MCP server " + name + " is marked failed and its tools are withdrawn",
			Hint:    fmt.Sprintf("Do not retry. Tell the user; they can restart the server with /mcp restart %s. Meanwhile use other tools.", name),
		}).With("server", name)
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &wire) && wire.Code == codeRejected:
		// The request never reached the server (HTTP: connection refused,
		// reset). Not proof that it is gone: the session's own watch on
		// its event stream decides that.
		return t.quote((&tools.Error{
			Kind:    tools.KindNetworkError,
			Message: fmt.Sprintf("%s: could not reach the MCP server %s", t.meta.Name, name),
			Hint:    fmt.Sprintf("The server may be restarting or unreachable. Try once more later; if it keeps failing, tell the user (/mcp shows its state; /mcp restart %s).", name),
		}).With("server", name), err.Error())
	case errors.As(err, &wire):
		kind := tools.KindExternalError
		hint := "The server refused the call. Read the message; fix the arguments or use another tool."
		switch wire.Code {
		case jsonrpc.CodeInvalidParams:
			kind = tools.KindInvalidArgs
		case jsonrpc.CodeMethodNotFound:
			kind = tools.KindNotFound
			hint = "The server does not know this tool any more. Use another tool."
		}
		return t.quote((&tools.Error{
			Kind:    kind,
			Message: t.meta.Name + ": the server refused the call",
			Hint:    hint,
		}).With("code", wire.Code), wire.Message)
	}
	// The connection broke. For a dying server, the watcher is about to end
	// the run with a better reason (exit status, stderr); give it a moment.
	wait := time.NewTimer(2*t.r.m.grace + time.Second)
	defer wait.Stop()
	select {
	case <-t.r.ctx.Done():
	case <-wait.C:
		t.r.end(StateFailed, "connection lost: "+err.Error())
	}
	return t.r.downError()
}

// quote adds a server's error text to e, cut to maxErrorText: fenced for
// the model like the tool's results (a trusted server's text is not, like
// its results), after the message for people.
func (t *remoteTool) quote(e *tools.Error, text string) *tools.Error {
	text = tools.Clip(text, maxErrorText)
	if !t.meta.ReturnsUntrusted {
		e.Message += ": " + text
		return e
	}
	return e.Quote("mcp:"+t.meta.Name+" error", text)
}

// result turns a CallToolResult into a tools.Result, or a tool error.
func (t *remoteTool) result(res *sdk.CallToolResult) (tools.Result, error) {
	var parts []string
	var images []tools.Image
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.ImageContent:
			if res.IsError {
				break
			}
			part, image := imagePart(c, len(images))
			parts = append(parts, part)
			if image != nil {
				images = append(images, *image)
			}
			continue
		case *sdk.ResourceLink:
			parts = append(parts, t.linkPart(c))
			continue
		}
		parts = append(parts, describeContent(c))
	}
	if res.IsError {
		text := strings.TrimSpace(strings.Join(parts, "\n"))
		if text == "" {
			text = "(no message)"
		}
		return tools.Result{}, t.quote((&tools.Error{
			Kind:    tools.KindExternalError,
			Message: t.meta.Name + " failed",
			Hint:    "The tool reported an error. Read it; fix the arguments, try another approach, or tell the user.",
		}).With("server", t.r.s.cfg.Name), text)
	}
	if err := t.checkStructured(res.StructuredContent); err != nil {
		return tools.Result{}, err
	}
	out := tools.Result{
		Source:     "mcp:" + t.meta.Name,
		Capability: t.capability(),
		Images:     images,
	}
	if res.StructuredContent != nil {
		if t.meta.ReturnsUntrusted {
			// Output is not fenced, so structured data from a server that is
			// not trusted stays out of it. The spec has servers repeat it in
			// a text block; only when there is none does the JSON go into
			// the fenced body.
			if !hasText(res.Content) {
				parts = append(parts, tools.PrettyJSON(mustJSON(res.StructuredContent)))
			}
		} else {
			out.Output = res.StructuredContent
		}
	}
	out.Body = capBody(strings.Join(parts, "\n"))
	return out, nil
}

// linkPart shows a resource link and says how to read it: with the
// server's read_resource tool, when it offers resources.
func (t *remoteTool) linkPart(c *sdk.ResourceLink) string {
	s := describeContent(c)
	reader := t.r.s.cfg.Name + "/read_resource"
	tl, _ := t.r.m.reg.Lookup(reader)
	if rt, ok := tl.(*resourceTool); ok && rt.rt.r == t.r {
		return s[:len(s)-1] + fmt.Sprintf(`: read it with %s {"uri": %q}]`, reader, c.URI)
	}
	return s[:len(s)-1] + ": the server offers no way to read it]"
}

// Bounds of the images of one result that go to a vision model: each
// request carries them again, and servers refuse large ones.
const (
	maxImageBytes = 5 << 20
	maxImages     = 4
)

// imageKinds are the image types models take.
var imageKinds = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// imagePart is the placeholder of an image in the result's text and, when
// it can go to a vision model, the image. Its type is what its bytes say,
// not what the server claims.
func imagePart(c *sdk.ImageContent, have int) (string, *tools.Image) {
	size := tools.HumanSize(int64(len(c.Data)))
	kind := http.DetectContentType(c.Data)
	switch {
	case !imageKinds[kind]:
		return fmt.Sprintf("[image %s, %s: its content is %s, not an image a model takes]", orUnknown(tools.ClipOneLine(c.MIMEType, 60)), size, kind), nil
	case len(c.Data) > maxImageBytes:
		return fmt.Sprintf("[image %s, %s: over %s, not shown to the model]", kind, size, tools.HumanSize(maxImageBytes)), nil
	case have >= maxImages:
		return fmt.Sprintf("[image %s, %s: not shown to the model, at most %d per result]", kind, size, maxImages), nil
	}
	return fmt.Sprintf("[image %s, %s]", kind, size), &tools.Image{MIME: kind, Data: c.Data}
}

// hasText reports whether any content block is non-empty text.
func hasText(content []sdk.Content) bool {
	for _, c := range content {
		if tc, ok := c.(*sdk.TextContent); ok && strings.TrimSpace(tc.Text) != "" {
			return true
		}
	}
	return false
}

// describeContent renders one content block as text: text as is, anything
// else as a short description.
func describeContent(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image %s, %s]", orUnknown(tools.ClipOneLine(c.MIMEType, 60)), tools.HumanSize(int64(len(c.Data))))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio %s, %s: not given to the model]", orUnknown(tools.ClipOneLine(c.MIMEType, 60)), tools.HumanSize(int64(len(c.Data))))
	case *sdk.ResourceLink:
		s := "[resource link " + c.URI
		if c.Name != "" {
			s += " " + strconv.Quote(tools.ClipOneLine(c.Name, 120))
		}
		if c.MIMEType != "" || c.Size != nil {
			s += " (" + orUnknown(tools.ClipOneLine(c.MIMEType, 60))
			if c.Size != nil {
				s += ", " + tools.HumanSize(*c.Size)
			}
			s += ")"
		}
		return s + "]"
	case *sdk.EmbeddedResource:
		r := c.Resource
		if r == nil {
			return "[empty resource]"
		}
		if r.Blob != nil {
			return fmt.Sprintf("[resource %s %s %s]", r.URI, tools.HumanSize(int64(len(r.Blob))), orUnknown(r.MIMEType))
		}
		return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
	case nil:
		return ""
	}
	return fmt.Sprintf("[%T content]", c)
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

// capBody truncates s to maxBody bytes on a rune boundary, with a note.
func capBody(s string) string {
	if len(s) <= maxBody {
		return s
	}
	cut := tools.CutUTF8(s, maxBody)
	return cut + fmt.Sprintf("\n[output truncated: shown %d of %d bytes; ask the tool for less, e.g. a narrower range or a page]", len(cut), len(s))
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(fmt.Sprintf("%q", fmt.Sprint(v)))
	}
	return b
}

// displayName maps a server's tool name to a display name the registry
// accepts ("SERVER/short", at most 128 bytes, letters, digits, '_', '.',
// '-'). Other characters become '_'; a name that had to change and collides
// with one already taken gets a hash of the original appended.
func displayName(serverName, toolName string, taken map[string]bool) string {
	short := sanitize(toolName)
	limit := 128 - len(serverName) - 1
	if len(short) > limit {
		short = short[:limit]
	}
	d := serverName + "/" + short
	if !taken[d] {
		return d
	}
	sum := sha256.Sum256([]byte(toolName))
	tag := hex.EncodeToString(sum[:4])
	if len(short) > limit-len(tag)-1 {
		short = short[:limit-len(tag)-1]
	}
	return serverName + "/" + short + "_" + tag
}

// sanitize keeps ASCII letters, digits, '_', '.' and '-', turns each run of
// other characters into one '_', and makes sure the name starts with a letter
// or digit.
func sanitize(name string) string {
	var b strings.Builder
	replaced := false
	for _, r := range name {
		if r < utf8.RuneSelf && (tools.IsASCIIAlnum(byte(r)) || r == '_' || r == '.' || r == '-') {
			b.WriteRune(r)
			replaced = false
			continue
		}
		if !replaced {
			b.WriteByte('_')
			replaced = true
		}
	}
	s := strings.TrimLeft(b.String(), "_.-")
	if s == "" {
		sum := sha256.Sum256([]byte(name))
		return "tool_" + hex.EncodeToString(sum[:4])
	}
	return s
}
