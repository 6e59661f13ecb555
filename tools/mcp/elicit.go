package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"myclaw/tools"
)

// Elicitation is a server's request for input from the user
// (elicitation/create, form mode). It is shown to the person, never to the
// model; the answer goes back to the server only.
type Elicitation struct {
	// Server is the config name of the server that asks.
	Server string
	// Message is the server's question, cleaned for the screen.
	Message string
	// Fields are the form's fields, in the schema's order (or by name).
	Fields []ElicitField
	// Title and Note, when set, replace the form's heading ("asks you")
	// and its line on where the answer goes: a request for consent
	// (sampling) uses the same form.
	Title, Note string
}

// Elicitation answers.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitAnswer is the user's answer to an Elicitation.
type ElicitAnswer struct {
	// Action is ElicitAccept, ElicitDecline or ElicitCancel.
	Action string
	// Content holds the typed values (from ElicitField.Parse) of an accept.
	Content map[string]any
}

// ElicitField is one property of the requested schema.
type ElicitField struct {
	Name        string
	Title       string // cleaned for the screen; Name when the schema has none
	Description string // cleaned for the screen
	// Kind is "string", "number", "integer", "boolean", "enum" (one of
	// Options) or "multi" (any of Options, comma-separated).
	Kind     string
	Options  []string // the values of an enum or multi field
	Labels   []string // their titles, when the schema gives them
	Required bool
	// Default is the default as the form's initial text ("" if none).
	Default string
	Format  string // email, uri, date, date-time
	MinLen  *int
	MaxLen  *int
	Min     *float64
	Max     *float64
}

// maxElicitFields bounds the form a server may ask for.
const maxElicitFields = 20

// elicitSchema is the flat schema the spec allows for a form.
type elicitSchema struct {
	Type       string                     `json:"type"`
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
}

type elicitProp struct {
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Format      string   `json:"format"`
	MinLength   *int     `json:"minLength"`
	MaxLength   *int     `json:"maxLength"`
	Minimum     *float64 `json:"minimum"`
	Maximum     *float64 `json:"maximum"`
	Enum        []string `json:"enum"`
	EnumNames   []string `json:"enumNames"`
	OneOf       []struct {
		Const string `json:"const"`
		Title string `json:"title"`
	} `json:"oneOf"`
	Items *struct {
		Enum  []string `json:"enum"`
		AnyOf []struct {
			Const string `json:"const"`
			Title string `json:"title"`
		} `json:"anyOf"`
	} `json:"items"`
	Default json.RawMessage `json:"default"`
}

// parseElicitation turns the request's parameters into a form, or says why
// it cannot be shown.
func parseElicitation(server string, p *sdk.ElicitParams) (*Elicitation, error) {
	if p.Mode != "" && p.Mode != "form" {
		return nil, fmt.Errorf("elicitation mode %q is not supported (form only)", p.Mode)
	}
	e := &Elicitation{Server: server, Message: tools.Clip(tools.Neutralize(p.Message), 2000)}
	if p.RequestedSchema == nil {
		return e, nil
	}
	raw, err := json.Marshal(p.RequestedSchema)
	if err != nil {
		return nil, fmt.Errorf("requested schema: %w", err)
	}
	var s elicitSchema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("requested schema: %w", err)
	}
	if len(s.Properties) > maxElicitFields {
		return nil, fmt.Errorf("the form has %d fields; at most %d are shown", len(s.Properties), maxElicitFields)
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	// JSON objects have no order; the schema's own order would need a
	// second parse, so fields are sorted by name, required ones first.
	req := map[string]bool{}
	for _, n := range s.Required {
		req[n] = true
	}
	sort.Slice(names, func(i, j int) bool {
		if req[names[i]] != req[names[j]] {
			return req[names[i]]
		}
		return names[i] < names[j]
	})
	for _, n := range names {
		var pr elicitProp
		if err := json.Unmarshal(s.Properties[n], &pr); err != nil {
			return nil, fmt.Errorf("requested schema: property %q: %w", n, err)
		}
		f, err := fieldOf(n, pr, req[n])
		if err != nil {
			return nil, err
		}
		e.Fields = append(e.Fields, f)
	}
	return e, nil
}

func fieldOf(name string, pr elicitProp, required bool) (ElicitField, error) {
	clean := func(s string, n int) string { return tools.Clip(strings.TrimSpace(tools.Neutralize(s)), n) }
	f := ElicitField{Name: name, Title: clean(pr.Title, 120), Description: clean(pr.Description, 500), Required: required,
		Format: pr.Format, MinLen: pr.MinLength, MaxLen: pr.MaxLength, Min: pr.Minimum, Max: pr.Maximum}
	if f.Title == "" {
		f.Title = clean(name, 120)
	}
	switch {
	case len(pr.Enum) > 0:
		f.Kind, f.Options, f.Labels = "enum", pr.Enum, pr.EnumNames
	case len(pr.OneOf) > 0:
		f.Kind = "enum"
		for _, o := range pr.OneOf {
			f.Options = append(f.Options, o.Const)
			f.Labels = append(f.Labels, o.Title)
		}
	case pr.Type == "array" && pr.Items != nil:
		f.Kind = "multi"
		f.Options = pr.Items.Enum
		for _, o := range pr.Items.AnyOf {
			f.Options = append(f.Options, o.Const)
			f.Labels = append(f.Labels, o.Title)
		}
		if len(f.Options) == 0 {
			return f, fmt.Errorf("requested schema: property %q: an array needs enumerated items", name)
		}
	case pr.Type == "string" || pr.Type == "number" || pr.Type == "integer" || pr.Type == "boolean":
		f.Kind = pr.Type
	default:
		return f, fmt.Errorf("requested schema: property %q has type %q (want string, number, integer, boolean or an enum)", name, pr.Type)
	}
	for i := range f.Options {
		f.Options[i] = tools.Neutralize(f.Options[i])
	}
	for i := range f.Labels {
		f.Labels[i] = clean(f.Labels[i], 120)
	}
	if len(pr.Default) > 0 && string(pr.Default) != "null" {
		var v any
		if json.Unmarshal(pr.Default, &v) == nil {
			f.Default = defaultText(v)
		}
	}
	return f, nil
}

func defaultText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case []any:
		parts := make([]string, 0, len(v))
		for _, x := range v {
			parts = append(parts, fmt.Sprint(x))
		}
		return strings.Join(parts, ", ")
	}
	return ""
}

// Parse turns the text typed in the field into the value sent to the
// server, checking it against the schema. An empty optional field gives
// (nil, nil): it is left out of the answer.
func (f ElicitField) Parse(text string) (any, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		if f.Required {
			return nil, errors.New("required")
		}
		return nil, nil
	}
	switch f.Kind {
	case "boolean":
		b, err := strconv.ParseBool(text)
		if err != nil {
			return nil, errors.New("want true or false")
		}
		return b, nil
	case "number", "integer":
		n, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			return nil, errors.New("want a number")
		}
		if f.Kind == "integer" && n != math.Trunc(n) {
			return nil, errors.New("want a whole number")
		}
		if f.Min != nil && n < *f.Min {
			return nil, fmt.Errorf("at least %v", *f.Min)
		}
		if f.Max != nil && n > *f.Max {
			return nil, fmt.Errorf("at most %v", *f.Max)
		}
		if f.Kind == "integer" {
			return int64(n), nil
		}
		return n, nil
	case "enum":
		for _, o := range f.Options {
			if o == text {
				return o, nil
			}
		}
		return nil, fmt.Errorf("one of %s", strings.Join(f.Options, ", "))
	case "multi":
		var out []string
		for p := range strings.SplitSeq(text, ",") {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			found := false
			for _, o := range f.Options {
				found = found || o == p
			}
			if !found {
				return nil, fmt.Errorf("%q is not one of %s", p, strings.Join(f.Options, ", "))
			}
			out = append(out, p)
		}
		return out, nil
	}
	n := utf8.RuneCountInString(text)
	if f.MinLen != nil && n < *f.MinLen {
		return nil, fmt.Errorf("at least %d characters", *f.MinLen)
	}
	if f.MaxLen != nil && n > *f.MaxLen {
		return nil, fmt.Errorf("at most %d characters", *f.MaxLen)
	}
	switch f.Format {
	case "email":
		if a, err := mail.ParseAddress(text); err != nil || a.Address != text {
			return nil, errors.New("want an email address")
		}
	case "uri":
		if u, err := url.Parse(text); err != nil || u.Scheme == "" {
			return nil, errors.New("want a URI with a scheme (https://...)")
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, text); err != nil {
			return nil, errors.New("want a date, YYYY-MM-DD")
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, text); err != nil {
			return nil, errors.New("want a date and time, RFC 3339 (2026-01-02T15:04:05Z)")
		}
	}
	return text, nil
}

// elicitHandler is the client's elicitation/create handler for one server:
// it asks the person through ask, or declines when there is nobody to ask
// or the form cannot be shown.
func (m *Manager) elicitHandler(server string) func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	return func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		m.mu.Lock()
		ask := m.opts.Elicit
		m.mu.Unlock()
		if ask == nil {
			m.logf("mcp: server %s asked for input; declined (nobody to ask in this session)", server)
			return &sdk.ElicitResult{Action: ElicitDecline}, nil
		}
		e, err := parseElicitation(server, req.Params)
		if err != nil {
			m.logf("mcp: server %s asked for input that cannot be shown (%v); declined", server, err)
			return &sdk.ElicitResult{Action: ElicitDecline}, nil
		}
		ans, err := ask(ctx, *e)
		if err != nil {
			return &sdk.ElicitResult{Action: ElicitCancel}, nil
		}
		if ans.Action != ElicitAccept {
			return &sdk.ElicitResult{Action: ans.Action}, nil
		}
		content := ans.Content
		if content == nil {
			content = map[string]any{}
		}
		return &sdk.ElicitResult{Action: ElicitAccept, Content: content}, nil
	}
}

// secretWords name what a form should not show as it is typed. The long
// ones are found inside words (apiToken, passwords); key, pin and otp only
// as words of their own (or apikey, sshkey), so that "keyboard" or
// "shipping" stay in clear.
var secretWords, secretShort = []string{"password", "passphrase", "passwd", "passcode", "token", "secret", "credential"},
	[]string{"key", "pin", "otp", "pwd"}

// Secret reports whether the field looks like it asks for a secret (by its
// name, title, description or the format "password"): the form masks it
// as it is typed and in the summary of what is sent. It errs on the side of
// masking.
func (f ElicitField) Secret() bool {
	if strings.EqualFold(f.Format, "password") {
		return true
	}
	for _, s := range []string{f.Name, f.Title, f.Description} {
		low := strings.ToLower(s)
		for _, w := range secretWords {
			if strings.Contains(low, w) {
				return true
			}
		}
		for _, w := range words(s) {
			for _, short := range secretShort {
				if w == short || w == short+"s" || short == "key" && strings.HasSuffix(w, "key") && len(w) <= 6 {
					return true
				}
			}
		}
	}
	return false
}

// words splits s into lower-case words at every non-letter and at each
// lower-to-upper change (apiKey, api_key, API-KEY all give "key").
func words(s string) []string {
	var out []string
	var cur []rune
	var prev rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for _, r := range s {
		switch {
		case !unicode.IsLetter(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return out
}
