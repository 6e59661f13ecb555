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

	"github.com/santhosh-tekuri/jsonschema/v6"

	"myclaw/internal/suggest"
)

var (
	displayNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*(/[A-Za-z0-9][A-Za-z0-9_.-]*)?$`)
	builtinNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
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
	schema func() (*jsonschema.Schema, error)
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
	schema, doc, err := prepareSchema(m)
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
	schema, doc, err := prepareSchema(m)
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

// prepareSchema checks a tool's schema as Register does. A builtin's is
// compiled at its first call instead: its schema is myclaw's own (each is
// compiled by a test), and compiling the catalog, with the validator's
// metaschemas, would otherwise be paid by every start, a one-shot turn
// that calls no tool included. Any other tool's is compiled now, so that a
// server's or a config's bad schema is refused at registration.
func prepareSchema(m Meta) (func() (*jsonschema.Schema, error), map[string]any, error) {
	if m.Source != SourceBuiltin {
		s, doc, err := compileSchema(m.Name, m.Schema)
		if err != nil {
			return nil, nil, err
		}
		return func() (*jsonschema.Schema, error) { return s, nil }, doc, nil
	}
	url, doc, err := parseSchema(m.Name, m.Schema)
	if err != nil {
		return nil, nil, err
	}
	return sync.OnceValues(func() (*jsonschema.Schema, error) { return compileDoc(url, doc) }), doc, nil
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
		d := min(suggest.EditDistance(strings.ToLower(name), strings.ToLower(e.wire)), suggest.EditDistance(strings.ToLower(name), strings.ToLower(e.meta.Name)))
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
