package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Validate parses raw arguments once, refusing malformed JSON (with the byte
// offset), duplicate keys and anything but an object, checks them against the
// tool's schema, and returns the canonical JSON to hand to the tool: the exact
// value that was validated is the one that is previewed and executed. Empty
// arguments count as {} (servers send parameterless calls that way), and a
// null for an optional property that does not admit null counts as absent.
func (r *Registry) Validate(name string, raw json.RawMessage) (json.RawMessage, *Error) {
	e := r.find(name)
	if e == nil {
		return nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("no tool named %q", name), Hint: "Call one of the tools in the catalog."}
	}
	v, perr := decodeArgs(raw)
	if perr != nil {
		return nil, &Error{
			Kind:    KindInvalidArgs,
			Message: fmt.Sprintf("arguments for %s are not valid: %s", e.wire, perr.Error()),
			Hint:    "Send the arguments as one JSON object. " + synopsis(e.wire, e.doc),
		}
	}
	schema, err := e.schema()
	if err != nil {
		return nil, &Error{Kind: KindUnknown, Message: fmt.Sprintf("the schema of %s: %v", e.wire, err)}
	}
	dropOptionalNulls(schema, v)
	if err := schema.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return nil, &Error{Kind: KindInvalidArgs, Message: err.Error(), Hint: synopsis(e.wire, e.doc)}
		}
		violations := flatten(ve)
		total := len(violations)
		violations = violations[:min(total, maxViolations)]
		lines := make([]string, len(violations))
		detail := make([]map[string]string, len(violations))
		for i, vi := range violations {
			lines[i] = vi.field + ": " + vi.rule
			detail[i] = map[string]string{"field": vi.field, "rule": vi.rule}
		}
		msg := fmt.Sprintf("invalid arguments for %s: %s", e.wire, strings.Join(lines, "; "))
		if total > len(violations) {
			msg += fmt.Sprintf("; and %d more", total-len(violations))
		}
		return nil, (&Error{
			Kind:    KindInvalidArgs,
			Message: msg,
			Hint:    "Fix the fields named and call again. " + synopsis(e.wire, e.doc),
		}).With("violations", detail).With("violation_count", total)
	}
	canon, err := json.Marshal(v)
	if err != nil {
		return nil, &Error{Kind: KindInvalidArgs, Message: err.Error(), Hint: synopsis(e.wire, e.doc)}
	}
	return canon, nil
}

// CompileSchema checks a tool's argument schema the way Register does: it
// must be a JSON object describing an object (or admitting one), compile,
// and refer to nothing outside itself. An empty schema is accepted (the
// tool takes any object). name only labels the schema in errors.
func CompileSchema(name string, schema json.RawMessage) error {
	_, _, err := compileSchema(name, schema)
	return err
}

func compileSchema(name string, raw json.RawMessage) (*jsonschema.Schema, map[string]any, error) {
	url, doc, err := parseSchema(name, raw)
	if err != nil {
		return nil, nil, err
	}
	s, err := compileDoc(url, doc)
	return s, doc, err
}

// parseSchema does the checks of compileSchema that need no compiling:
// valid JSON, an object, a type that admits an object. It returns the
// schema's resource URL and document.
func parseSchema(name string, raw json.RawMessage) (string, map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return "", nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return "", nil, errors.New("schema must be a JSON object")
	}
	if typ, ok := obj["type"]; ok && !allowsObject(typ) {
		return "", nil, fmt.Errorf("schema type is %v; want \"object\": arguments are always a JSON object", typ)
	}
	return "mem://tools/" + wireBadChar.ReplaceAllString(name, "_") + ".json", obj, nil
}

func compileDoc(url string, doc map[string]any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	// Schemas come from MCP servers and config files too: a "$ref" must not
	// make the registry read local files (the library's default) or fetch.
	c.UseLoader(noLoader{})
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema does not compile: %w", err)
	}
	return s, nil
}

// allowsObject reports whether a schema's "type" admits an object.
func allowsObject(typ any) bool {
	switch t := typ.(type) {
	case string:
		return t == "object"
	case []any:
		for _, v := range t {
			if v == "object" {
				return true
			}
		}
	}
	return false
}

// noLoader refuses every external reference of a schema.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external references are not allowed (%s): put every definition in the schema under $defs", url)
}

// decodeArgs parses one JSON object, refusing duplicate keys (two parsers
// could disagree on which one wins) and trailing data.
func decodeArgs(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil && len(bytes.TrimLeft(raw[dec.InputOffset():], " \t\r\n")) > 0 {
		err = errors.New("data after the value")
	}
	if err != nil {
		// Unmarshalling into a RawMessage checks the syntax only and says
		// where it breaks (the decoder reports a cut as a bare EOF).
		var probe json.RawMessage
		perr := json.Unmarshal(raw, &probe)
		var se *json.SyntaxError
		if errors.As(perr, &se) {
			return nil, fmt.Errorf("malformed JSON at byte %d: %s", se.Offset, se.Error())
		}
		return nil, fmt.Errorf("malformed JSON: %s", err.Error())
	}
	if hasDuplicateKey(raw) {
		// The slow token walk names the key and where it is.
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if _, err := decodeValue(dec, ""); err != nil {
			return nil, err
		}
		return nil, errors.New("duplicate key")
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("want a JSON object, got %s", jsonKind(v))
	}
	return v, nil
}

// hasDuplicateKey reports whether some object in raw, one valid JSON value,
// has two keys that decode to the same string. It is the fast path of
// argument decoding: one pass over the bytes, no allocation for the usual
// small objects.
func hasDuplicateKey(raw []byte) bool {
	type frame struct {
		object  bool
		wantKey bool
		keys    [][]byte
		set     map[string]struct{}
	}
	var stack []frame
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '{':
			stack = append(stack, frame{object: true, wantKey: true})
		case '[':
			stack = append(stack, frame{})
		case '}', ']':
			stack = stack[:len(stack)-1]
		case ',':
			if top := len(stack) - 1; top >= 0 && stack[top].object {
				stack[top].wantKey = true
			}
		case '"':
			j := i + 1
			escaped := false
			for raw[j] != '"' {
				if raw[j] == '\\' {
					escaped = true
					j++
				}
				j++
			}
			top := len(stack) - 1
			if top < 0 || !stack[top].wantKey {
				i = j
				continue
			}
			f := &stack[top]
			f.wantKey = false
			key := raw[i+1 : j]
			if escaped || !utf8.Valid(key) {
				var k string
				_ = json.Unmarshal(raw[i:j+1], &k)
				key = []byte(k)
			}
			i = j
			if f.set != nil {
				if _, dup := f.set[string(key)]; dup {
					return true
				}
				f.set[string(key)] = struct{}{}
				continue
			}
			for _, k := range f.keys {
				if bytes.Equal(k, key) {
					return true
				}
			}
			f.keys = append(f.keys, key)
			if len(f.keys) > 16 {
				f.set = make(map[string]struct{}, 2*len(f.keys))
				for _, k := range f.keys {
					f.set[string(k)] = struct{}{}
				}
			}
		}
	}
	return false
}

func decodeValue(dec *json.Decoder, ptr string) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("malformed JSON at byte %d: %w", dec.InputOffset(), err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := map[string]any{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("malformed JSON at byte %d: %w", dec.InputOffset(), err)
				}
				key := kt.(string)
				if _, dup := obj[key]; dup {
					return nil, fmt.Errorf("duplicate key %q at %s", key, pointerOrRoot(ptr))
				}
				val, err := decodeValue(dec, ptr+"/"+escapePointer(key))
				if err != nil {
					return nil, err
				}
				obj[key] = val
			}
			_, err := dec.Token()
			return obj, err
		case '[':
			arr := []any{}
			for i := 0; dec.More(); i++ {
				val, err := decodeValue(dec, fmt.Sprintf("%s/%d", ptr, i))
				if err != nil {
					return nil, err
				}
				arr = append(arr, val)
			}
			_, err := dec.Token()
			return arr, err
		}
	}
	return tok, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	}
	return "an object"
}

type violation struct{ field, rule string }

var printer = message.NewPrinter(language.English)

// flatten lists the leaf causes of a validation error, each with the JSON
// pointer of the offending field and the rule it broke.
func flatten(ve *jsonschema.ValidationError) []violation {
	var out []violation
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			ptr := ""
			for _, tok := range e.InstanceLocation {
				ptr += "/" + escapePointer(tok)
			}
			if ap, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
				// The validator lists them in map order; keep messages stable.
				sort.Strings(ap.Properties)
			}
			out = append(out, violation{pointerOrRoot(ptr), e.ErrorKind.LocalizedString(printer)})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	// The library's order follows map iteration; sort for a stable message.
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].field != out[j].field {
			return out[i].field < out[j].field
		}
		return out[i].rule < out[j].rule
	})
	return out
}

// maxViolations bounds the violations listed in one error: an array of
// ten thousand wrong items needs a few examples, not all of them.
const maxViolations = 20

func pointerOrRoot(ptr string) string {
	if ptr == "" {
		return "/"
	}
	return ptr
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// synopsis describes a tool's arguments in one line, so a weak model can get
// its next try right, as in "fs_write takes {path: string (required),
// content: string (required)}".
func synopsis(wire string, doc map[string]any) string {
	props, _ := doc["properties"].(map[string]any)
	if len(props) == 0 {
		return wire + " takes no arguments: send {}."
	}
	required := map[string]bool{}
	if req, ok := doc["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if required[names[i]] != required[names[j]] {
			return required[names[i]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, n := range names {
		typ := "any"
		if p, ok := props[n].(map[string]any); ok {
			if t, ok := p["type"].(string); ok {
				typ = t
			}
		}
		if required[n] {
			parts[i] = n + ": " + typ + " (required)"
		} else {
			parts[i] = n + ": " + typ
		}
	}
	return wire + " takes {" + strings.Join(parts, ", ") + "}."
}
