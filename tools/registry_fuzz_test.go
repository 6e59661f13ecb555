package tools

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzValidate feeds arbitrary bytes as the arguments of two realistic
// tools (fs_write's strict schema and one with nested objects, arrays, enums
// and bounds). Validate must never panic; a refusal is an invalid_args error
// with a message and a hint; an accepted call yields canonical JSON, an
// object, that validates again to exactly itself.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{
		``,
		`{}`,
		`{"path":"a.txt","content":"hello"}`,
		`{"path":"a.txt","content":"x","extra":1}`,
		`{"path":1,"content":null}`,
		`{"path":"a","path":"b","content":""}`,
		`{"path":"\u0061","content":"\ud800\udc00 \ud800"}`,
		`{"path":"a","content":"` + "\xff\xfe" + `"}`,
		`{"mode":"a","n":1e400,"tags":["x"],"opt":{"deep":true},"a/b":"s"}`,
		`{"n":-0,"tags":[],"opt":{}}`,
		`{"opt":{"deep":true,"deep":false}}`,
		`[[[[[[[[[[]]]]]]]]]]`,
		`{"a":{"b":{"c":{"d":[1,2,{"e":null}]}}}}`,
		`"string"`,
		`{"path":"a"} trailing`,
		`{"path":`,
		`nul`,
		`{"n":12345678901234567890123456789012345678901234567890}`,
	} {
		f.Add([]byte(s))
	}
	r := regValidator()
	f.Fuzz(func(t *testing.T, raw []byte) {
		if json.Valid(raw) {
			// The fast duplicate-key scan agrees with the token walk.
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			_, err := decodeValue(dec, "")
			slow := err != nil && strings.HasPrefix(err.Error(), "duplicate key")
			if fast := hasDuplicateKey(raw); fast != slow {
				t.Fatalf("hasDuplicateKey(%q) = %v; the token walk says %v (%v)", raw, fast, slow, err)
			}
		}
		for _, tool := range []string{"fs_write", "rich", "noargs"} {
			canon, e := r.Validate(tool, json.RawMessage(raw))
			if e != nil {
				if canon != nil {
					t.Fatalf("%s: Validate returned %s with error %v", tool, canon, e)
				}
				if e.Kind != KindInvalidArgs || e.Message == "" || e.Hint == "" {
					t.Fatalf("%s: refusal %+v; want invalid_args with a message and a hint", tool, e)
				}
				continue
			}
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(canon, &obj); err != nil {
				t.Fatalf("%s: canonical %s is not a JSON object: %v", tool, canon, err)
			}
			again, e := r.Validate(tool, canon)
			if e != nil {
				t.Fatalf("%s: canonical %s refused: %v", tool, canon, e)
			}
			if string(again) != string(canon) {
				t.Fatalf("%s: canonical %s validates to %s", tool, canon, again)
			}
		}
	})
}
