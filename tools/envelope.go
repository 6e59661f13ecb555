package tools

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"myclaw/tools/termtext"
)

// Envelope renders the content of the tool message the model reads for one
// call: {"ok":true,...} with the result's fields, or
// {"ok":false,"error":{"kind","message","llm_hint","details"}}. The body of a
// tool that returns untrusted content follows the JSON line inside the fence
// (see Fence); a trusted body is the "content" field.
//
// JSON keeps its HTML escaping on purpose: no '<' from a field can appear
// literally outside the fence and pose as a marker. Strings in the JSON line
// (keys too, error details too) are shown as termtext.Visible shows them,
// then go through Neutralize: a file name's escape sequence reaches the
// model as the text "\e]0;..." (JSON escaping alone would give it back raw
// once decoded), and a look-alike or encoded marker is defused. An Output
// key that the envelope uses itself ("ok", and "content" when a trusted body
// is added) is kept under "output_ok", "output_content".
func Envelope(meta Meta, res Result, err error, retrievedAt time.Time) string {
	if err != nil {
		return errorEnvelope(AsError(err), retrievedAt)
	}
	// Secret values myclaw holds never reach the model or the transcript:
	// the body is redacted before the fence may cut it, the rest after.
	res.Body = Redact(res.Body)
	return Redact(envelope(meta, res, retrievedAt))
}

func envelope(meta Meta, res Result, retrievedAt time.Time) string {
	trustedBody := res.Body != "" && !meta.ReturnsUntrusted
	reserved := []string{"ok"}
	if trustedBody {
		reserved = append(reserved, "content")
	}
	obj := cleanObject(marshalObject(res.Output), reserved)
	if trustedBody {
		obj = appendField(obj, "content", Neutralize(res.Body))
	}
	line := []byte(`{"ok":true`)
	if len(obj) > 2 {
		line = append(line, ',')
	}
	line = append(line, obj[1:]...)
	if !meta.ReturnsUntrusted {
		return string(line)
	}
	source := res.Source
	if source == "" {
		source = meta.Name
	}
	return string(line) + "\n" + Fence(source, retrievedAt, res.Body)
}

// ErrorEnvelope renders {"ok":false,"error":{...}}, followed by the error's
// quoted text in a fence when it has one. A nil e renders as an unknown
// error rather than a crash.
func ErrorEnvelope(e *Error) string { return errorEnvelope(e, time.Now()) }

func errorEnvelope(e *Error, retrievedAt time.Time) string {
	if e == nil {
		e = &Error{Kind: KindUnknown, Message: "the tool failed without saying why", Hint: "Report it to the user rather than retrying blindly."}
	}
	clean := *e
	// A message quotes paths and arguments: shown, not stripped, so the
	// model and the screen see the name that really failed.
	clean.Message = Redact(termtext.Visible(e.Message))
	clean.Hint = Redact(termtext.Visible(e.Hint))
	if clean.Kind == "" {
		clean.Kind = KindUnknown
	}
	type envelope struct {
		OK    bool   `json:"ok"`
		Error *Error `json:"error"`
	}
	b, err := json.Marshal(envelope{false, &clean})
	if err != nil {
		// Details that do not marshal are dropped rather than lose the error.
		clean.Details = nil
		b, _ = json.Marshal(envelope{false, &clean})
	}
	line := string(cleanObject(b, nil))
	if e.Quoted == "" {
		return Redact(line)
	}
	source := e.QuotedSource
	if source == "" {
		source = "error"
	}
	return Redact(line + "\n" + Fence(source, retrievedAt, Redact(e.Quoted)))
}

// marshalObject returns Output as a JSON object ("{}" when empty); a value
// that is not an object goes under "result".
func marshalObject(v any) []byte {
	if v == nil {
		return []byte("{}")
	}
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"result_error": "output did not marshal: " + err.Error()})
		return b
	}
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return []byte("{}") // a nil map or pointer: no fields
	}
	if len(b) == 0 || b[0] != '{' {
		b, _ = json.Marshal(map[string]json.RawMessage{"result": b})
	}
	return b
}

func appendField(obj []byte, key string, value any) []byte {
	vb, _ := json.Marshal(value)
	kb, _ := json.Marshal(key)
	out := append([]byte{}, obj[:len(obj)-1]...)
	if len(obj) > 2 {
		out = append(out, ',')
	}
	out = append(out, kb...)
	out = append(out, ':')
	out = append(out, vb...)
	return append(out, '}')
}

// cleanObject returns the JSON object obj with every string passed through
// Neutralize and the top-level keys in reserved renamed "output_<key>" (or
// with more "output_" prefixes until the name is free). obj is returned as
// it is when there is nothing to change, which is the common case.
func cleanObject(obj []byte, reserved []string) []byte {
	var rename map[string]string
	for _, k := range reserved {
		if !bytes.Contains(obj, []byte(`"`+k+`"`)) {
			continue
		}
		var top map[string]json.RawMessage
		if json.Unmarshal(obj, &top) != nil {
			break
		}
		if _, ok := top[k]; !ok {
			continue
		}
		nk := "output_" + k
		for top[nk] != nil || slices.Contains(reserved, nk) {
			nk = "output_" + nk
		}
		if rename == nil {
			rename = map[string]string{}
		}
		rename[k] = nk
	}
	if rename == nil && !needsCleaning(obj) {
		return obj
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	var out bytes.Buffer
	out.Grow(len(obj) + 16)
	if err := reencode(dec, &out, rename); err != nil {
		return obj // obj came from json.Marshal: this does not happen
	}
	return out.Bytes()
}

// needsCleaning reports whether a string of JSON text would change in
// writeJSONString: it holds a marker-like run (the detector reads \u003c as
// '<'), a character Visible escapes (json.Marshal writes C0 controls as
// escapes such as \u001b, and leaves C1 controls, DEL and invisible
// characters raw) or an escape that is not one of the harmless ones.
func needsCleaning(b []byte) bool {
	if termtext.HasHidden(string(b)) {
		return true
	}
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+1 < len(b) {
			i++
			switch b[i] {
			case '"', '\\', '/', 'n', 't':
			case 'u':
				// json.Marshal's HTML escapes of '<', '>' and '&'.
				if h := string(b[i+1 : min(i+5, len(b))]); h != "003c" && h != "003e" && h != "0026" {
					return true
				}
			default:
				return true
			}
		}
	}
	found := false
	scanMarkers(string(b), func(int, int, bool) { found = true })
	return found
}

// reencode copies one JSON value from dec to out, passing strings through
// writeJSONString and renaming the keys of the outermost object per rename.
func reencode(dec *json.Decoder, out *bytes.Buffer, rename map[string]string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		closing := byte('}')
		if t == '[' {
			closing = ']'
		}
		out.WriteByte(byte(t))
		for i := 0; dec.More(); i++ {
			if i > 0 {
				out.WriteByte(',')
			}
			if t == '{' {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				key, _ := kt.(string)
				if nk, ok := rename[key]; ok {
					key = nk
				}
				writeJSONString(out, key)
				out.WriteByte(':')
			}
			if err := reencode(dec, out, nil); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		out.WriteByte(closing)
	case string:
		writeJSONString(out, t)
	case json.Number:
		out.WriteString(t.String())
	case bool:
		out.WriteString(strconv.FormatBool(t))
	case nil:
		out.WriteString("null")
	}
	return nil
}

func writeJSONString(out *bytes.Buffer, s string) {
	b, _ := json.Marshal(Neutralize(termtext.Visible(s)))
	out.Write(b)
}
