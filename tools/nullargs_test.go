package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidateDropsOptionalNulls(t *testing.T) {
	r := NewRegistry()
	r.MustRegister(regTool("srv/opts", `{
	  "type": "object",
	  "properties": {
	    "q": {"type": "string"},
	    "verbose": {"type": "boolean"},
	    "maybe": {"type": ["string", "null"]},
	    "either": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
	    "must": {"type": "string"},
	    "nested": {"type": "object", "properties": {"limit": {"type": "integer"}}, "additionalProperties": false},
	    "ref": {"$ref": "#/$defs/opt"}
	  },
	  "required": ["q"],
	  "additionalProperties": false,
	  "$defs": {"opt": {"type": "object", "properties": {"depth": {"type": "integer"}}}}
	}`, SourceMCP))
	r.MustRegister(regTool("srv/req", `{
	  "type": "object",
	  "properties": {"q": {"type": "string"}},
	  "required": ["q"]
	}`, SourceMCP))
	tests := []struct {
		name, tool, args, want, wantErr string
	}{
		{"optional null dropped", "srv/opts", `{"q":"x","verbose":null}`, `{"q":"x"}`, ""},
		{"several dropped", "srv/opts", `{"q":"x","verbose":null,"must":null}`, `{"q":"x"}`, ""},
		{"nullable type kept", "srv/opts", `{"q":"x","maybe":null}`, `{"maybe":null,"q":"x"}`, ""},
		{"null branch kept", "srv/opts", `{"q":"x","either":null}`, `{"either":null,"q":"x"}`, ""},
		{"nested optional null dropped", "srv/opts", `{"q":"x","nested":{"limit":null}}`, `{"nested":{},"q":"x"}`, ""},
		{"through a ref", "srv/opts", `{"q":"x","ref":{"depth":null}}`, `{"q":"x","ref":{}}`, ""},
		{"required null still refused", "srv/req", `{"q":null}`, "", "/q: got null, want string"},
		{"undeclared null still refused", "srv/opts", `{"q":"x","other":null}`, "", "additional properties 'other' not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, e := r.Validate(tt.tool, json.RawMessage(tt.args))
			if tt.wantErr != "" {
				if e == nil || !strings.Contains(e.Message, tt.wantErr) {
					t.Fatalf("Validate(%s) = %s, %v; want an error saying %q", tt.args, got, e, tt.wantErr)
				}
				return
			}
			if e != nil {
				t.Fatalf("Validate(%s) error %v; want %s", tt.args, e, tt.want)
			}
			if string(got) != tt.want {
				t.Errorf("Validate(%s) = %s; want %s", tt.args, got, tt.want)
			}
		})
	}
}
