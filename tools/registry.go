package tools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var (
	displayNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*(/[A-Za-z0-9][A-Za-z0-9_.-]*)?$`)
	builtinNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	wireNameRE    = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	wireBadChar   = regexp.MustCompile(`[^a-zA-Z0-9_-]`)
)

// Registry holds the tools of a session, each with its compiled schema and
// its wire name. It is safe for concurrent use: MCP servers register and
// withdraw tools while the loop reads the catalog.
type Registry struct {
	mu      sync.RWMutex
	byName  map[string]*entry
	byWire  map[string]*entry
	ordered []*entry
}

type entry struct {
	tool   Tool
	meta   Meta
	wire   string
	schema *jsonschema.Schema
	doc    map[string]any
	params json.RawMessage // the schema for the catalog, never empty
}

// emptySchema stands in for a tool that declares no schema: it takes an
// object and nothing is required.
const emptySchema = `{"type":"object","properties":{}}`

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byName: map[string]*entry{}, byWire: map[string]*entry{}}
}

// Register adds a tool. It refuses a nil tool, an invalid or duplicate name,
// and a schema that does not compile.
func (r *Registry) Register(t Tool) error { return r.add(t, false) }

func (r *Registry) add(t Tool, replace bool) error {
	if t == nil {
		return errors.New("register: nil tool")
	}
	m := t.Meta()
	if err := CheckName(m.Name, m.Source); err != nil {
		return fmt.Errorf("register %q: %w", m.Name, err)
	}
	schema, doc, err := compileSchema(m.Name, m.Schema)
	if err != nil {
		return fmt.Errorf("register %q: %w", m.Name, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if replace {
		r.unregisterLocked(m.Name)
	}
	if _, dup := r.byName[m.Name]; dup {
		return fmt.Errorf("register %q: a tool with that name is already registered", m.Name)
	}
	if other, taken := r.byWire[m.Name]; taken {
		// Lookup takes both kinds of name: one string must not mean two tools.
		return fmt.Errorf("register %q: the name is already the wire name of %q", m.Name, other.meta.Name)
	}
	params := m.Schema
	if len(bytes.TrimSpace(params)) == 0 {
		params = json.RawMessage(emptySchema)
	}
	e := &entry{tool: t, meta: m, schema: schema, doc: doc, params: params, wire: r.uniqueWire(m.Name)}
	r.byName[m.Name] = e
	r.byWire[e.wire] = e
	r.ordered = append(r.ordered, e)
	return nil
}

// Replace swaps in t for the registered tool of the same name, keeping its
// wire name and place, in one step: a lookup meanwhile finds the old tool
// or the new one, never none. Without such a tool it is Register.
func (r *Registry) Replace(t Tool) error {
	if t == nil {
		return errors.New("replace: nil tool")
	}
	m := t.Meta()
	schema, doc, err := compileSchema(m.Name, m.Schema)
	if err != nil {
		return fmt.Errorf("register %q: %w", m.Name, err)
	}
	r.mu.Lock()
	old, ok := r.byName[m.Name]
	if !ok {
		r.mu.Unlock()
		return r.Register(t)
	}
	defer r.mu.Unlock()
	params := m.Schema
	if len(bytes.TrimSpace(params)) == 0 {
		params = json.RawMessage(emptySchema)
	}
	e := &entry{tool: t, meta: m, schema: schema, doc: doc, params: params, wire: old.wire}
	r.byName[m.Name] = e
	r.byWire[e.wire] = e
	for i, o := range r.ordered {
		if o == old {
			r.ordered[i] = e
			break
		}
	}
	return nil
}

// MustRegister is Register for the builtin catalog, where a failure is a
// programming error.
func (r *Registry) MustRegister(t Tool) {
	if err := r.Register(t); err != nil {
		panic(err)
	}
}

// Unregister withdraws a tool by display name and reports whether it was there.
func (r *Registry) Unregister(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.unregisterLocked(name)
}

func (r *Registry) unregisterLocked(name string) bool {
	e, ok := r.byName[name]
	if !ok {
		return false
	}
	delete(r.byName, name)
	delete(r.byWire, e.wire)
	for i, o := range r.ordered {
		if o == e {
			r.ordered = append(r.ordered[:i:i], r.ordered[i+1:]...)
			break
		}
	}
	return true
}

// Lookup finds a tool by display name or wire name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	e := r.find(name)
	if e == nil {
		return nil, false
	}
	return e.tool, true
}

// WireName returns the name the model uses for a registered tool.
func (r *Registry) WireName(name string) (string, bool) {
	e := r.find(name)
	if e == nil {
		return "", false
	}
	return e.wire, true
}

func (r *Registry) find(name string) *entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if e, ok := r.byName[name]; ok {
		return e
	}
	return r.byWire[name]
}

// List returns the tools in registration order.
func (r *Registry) List() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Tool, len(r.ordered))
	for i, e := range r.ordered {
		out[i] = e.tool
	}
	return out
}

// Definition is what the model is told of one tool: its wire name, its
// description and the JSON Schema of its arguments (never empty). The
// agent turns definitions into its wire format.
type Definition struct {
	Wire        string
	Description string
	Parameters  json.RawMessage
}

// Definitions returns the definitions of the tools that include accepts
// (the policy decides per autonomy level and rules), in registration order.
func (r *Registry) Definitions(include func(Meta) bool) []Definition {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []Definition
	for _, e := range r.ordered {
		if include != nil && !include(e.meta) {
			continue
		}
		out = append(out, Definition{Wire: e.wire, Description: e.meta.Description, Parameters: e.params})
	}
	return out
}

// Suggest returns up to n registered names closest to name, for a model that
// called a tool that does not exist.
func (r *Registry) Suggest(name string, n int) []string {
	r.mu.RLock()
	type scored struct {
		name string
		d    int
	}
	var all []scored
	for _, e := range r.ordered {
		d := min(EditDistance(strings.ToLower(name), strings.ToLower(e.wire)), EditDistance(strings.ToLower(name), strings.ToLower(e.meta.Name)))
		if strings.Contains(e.wire, name) || strings.Contains(name, e.wire) {
			d = min(d, 1)
		}
		all = append(all, scored{e.wire, d})
	}
	r.mu.RUnlock()
	sort.SliceStable(all, func(i, j int) bool { return all[i].d < all[j].d })
	var out []string
	for _, s := range all {
		if len(out) == n {
			break
		}
		out = append(out, s.name)
	}
	return out
}

// uniqueWire maps a display name to a wire name matching
// ^[a-zA-Z0-9_-]{1,64}$ that is neither the wire name nor the display name
// of another tool: '/' becomes "__", other characters '_', and a long or
// colliding name keeps a hash of the original (of the original and a
// counter, in the unlikely case that is taken too).
func (r *Registry) uniqueWire(name string) string {
	w := strings.ReplaceAll(name, "/", "__")
	w = wireBadChar.ReplaceAllString(w, "_")
	if len(w) <= 64 && r.wireFree(w) {
		return w
	}
	for i := 0; ; i++ {
		key := name
		if i > 0 {
			key = fmt.Sprintf("%s#%d", name, i)
		}
		sum := sha256.Sum256([]byte(key))
		c := w[:min(len(w), 55)] + "_" + hex.EncodeToString(sum[:4])
		if r.wireFree(c) {
			return c
		}
	}
}

func (r *Registry) wireFree(w string) bool {
	_, wire := r.byWire[w]
	_, name := r.byName[w]
	return !wire && !name
}

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
	dropOptionalNulls(e.schema, v)
	if err := e.schema.Validate(v); err != nil {
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

// Call runs one dry run or execution of t under the tool's timeout, turning a
// panic into a kind "unknown" error instead of a crash. Call is the one
// place that times calls: a tool does not set a timeout of its own, and
// tells its timeout from the caller's deadline by the context's cause
// (ErrToolTimeout).
//
// When the tool's own timeout expires, an error that is not already an
// *Error (a tool may describe its timeout itself) becomes kind
// quota_exceeded, whatever its wording: a killed process reports "signal:
// killed", not the context's error. When ctx itself is cancelled or
// expires, the tool's error is returned as it is.
func Call(ctx context.Context, t Tool, args json.RawMessage, dry bool) (res Result, err error) {
	m := t.Meta()
	ctx, cancel := context.WithTimeoutCause(ctx, m.EffectiveTimeout(), ErrToolTimeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			res = Result{}
			err = &Error{Kind: KindUnknown, Message: fmt.Sprintf("%s failed unexpectedly: %v", m.Name, p), Hint: "This is a bug in the tool, not in your call. Tell the user; do not retry the same call."}
		}
	}()
	dr, canDry := t.(DryRunner)
	switch {
	case dry && canDry:
		res, err = dr.DryRun(ctx, args)
	case dry && !m.ReadOnly:
		// No preview: the call is described by its arguments.
		res = Result{Summary: "Run " + m.Name + " (no preview available for this tool)", Preview: string(args)}
	default:
		res, err = t.Execute(ctx, args)
	}
	var te *Error
	if err != nil && TimedOut(ctx) && !errors.As(err, &te) {
		err = &Error{Kind: KindQuotaExceeded, Message: fmt.Sprintf("%s timed out after %s", m.Name, m.EffectiveTimeout()), Hint: "Narrow the request so it finishes in time, or split it into smaller calls."}
	}
	// Secret values myclaw holds leave no call: not in what the screen,
	// the transcript or the model gets.
	res.Body, res.Summary, res.Preview = Redact(res.Body), Redact(res.Summary), Redact(res.Preview)
	if errors.As(err, &te) {
		if msg, hint, quoted := Redact(te.Message), Redact(te.Hint), Redact(te.Quoted); msg != te.Message || hint != te.Hint || quoted != te.Quoted {
			c := *te
			c.Message, c.Hint, c.Quoted = msg, hint, quoted
			err = &c
		}
	}
	return res, err
}

// CheckName checks a display name against the rule of the registry: letters,
// digits, '_', '.' and '-', starting with a letter or digit, optionally
// after a "namespace/", 128 bytes at most; lowercase_snake without a
// namespace for builtins; and a namespace for command tools.
func CheckName(name string, src Source) error {
	switch {
	case len(name) > 128 || !displayNameRE.MatchString(name):
		return errors.New("invalid name: want lowercase_snake or namespace/short_name of letters, digits, '_', '.', '-', 128 bytes at most")
	case src == SourceBuiltin && !builtinNameRE.MatchString(name):
		return errors.New("builtin names are lowercase_snake")
	case src == SourceCommand && !strings.Contains(name, "/"):
		return errors.New("invalid name: command tools are named namespace/short_name")
	}
	return nil
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
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, nil, errors.New("schema must be a JSON object")
	}
	if typ, ok := obj["type"]; ok && !allowsObject(typ) {
		return nil, nil, fmt.Errorf("schema type is %v; want \"object\": arguments are always a JSON object", typ)
	}
	url := "mem://tools/" + wireBadChar.ReplaceAllString(name, "_") + ".json"
	c := jsonschema.NewCompiler()
	// Schemas come from MCP servers and config files too: a "$ref" must not
	// make the registry read local files (the library's default) or fetch.
	c.UseLoader(noLoader{})
	if err := c.AddResource(url, doc); err != nil {
		return nil, nil, fmt.Errorf("schema: %w", err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, nil, fmt.Errorf("schema does not compile: %w", err)
	}
	return s, obj, nil
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
// its next try right: "fs_write takes {path: string (required), content: string (required)}."
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

// EditDistance is the Levenshtein distance between a and b, counted in
// characters (runes).
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
