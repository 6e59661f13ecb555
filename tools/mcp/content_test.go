package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// pngBytes is the start of a PNG: enough for its type to be detected.
var pngBytes = append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 2040)...)

func TestImagesInResults(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "shot", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "screenshot", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "here:"},
				&sdk.ImageContent{MIMEType: "image/png", Data: pngBytes},
				&sdk.ImageContent{MIMEType: "image/png", Data: []byte("<script>not a picture</script>")},
				&sdk.ImageContent{MIMEType: "image/png", Data: append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, maxImageBytes)...)},
			}}, nil
		})
	reg := runServer(t, srv, ServerConfig{Name: "shot", Command: "unused", Enabled: true, Timeout: 30 * time.Second})
	res, err := call(t, reg, "shot/screenshot", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"here:\n[image image/png, 2.0 KB]\n",
		"[image image/png, 30 B: its content is text/html; charset=utf-8, not an image a model takes]",
		"[image image/png, 5.0 MB: over 5.0 MB, not shown to the model]",
	} {
		if !strings.Contains(res.Body, want) {
			t.Errorf("body %q lacks %q", res.Body, want)
		}
	}
	if len(res.Images) != 1 || res.Images[0].MIME != "image/png" || len(res.Images[0].Data) != len(pngBytes) {
		t.Errorf("got %d images; want the one real PNG", len(res.Images))
	}
}

func TestResourceLinksSayHowToRead(t *testing.T) {
	size := int64(2048)
	srv := resourceServer()
	srv.AddTool(&sdk.Tool{Name: "find", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ResourceLink{URI: "docs://guide", Name: "guide", MIMEType: "text/markdown", Size: &size}}}, nil
		})
	reg := runServer(t, srv, ServerConfig{Name: "docs", Command: "unused", Enabled: true, Timeout: 30 * time.Second})
	res, err := call(t, reg, "docs/find", `{}`)
	want := `[resource link docs://guide "guide" (text/markdown, 2.0 KB): read it with docs/read_resource {"uri": "docs://guide"}]`
	if err != nil || res.Body != want {
		t.Fatalf("got %q, %v; want %q", res.Body, err, want)
	}
	// What it says works.
	res, err = call(t, reg, "docs/read_resource", `{"uri": "docs://guide"}`)
	if err != nil || !strings.Contains(res.Body, "Run make deploy.") {
		t.Fatalf("reading the link: %q, %v", res.Body, err)
	}

	// A server without resources: the link is shown, not offered.
	bare := sdk.NewServer(&sdk.Implementation{Name: "bare", Version: "1"}, nil)
	bare.AddTool(&sdk.Tool{Name: "find", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ResourceLink{URI: "x://y"}}}, nil
		})
	reg2 := runServer(t, bare, ServerConfig{Name: "bare", Command: "unused", Enabled: true, Timeout: 30 * time.Second})
	if res, err := call(t, reg2, "bare/find", `{}`); err != nil || res.Body != "[resource link x://y: the server offers no way to read it]" {
		t.Fatalf("got %q, %v", res.Body, err)
	}
}
