package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// regWriteSchema is fs_write's schema: strict, two required strings.
const regWriteSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "description": "File path inside the workspace."},
    "content": {"type": "string", "description": "The whole new content."}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`

// regTool returns a tool that records nothing and returns res.
func regTool(name, schema string, src Source) Func {
	return Func{
		M: Meta{Name: name, Description: "Test tool " + name + ".", Schema: json.RawMessage(schema), Source: src},
		F: func(context.Context, json.RawMessage) (Result, error) { return Result{}, nil },
	}
}

func TestRegisterRefuses(t *testing.T) {
	tests := []struct {
		name    string
		tool    Tool
		wantErr string
	}{
		{"nil tool", nil, "nil tool"},
		{"empty name", regTool("", "", SourceMCP), "invalid name"},
		{"space in name", regTool("bad name", "", SourceMCP), "invalid name"},
		{"two slashes", regTool("a/b/c", "", SourceMCP), "invalid name"},
		{"empty namespace", regTool("/tool", "", SourceMCP), "invalid name"},
		{"empty short name", regTool("server/", "", SourceMCP), "invalid name"},
		{"double slash", regTool("a//b", "", SourceMCP), "invalid name"},
		{"non-ASCII", regTool("outil_é", "", SourceMCP), "invalid name"},
		{"too long", regTool(strings.Repeat("a", 129), "", SourceMCP), "invalid name"},
		{"builtin with capitals", regTool("FsRead", "", SourceBuiltin), "builtin names are lowercase_snake"},
		{"builtin with a hyphen", regTool("fs-read", "", SourceBuiltin), "builtin names are lowercase_snake"},
		{"builtin with a namespace", regTool("fs/read", "", SourceBuiltin), "builtin names are lowercase_snake"},
		{"builtin starting with a digit", regTool("1tool", "", SourceBuiltin), "builtin names are lowercase_snake"},
		{"command tool without a namespace", regTool("counter", "", SourceCommand), "command tools are named namespace/short_name"},
		{"schema not JSON", regTool("t", `{"type":`, SourceMCP), "schema is not valid JSON"},
		{"schema not an object", regTool("t", `["object"]`, SourceMCP), "schema must be a JSON object"},
		{"schema of a string", regTool("t", `{"type":"string"}`, SourceMCP), `want "object"`},
		{"unknown type", regTool("t", `{"type":"object","properties":{"a":{"type":"text"}}}`, SourceMCP), "schema does not compile"},
		{"bad keyword value", regTool("t", `{"type":"object","properties":{"a":{"minLength":"one"}}}`, SourceMCP), "schema does not compile"},
		{"bad pattern", regTool("t", `{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`, SourceMCP), "schema does not compile"},
		{"dangling local ref", regTool("t", `{"type":"object","properties":{"a":{"$ref":"#/$defs/none"}}}`, SourceMCP), "schema does not compile"},
		{"ref to a local file", regTool("t", `{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`, SourceMCP), "external references are not allowed"},
		{"ref to a URL", regTool("t", `{"$ref":"https://example.com/schema.json"}`, SourceMCP), "external references are not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := NewRegistry().Register(tt.tool)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Register: got error %v; want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestRegisterAccepts(t *testing.T) {
	tests := []struct {
		name, tool, schema string
		src                Source
	}{
		{"builtin", "fs_read", regWriteSchema, SourceBuiltin},
		{"no schema", "time_now", "", SourceBuiltin},
		{"whitespace schema", "time_now", " \n", SourceBuiltin},
		{"MCP display name", "github/create_issue", `{"type":"object"}`, SourceMCP},
		{"dots and hyphens", "srv.v2/get-thing", `{"type":["object","null"]}`, SourceMCP},
		{"config tool with capitals", "Make/Build", `{}`, SourceCommand},
		{"local $defs", "t", `{"type":"object","properties":{"a":{"$ref":"#/$defs/s"}},"$defs":{"s":{"type":"string"}}}`, SourceMCP},
		{"draft 7 schema", "t", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, SourceMCP},
		{"128 characters", strings.Repeat("a", 60) + "/" + strings.Repeat("b", 67), "", SourceMCP},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRegistry()
			if err := r.Register(regTool(tt.tool, tt.schema, tt.src)); err != nil {
				t.Fatalf("Register(%q): %v", tt.tool, err)
			}
			if _, ok := r.Lookup(tt.tool); !ok {
				t.Errorf("Lookup(%q) after Register: not found", tt.tool)
			}
		})
	}
}

func TestRegisterDuplicate(t *testing.T) {
	r := NewRegistry()
	r.MustRegister(regTool("fs_read", "", SourceBuiltin))
	err := r.Register(regTool("fs_read", "", SourceBuiltin))
	if err == nil || !strings.Contains(err.Error(), "already registered") {
		t.Errorf("second Register: got %v; want an \"already registered\" error", err)
	}
	defer func() {
		if recover() == nil {
			t.Errorf("MustRegister of a duplicate did not panic")
		}
	}()
	r.MustRegister(regTool("fs_read", "", SourceBuiltin))
}

var regWireRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestWireNames(t *testing.T) {
	long := "server_with_a_long_name/" + strings.Repeat("x", 80)
	tests := []struct {
		name  string
		names []string // registered in this order
		want  []string // wire names; "" means only check the pattern
	}{
		{"builtin keeps its name", []string{"fs_read"}, []string{"fs_read"}},
		{"namespace slash", []string{"github/create_issue"}, []string{"github__create_issue"}},
		{"dots become underscores", []string{"srv.v2/get-thing"}, []string{"srv_v2__get-thing"}},
		{"long name is cut and tagged", []string{long}, []string{""}},
		{"two long names with one prefix", []string{long + "1", long + "2"}, []string{"", ""}},
		{"collision after mapping", []string{"a_b", "a.b"}, []string{"a_b", ""}},
		{"wire name taken by a display name", []string{"x__y", "x/y"}, []string{"x__y", ""}},
		{"tag taken too", []string{"a_b", "a_b_" + regTag("a.b"), "a.b"}, []string{"a_b", "a_b_" + regTag("a.b"), ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRegistry()
			seen := map[string]string{}
			for i, n := range tt.names {
				if err := r.Register(regTool(n, "", SourceMCP)); err != nil {
					t.Fatalf("Register(%q): %v", n, err)
				}
				w, ok := r.WireName(n)
				if !ok {
					t.Fatalf("WireName(%q): not found", n)
				}
				if !regWireRE.MatchString(w) {
					t.Errorf("WireName(%q) = %q; want it to match %s", n, w, regWireRE)
				}
				if tt.want[i] != "" && w != tt.want[i] {
					t.Errorf("WireName(%q) = %q; want %q", n, w, tt.want[i])
				}
				if prev, dup := seen[w]; dup {
					t.Errorf("WireName(%q) = %q, already the wire name of %q", n, w, prev)
				}
				seen[w] = n
				if got, ok := r.Lookup(w); !ok || got.Meta().Name != n {
					t.Errorf("Lookup(wire %q) found %v; want %q", w, got, n)
				}
			}
		})
	}
}

// regTag is the hash tag uniqueWire appends for name.
func regTag(name string) string {
	r := NewRegistry()
	r.byWire["a_b"] = &entry{}
	w := r.uniqueWire(name)
	return w[strings.LastIndexByte(w, '_')+1:]
}

func TestRegisterRefusesNameThatIsAnotherWireName(t *testing.T) {
	r := NewRegistry()
	r.MustRegister(regTool("x/y", "", SourceMCP))
	err := r.Register(regTool("x__y", "", SourceMCP))
	if err == nil || !strings.Contains(err.Error(), `wire name of "x/y"`) {
		t.Errorf("Register(\"x__y\") after \"x/y\": got %v; want a collision error", err)
	}
}

func TestLookupAndUnregister(t *testing.T) {
	r := NewRegistry()
	for _, n := range []string{"fs_read", "github/create_issue", "time_now"} {
		r.MustRegister(regTool(n, "", SourceMCP))
	}
	tests := []struct {
		lookup, want string
	}{
		{"fs_read", "fs_read"},
		{"github/create_issue", "github/create_issue"},
		{"github__create_issue", "github/create_issue"},
		{"nope", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.lookup, func(t *testing.T) {
			got, ok := r.Lookup(tt.lookup)
			switch {
			case tt.want == "" && ok:
				t.Errorf("Lookup(%q) found %q; want nothing", tt.lookup, got.Meta().Name)
			case tt.want != "" && (!ok || got.Meta().Name != tt.want):
				t.Errorf("Lookup(%q) = %v, %v; want %q", tt.lookup, got, ok, tt.want)
			}
		})
	}

	if !r.Unregister("github/create_issue") {
		t.Fatalf("Unregister(\"github/create_issue\") = false; want true")
	}
	if r.Unregister("github/create_issue") {
		t.Errorf("second Unregister = true; want false")
	}
	for _, n := range []string{"github/create_issue", "github__create_issue"} {
		if _, ok := r.Lookup(n); ok {
			t.Errorf("Lookup(%q) after Unregister found it", n)
		}
	}
	var names []string
	for _, tl := range r.List() {
		names = append(names, tl.Meta().Name)
	}
	if want := []string{"fs_read", "time_now"}; !slices.Equal(names, want) {
		t.Errorf("List() = %q; want %q", names, want)
	}
	// The wire name is free again.
	r.MustRegister(regTool("github/create_issue", "", SourceMCP))
	if w, _ := r.WireName("github/create_issue"); w != "github__create_issue" {
		t.Errorf("WireName after re-registering = %q; want %q", w, "github__create_issue")
	}
	if _, ok := r.WireName("nope"); ok {
		t.Errorf("WireName(\"nope\") found something")
	}
}

func TestCatalog(t *testing.T) {
	r := NewRegistry()
	write := regTool("fs_write", regWriteSchema, SourceBuiltin)
	read := regTool("fs_read", `{"type":"object","properties":{"path":{"type":"string"}}}`, SourceBuiltin)
	read.M.ReadOnly = true
	now := regTool("time_now", "", SourceBuiltin)
	now.M.ReadOnly = true
	mcp := regTool("github/create_issue", `{"type":"object"}`, SourceMCP)
	for _, tl := range []Tool{write, read, now, mcp} {
		r.MustRegister(tl)
	}
	tests := []struct {
		name    string
		include func(Meta) bool
		want    []string
	}{
		{"all", nil, []string{"fs_write", "fs_read", "time_now", "github__create_issue"}},
		{"read-only", func(m Meta) bool { return m.ReadOnly }, []string{"fs_read", "time_now"}},
		{"builtins", func(m Meta) bool { return m.Source == SourceBuiltin }, []string{"fs_write", "fs_read", "time_now"}},
		{"none", func(Meta) bool { return false }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := r.Definitions(tt.include)
			var names []string
			for _, def := range cat {
				names = append(names, def.Wire)
			}
			if !slices.Equal(names, tt.want) {
				t.Errorf("Catalog names = %q; want %q", names, tt.want)
			}
		})
	}

	cat := r.Definitions(nil)
	wantParams := map[string]string{
		"fs_write":             regWriteSchema,
		"time_now":             emptySchema,
		"github__create_issue": `{"type":"object"}`,
	}
	for _, def := range cat {
		want, ok := wantParams[def.Wire]
		if !ok {
			continue
		}
		got, err := json.Marshal(def.Parameters)
		if err != nil {
			t.Fatalf("marshal parameters of %s: %v", def.Wire, err)
		}
		if !regJSONEqual(t, got, []byte(want)) {
			t.Errorf("parameters of %s = %s; want %s", def.Wire, got, want)
		}
		if def.Description != "Test tool "+mustLookup(t, r, def.Wire).Meta().Name+"." {
			t.Errorf("description of %s = %q", def.Wire, def.Description)
		}
	}
	// The whole request body marshals: no empty RawMessage.
	if _, err := json.Marshal(cat); err != nil {
		t.Errorf("marshal catalog: %v", err)
	}
}

func mustLookup(t *testing.T, r *Registry, name string) Tool {
	t.Helper()
	tl, ok := r.Lookup(name)
	if !ok {
		t.Fatalf("Lookup(%q): not found", name)
	}
	return tl
}

func regJSONEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("unmarshal %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return string(ja) == string(jb)
}

// regValidator returns a registry holding fs_write and a richer tool.
func regValidator() *Registry {
	r := NewRegistry()
	r.MustRegister(regTool("fs_write", regWriteSchema, SourceBuiltin))
	r.MustRegister(regTool("rich", `{
	  "type": "object",
	  "properties": {
	    "mode": {"enum": ["a", "b"]},
	    "n": {"type": "integer", "minimum": 1},
	    "tags": {"type": "array", "items": {"type": "string"}},
	    "opt": {"type": "object", "properties": {"deep": {"type": "boolean"}}, "additionalProperties": false},
	    "a/b": {"type": "string"}
	  },
	  "additionalProperties": false
	}`, SourceMCP))
	r.MustRegister(regTool("noargs", "", SourceBuiltin))
	return r
}

func TestValidate(t *testing.T) {
	r := regValidator()
	tests := []struct {
		name, tool, args string
		want             string   // canonical output when accepted
		wantKind         Kind     // error kind when refused
		wantMsg          []string // substrings of the message
		wantViolations   []string // "field: rule", in order
	}{
		{name: "canonical output", tool: "fs_write", args: ` { "path" : "a.txt", "content" : "x<y>&z" } `,
			want: `{"content":"x\u003cy\u003e\u0026z","path":"a.txt"}`},
		{name: "escapes resolved", tool: "fs_write", args: `{"path":"\u0061.txt","content":"\ud83d\ude00"}`,
			want: `{"content":"😀","path":"a.txt"}`},
		{name: "big numbers kept exactly", tool: "rich", args: `{"n":123456789012345678901234567890}`,
			want: `{"n":123456789012345678901234567890}`},
		{name: "number beyond float64 is valid JSON", tool: "rich", args: `{"n":1e400}`,
			want: `{"n":1e400}`},
		{name: "empty arguments", tool: "noargs", args: ``, want: `{}`},
		{name: "blank arguments", tool: "noargs", args: " \n\t", want: `{}`},
		{name: "empty object", tool: "noargs", args: `{}`, want: `{}`},
		{name: "empty arguments and required fields", tool: "fs_write", args: ``,
			wantKind: KindInvalidArgs, wantViolations: []string{"/: missing properties 'path', 'content'"}},
		{name: "unknown tool", tool: "fs_wrte", args: `{}`, wantKind: KindNotFound, wantMsg: []string{`no tool named "fs_wrte"`}},
		{name: "truncated JSON", tool: "fs_write", args: `{"path":"a",`,
			wantKind: KindInvalidArgs, wantMsg: []string{"malformed JSON at byte 12"}},
		{name: "bad character", tool: "fs_write", args: `{"path":'a'}`,
			wantKind: KindInvalidArgs, wantMsg: []string{"malformed JSON at byte 9", "invalid character '\\''"}},
		{name: "trailing data", tool: "fs_write", args: `{"path":"a","content":"b"} {}`,
			wantKind: KindInvalidArgs, wantMsg: []string{"malformed JSON at byte 28"}},
		{name: "duplicate key", tool: "fs_write", args: `{"path":"a","content":"b","path":"/etc/passwd"}`,
			wantKind: KindInvalidArgs, wantMsg: []string{`duplicate key "path" at /`}},
		{name: "duplicate key spelled with an escape", tool: "fs_write", args: `{"path":"a","content":"b","p\u0061th":"c"}`,
			wantKind: KindInvalidArgs, wantMsg: []string{`duplicate key "path" at /`}},
		{name: "nested duplicate key", tool: "rich", args: `{"opt":{"deep":true,"deep":false}}`,
			wantKind: KindInvalidArgs, wantMsg: []string{`duplicate key "deep" at /opt`}},
		{name: "duplicate key in an array item", tool: "rich", args: `{"tags":[{"k":1,"k":2}]}`,
			wantKind: KindInvalidArgs, wantMsg: []string{`duplicate key "k" at /tags/0`}},
		{name: "array", tool: "fs_write", args: `["a","b"]`, wantKind: KindInvalidArgs, wantMsg: []string{"want a JSON object, got an array"}},
		{name: "string", tool: "fs_write", args: `"{\"path\":\"a\"}"`, wantKind: KindInvalidArgs, wantMsg: []string{"want a JSON object, got a string"}},
		{name: "number", tool: "fs_write", args: `1`, wantKind: KindInvalidArgs, wantMsg: []string{"want a JSON object, got a number"}},
		{name: "null", tool: "fs_write", args: `null`, wantKind: KindInvalidArgs, wantMsg: []string{"want a JSON object, got null"}},
		{name: "wrong type", tool: "fs_write", args: `{"path":1,"content":"x"}`,
			wantKind: KindInvalidArgs, wantViolations: []string{"/path: got number, want string"}},
		{name: "missing property", tool: "fs_write", args: `{"path":"a"}`,
			wantKind: KindInvalidArgs, wantViolations: []string{"/: missing property 'content'"}},
		{name: "additional properties", tool: "fs_write", args: `{"path":"a","content":"b","mode":"0777","x":1}`,
			wantKind: KindInvalidArgs, wantViolations: []string{"/: additional properties 'mode', 'x' not allowed"}},
		{name: "every violation listed", tool: "fs_write", args: `{"path":"","extra":true}`,
			wantKind: KindInvalidArgs, wantViolations: []string{
				"/: additional properties 'extra' not allowed",
				"/: missing property 'content'",
				"/path: minLength: got 0, want 1",
			}},
		{name: "nested pointers", tool: "rich", args: `{"mode":"c","n":0.5,"tags":["x",2],"opt":{"deep":"yes"},"a/b":3}`,
			wantKind: KindInvalidArgs, wantViolations: []string{
				"/a~1b: got number, want string",
				"/mode: value must be one of 'a', 'b'",
				"/n: got number, want integer",
				"/opt/deep: got string, want boolean",
				"/tags/1: got number, want string",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, e := r.Validate(tt.tool, json.RawMessage(tt.args))
			if tt.wantKind == "" {
				if e != nil {
					t.Fatalf("Validate(%s) error %v; want %s", tt.args, e, tt.want)
				}
				if string(got) != tt.want {
					t.Errorf("Validate(%s) = %s; want %s", tt.args, got, tt.want)
				}
				return
			}
			if e == nil {
				t.Fatalf("Validate(%s) = %s; want a %s error", tt.args, got, tt.wantKind)
			}
			if got != nil {
				t.Errorf("Validate(%s) returned %s with its error; want nil", tt.args, got)
			}
			if e.Kind != tt.wantKind {
				t.Errorf("kind = %s; want %s", e.Kind, tt.wantKind)
			}
			if e.Hint == "" {
				t.Errorf("no hint in %v", e)
			}
			for _, m := range tt.wantMsg {
				if !strings.Contains(e.Message, m) {
					t.Errorf("message %q; want it to contain %q", e.Message, m)
				}
			}
			if tt.wantViolations != nil {
				for _, v := range tt.wantViolations {
					if !strings.Contains(e.Message, v) {
						t.Errorf("message %q; want it to list %q", e.Message, v)
					}
				}
				detail, _ := e.Details["violations"].([]map[string]string)
				var gotV []string
				for _, d := range detail {
					gotV = append(gotV, d["field"]+": "+d["rule"])
				}
				if !slices.Equal(gotV, tt.wantViolations) {
					t.Errorf("violations = %q; want %q", gotV, tt.wantViolations)
				}
			}
		})
	}
}

func TestValidateHintHasSynopsis(t *testing.T) {
	r := regValidator()
	_, e := r.Validate("fs_write", json.RawMessage(`{"path":1}`))
	want := "fs_write takes {content: string (required), path: string (required)}."
	if e == nil || !strings.Contains(e.Hint, want) {
		t.Errorf("hint = %v; want it to contain %q", e, want)
	}
	_, e = r.Validate("noargs", json.RawMessage(`[]`))
	if want := "noargs takes no arguments: send {}."; e == nil || !strings.Contains(e.Hint, want) {
		t.Errorf("hint = %v; want it to contain %q", e, want)
	}
}

func TestValidateCapsViolations(t *testing.T) {
	r := regValidator()
	items := make([]string, 30)
	for i := range items {
		items[i] = fmt.Sprint(i)
	}
	_, e := r.Validate("rich", json.RawMessage(`{"tags":[`+strings.Join(items, ",")+`]}`))
	if e == nil {
		t.Fatalf("Validate accepted 30 numbers as strings")
	}
	if !strings.HasSuffix(e.Message, "; and 10 more") {
		t.Errorf("message %q; want it to end with %q", e.Message, "; and 10 more")
	}
	if got := e.Details["violation_count"]; got != 30 {
		t.Errorf("violation_count = %v; want 30", got)
	}
	if got := len(e.Details["violations"].([]map[string]string)); got != maxViolations {
		t.Errorf("%d violations listed; want %d", got, maxViolations)
	}
}

func TestValidateCanonicalIsStable(t *testing.T) {
	r := regValidator()
	for _, args := range []string{
		`{"path":"a/b.txt","content":"line1\nline2\t\u2028<tag>"}`,
		`{"content":"","path":"\u00e9"}`,
		`{"path":"a","content":"\ufffd"}`,
	} {
		first, e := r.Validate("fs_write", json.RawMessage(args))
		if e != nil {
			t.Fatalf("Validate(%s): %v", args, e)
		}
		second, e := r.Validate("fs_write", first)
		if e != nil {
			t.Fatalf("Validate(canonical %s): %v", first, e)
		}
		if string(first) != string(second) {
			t.Errorf("canonical form changed: %s then %s", first, second)
		}
	}
}

func TestSuggest(t *testing.T) {
	r := NewRegistry()
	for _, n := range []string{"fs_read", "fs_write", "web_fetch", "github/create_issue", "time_now"} {
		r.MustRegister(regTool(n, "", SourceMCP))
	}
	tests := []struct {
		name string
		n    int
		want []string
	}{
		{"fs_reed", 1, []string{"fs_read"}},
		{"fs_reed", 2, []string{"fs_read", "fs_write"}},
		{"FS_READ", 1, []string{"fs_read"}},
		{"create_issue", 1, []string{"github__create_issue"}},
		{"github/create_isue", 1, []string{"github__create_issue"}},
		{"web_fetch_page", 1, []string{"web_fetch"}},
		{"anything", 0, nil},
		{"anything", 10, []string{"fs_read", "fs_write", "web_fetch", "github__create_issue", "time_now"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d", tt.name, tt.n), func(t *testing.T) {
			got := r.Suggest(tt.name, tt.n)
			if tt.n == 10 {
				// Every tool, in some order.
				slices.Sort(got)
				want := slices.Clone(tt.want)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("Suggest(%q, %d) = %q; want all of %q", tt.name, tt.n, got, want)
				}
				return
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Suggest(%q, %d) = %q; want %q", tt.name, tt.n, got, tt.want)
			}
		})
	}
}

func TestCompileSchema(t *testing.T) {
	tests := []struct {
		name, schema string
		wantErr      string // "" for none
	}{
		{"empty", "", ""},
		{"object", `{"type":"object","properties":{"a":{"type":"string"}}}`, ""},
		{"type array admitting an object", `{"type":["object","null"]}`, ""},
		{"no type", `{"properties":{"a":{"type":"string"}}}`, ""},
		{"not JSON", `{"type":`, "schema is not valid JSON"},
		{"not an object", `[1]`, "schema must be a JSON object"},
		{"a string", `{"type":"string"}`, `want "object"`},
		{"type array without an object", `{"type":["string","null"]}`, `want "object"`},
		{"does not compile", `{"type":"object","properties":{"a":{"minLength":"one"}}}`, "schema does not compile"},
		{"ref to a local file", `{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`, "external references are not allowed"},
		{"relative ref", `{"type":"object","properties":{"a":{"$ref":"other.json"}}}`, "external references are not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CompileSchema("ns/tool", json.RawMessage(tt.schema))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("CompileSchema: got %v; want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("CompileSchema: got %v; want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestCheckName(t *testing.T) {
	tests := []struct {
		name string
		src  Source
		ok   bool
	}{
		{"fs_read", SourceBuiltin, true},
		{"FsRead", SourceBuiltin, false},
		{"fs/read", SourceBuiltin, false},
		{"local/line_counter", SourceCommand, true},
		{"Make/Build", SourceCommand, true},
		{"counter", SourceCommand, false},
		{"a/b/c", SourceCommand, false},
		{"a/line counter", SourceCommand, false},
		{"a/" + strings.Repeat("b", 127), SourceCommand, false},
		{"a/" + strings.Repeat("b", 126), SourceCommand, true},
		{"srv/tool", SourceMCP, true},
		{"tool", SourceMCP, true},
		{"/tool", SourceMCP, false},
		{"", SourceMCP, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.src)+" "+tt.name, func(t *testing.T) {
			if err := CheckName(tt.name, tt.src); (err == nil) != tt.ok {
				t.Errorf("CheckName(%q, %s) = %v; want ok=%v", tt.name, tt.src, err, tt.ok)
			}
		})
	}
}

func TestTimedOut(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration
		parent  func() (context.Context, context.CancelFunc)
		want    bool
	}{
		{"the tool's timeout", 10 * time.Millisecond, nil, true},
		{"the caller's deadline", time.Hour, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 10*time.Millisecond)
		}, false},
		{"the caller cancels", time.Hour, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, func() {}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got bool
			tool := regCallTool{meta: Meta{Name: "t", Timeout: tt.timeout}, exec: func(ctx context.Context) (Result, error) {
				<-ctx.Done()
				got = TimedOut(ctx)
				return Result{}, ctx.Err()
			}}
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if tt.parent != nil {
				ctx, cancel = tt.parent()
			}
			defer cancel()
			_, _ = Call(ctx, tool, nil, false)
			if got != tt.want {
				t.Errorf("TimedOut = %v; want %v", got, tt.want)
			}
		})
	}
	if TimedOut(context.Background()) {
		t.Errorf("TimedOut(context.Background()) = true; want false")
	}
}

// regCallTool is a tool whose Execute and DryRun are given functions.
type regCallTool struct {
	meta Meta
	exec func(ctx context.Context) (Result, error)
	dry  func(ctx context.Context) (Result, error)
}

func (c regCallTool) Meta() Meta { return c.meta }
func (c regCallTool) Execute(ctx context.Context, _ json.RawMessage) (Result, error) {
	return c.exec(ctx)
}
func (c regCallTool) DryRun(ctx context.Context, _ json.RawMessage) (Result, error) {
	return c.dry(ctx)
}

func TestCall(t *testing.T) {
	waitCtx := func(ctx context.Context) (Result, error) {
		<-ctx.Done()
		return Result{Summary: "partial"}, fmt.Errorf("waiting: %w", ctx.Err())
	}
	killed := func(ctx context.Context) (Result, error) {
		<-ctx.Done()
		return Result{}, errors.New("signal: killed")
	}
	ownTimeout := func(ctx context.Context) (Result, error) {
		<-ctx.Done()
		return Result{}, &Error{Kind: KindQuotaExceeded, Message: "command timed out after 10ms; output so far saved", Hint: "h"}
	}
	ok := func(context.Context) (Result, error) { return Result{Summary: "executed"}, nil }
	tests := []struct {
		name     string
		exec     func(context.Context) (Result, error)
		dry      bool
		timeout  time.Duration
		parent   func() (context.Context, context.CancelFunc)
		wantSum  string
		wantKind Kind   // kind of the *Error, "" for none
		wantIs   error  // errors.Is target, when the error is not an *Error
		wantMsg  string // substring of the message
	}{
		{name: "execute", exec: ok, wantSum: "executed"},
		{name: "dry run", exec: ok, dry: true, wantSum: "dry"},
		{name: "panic", exec: func(context.Context) (Result, error) { panic("index out of range") },
			wantKind: KindUnknown, wantMsg: "t failed unexpectedly: index out of range"},
		{name: "panic with an error value", exec: func(context.Context) (Result, error) { panic(errors.New("boom")) },
			wantKind: KindUnknown, wantMsg: "boom"},
		{name: "tool timeout", exec: waitCtx, timeout: 10 * time.Millisecond,
			wantKind: KindQuotaExceeded, wantMsg: "t timed out after 10ms"},
		{name: "tool timeout with an unrelated error", exec: killed, timeout: 10 * time.Millisecond,
			wantKind: KindQuotaExceeded, wantMsg: "timed out"},
		{name: "tool describes its own timeout", exec: ownTimeout, timeout: 10 * time.Millisecond,
			wantKind: KindQuotaExceeded, wantMsg: "output so far saved"},
		{name: "caller cancels", exec: waitCtx, parent: func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, func() {}
		}, wantIs: context.Canceled},
		{name: "caller's deadline is not the tool's timeout", exec: waitCtx, parent: func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 10*time.Millisecond)
		}, wantIs: context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := regCallTool{
				meta: Meta{Name: "t", Timeout: tt.timeout},
				exec: tt.exec,
				dry:  func(context.Context) (Result, error) { return Result{Summary: "dry"}, nil },
			}
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if tt.parent != nil {
				ctx, cancel = tt.parent()
			}
			defer cancel()
			res, err := Call(ctx, tool, json.RawMessage(`{}`), tt.dry)
			switch {
			case tt.wantKind != "":
				var te *Error
				if !errors.As(err, &te) {
					t.Fatalf("Call error %v (%T); want an *Error of kind %s", err, err, tt.wantKind)
				}
				if te.Kind != tt.wantKind || !strings.Contains(te.Message, tt.wantMsg) {
					t.Errorf("Call error %s %q; want %s containing %q", te.Kind, te.Message, tt.wantKind, tt.wantMsg)
				}
				if te.Hint == "" {
					t.Errorf("Call error %v has no hint", te)
				}
			case tt.wantIs != nil:
				var te *Error
				if !errors.Is(err, tt.wantIs) || errors.As(err, &te) {
					t.Errorf("Call error %v (%T); want one wrapping %v, not an *Error", err, err, tt.wantIs)
				}
			default:
				if err != nil {
					t.Fatalf("Call error %v; want none", err)
				}
				if res.Summary != tt.wantSum {
					t.Errorf("Summary = %q; want %q", res.Summary, tt.wantSum)
				}
			}
		})
	}
}

func TestCallCancelledMapsToUnknown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tool := regCallTool{meta: Meta{Name: "t"}, exec: func(ctx context.Context) (Result, error) { return Result{}, ctx.Err() }}
	_, err := Call(ctx, tool, nil, false)
	e := AsError(err)
	if e.Kind != KindUnknown || !strings.Contains(e.Message, "cancelled by the user") {
		t.Errorf("AsError(cancelled call) = %s %q; want unknown, \"cancelled by the user\"", e.Kind, e.Message)
	}
}

// TestRegistryConcurrent registers, looks up, validates and withdraws
// from several goroutines; run with -race.
func TestRegistryConcurrent(t *testing.T) {
	r := regValidator()
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 50; i++ {
				name := fmt.Sprintf("srv%d/tool_%d", g, i)
				if err := r.Register(regTool(name, `{"type":"object"}`, SourceMCP)); err != nil {
					t.Errorf("Register(%q): %v", name, err)
					return
				}
				if _, e := r.Validate("fs_write", json.RawMessage(`{"path":"a","content":"b"}`)); e != nil {
					t.Errorf("Validate: %v", e)
				}
				_ = r.Definitions(nil)
				_ = r.Suggest("fs_wrte", 2)
				if !r.Unregister(name) {
					t.Errorf("Unregister(%q) = false", name)
				}
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
	if got := len(r.List()); got != 3 {
		t.Errorf("len(List()) = %d after all withdrawals; want 3", got)
	}
}

// Replace swaps a tool in one step, keeping its wire name and place.
func TestRegistryReplace(t *testing.T) {
	r := NewRegistry()
	mk := func(name, desc string) Tool {
		return Func{M: Meta{Name: name, Description: desc, ReadOnly: true}, F: func(context.Context, json.RawMessage) (Result, error) { return Result{}, nil }}
	}
	for _, n := range []string{"a_tool", "b_tool"} {
		if err := r.Register(mk(n, "old")); err != nil {
			t.Fatal(err)
		}
	}
	wire, _ := r.WireName("a_tool")
	if err := r.Replace(mk("a_tool", "new")); err != nil {
		t.Fatal(err)
	}
	tl, ok := r.Lookup("a_tool")
	if w, _ := r.WireName("a_tool"); !ok || tl.Meta().Description != "new" || w != wire {
		t.Errorf("after Replace: %v %q wire %q; want the new tool under %q", ok, tl.Meta().Description, w, wire)
	}
	if l := r.List(); len(l) != 2 || l[0].Meta().Name != "a_tool" {
		t.Errorf("List after Replace: %d tools, first %s", len(l), l[0].Meta().Name)
	}
	if err := r.Replace(mk("c_tool", "fresh")); err != nil {
		t.Errorf("Replace of a new name: %v", err)
	}
}

// TestBuiltinSchemaCompiledAtFirstCall: a builtin's schema is compiled
// when the tool is first called, so a broken one (a programming error,
// caught by app's TestBuiltinSchemasCompile) is reported by that call,
// not by Register; a server's is still refused at registration.
func TestBuiltinSchemaCompiledAtFirstCall(t *testing.T) {
	bad := `{"type":"object","properties":{"a":{"minLength":"one"}}}`
	r := NewRegistry()
	if err := r.Register(regTool("broken", bad, SourceBuiltin)); err != nil {
		t.Fatalf("Register: %v", err)
	}
	if _, e := r.Validate("broken", json.RawMessage(`{}`)); e == nil || !strings.Contains(e.Message, "schema does not compile") {
		t.Fatalf("Validate: got %v; want the compile error", e)
	}
	if err := r.Register(regTool("srv/broken", bad, SourceMCP)); err == nil || !strings.Contains(err.Error(), "schema does not compile") {
		t.Fatalf("Register of a server's tool: got %v; want the compile error", err)
	}
	if err := r.Register(regTool("not_json", `{"type":`, SourceBuiltin)); err == nil {
		t.Fatal("a builtin schema that is not JSON was registered")
	}
}
