package tools

import (
	"testing"
)

func TestReplaceKeepsTheName(t *testing.T) {
	r := NewRegistry()
	r.MustRegister(regTool("srv/a", `{"type":"object"}`, SourceMCP))
	if err := r.Register(regTool("srv/a", `{"type":"object"}`, SourceMCP)); err == nil {
		t.Fatal("Register of a taken name: no error")
	}
	next := regTool("srv/a", `{"type":"object","properties":{"x":{"type":"string"}}}`, SourceMCP)
	if err := r.Replace(next); err != nil {
		t.Fatal(err)
	}
	if got, ok := r.Lookup("srv/a"); !ok || string(got.Meta().Schema) != string(next.M.Schema) || len(r.List()) != 1 {
		t.Errorf("after Replace: got %v, %v, %d tools; want the new tool alone", got, ok, len(r.List()))
	}
}
