package mcp

import (
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"myclaw/tools"
)

func resourceServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "docs", Version: "1"}, nil)
	s.AddResource(&sdk.Resource{URI: "docs://guide", Name: "guide", MIMEType: "text/markdown", Description: "How to \x1b[31mdeploy"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: "# Guide\nRun make deploy."}}}, nil
		})
	s.AddResource(&sdk.Resource{URI: "docs://logo", Name: "logo", MIMEType: "image/png"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: make([]byte, 2048)}}}, nil
		})
	return s
}

func TestResources(t *testing.T) {
	reg := tools.NewRegistry()
	m := newTestManager(t, reg, ServerConfig{Name: "docs", Command: "unused", Enabled: true, Timeout: 30 * time.Second})
	inMemory(t, m, resourceServer())
	m.Start(context.Background(), nil)
	st := waitStatus(t, m, "docs", inState(StateRunning))
	if strings.Join(st.Tools, ",") != "docs/list_resources,docs/read_resource" {
		t.Fatalf("got tools %v; want the two resource tools", st.Tools)
	}
	tl, _ := reg.Lookup("docs/read_resource")
	if meta := tl.Meta(); !meta.ReadOnly || !meta.ReturnsUntrusted {
		t.Errorf("got meta %+v; want read-only and fenced", meta)
	}

	res, err := call(t, reg, "docs/list_resources", `{}`)
	if err != nil || !strings.Contains(res.Body, "docs://guide — guide (text/markdown): How to deploy") || !strings.Contains(res.Body, "docs://logo") {
		t.Errorf("list: got %q, %v", res.Body, err)
	}
	res, err = call(t, reg, "docs/read_resource", `{"uri":"docs://guide"}`)
	if err != nil || res.Body != "# Guide\nRun make deploy." || res.Source != "mcp:docs:docs://guide" {
		t.Errorf("read: got %+v, %v", res, err)
	}
	res, err = call(t, reg, "docs/read_resource", `{"uri":"docs://logo"}`)
	if err != nil || !strings.Contains(res.Body, "[binary resource docs://logo, 2.0 KB, image/png]") {
		t.Errorf("read blob: got %q, %v", res.Body, err)
	}
	if _, err := call(t, reg, "docs/read_resource", `{"uri":"docs://nope"}`); err == nil {
		t.Errorf("read of an unknown URI: got no error")
	}

	list, more, err := m.Resources(context.Background(), "docs")
	if err != nil || more || len(list) != 2 || list[0].URI != "docs://guide" {
		t.Errorf("Resources: got %+v, %v, %v", list, more, err)
	}
	if _, _, err := m.Resources(context.Background(), "nope"); err == nil {
		t.Errorf("Resources of an unknown server: no error")
	}
}

func TestNoResourceToolsWithoutCapability(t *testing.T) {
	m, reg, _ := startInMemory(t, ServerConfig{Name: "srv", Enabled: true, Command: "unused", Timeout: 30 * time.Second})
	if _, ok := reg.Lookup("srv/read_resource"); ok {
		t.Errorf("a server without resources got a read_resource tool")
	}
	if _, _, err := m.Resources(context.Background(), "srv"); err == nil || !strings.Contains(err.Error(), "offers no resources") {
		t.Errorf("got %v; want it to say the server offers no resources", err)
	}
}
