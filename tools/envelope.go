package tools

import (
	"bytes"
	"encoding/json"
	"time"
)

// Envelope renders the content of the tool message the model reads for one
// call: {"ok":true,...} with the result's fields, or
// {"ok":false,"error":{"kind","message","llm_hint","details"}}. The body of a
// tool that returns untrusted content follows the JSON line inside the fence
// (see Fence); a trusted body is the "content" field.
//
// JSON keeps its HTML escaping on purpose: no '<' from a field can appear
// literally outside the fence and pose as a marker.
func Envelope(meta Meta, res Result, err error, retrievedAt time.Time) string {
	if err != nil {
		return ErrorEnvelope(AsError(err))
	}
	obj := marshalObject(res.Output)
	if res.Body != "" && !meta.ReturnsUntrusted {
		obj = appendField(obj, "content", StripControls(res.Body))
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

// ErrorEnvelope renders {"ok":false,"error":{...}}.
func ErrorEnvelope(e *Error) string {
	clean := *e
	clean.Message = StripControls(e.Message)
	clean.Hint = StripControls(e.Hint)
	if clean.Kind == "" {
		clean.Kind = KindUnknown
	}
	b, err := json.Marshal(struct {
		OK    bool   `json:"ok"`
		Error *Error `json:"error"`
	}{false, &clean})
	if err != nil {
		// Details that do not marshal are dropped rather than lose the error.
		clean.Details = nil
		b, _ = json.Marshal(map[string]any{"ok": false, "error": &clean})
	}
	return string(b)
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
