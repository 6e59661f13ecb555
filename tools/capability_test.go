package tools

import "testing"

func TestParseCapability(t *testing.T) {
	tests := []struct {
		in                   string
		kind, action, target string
	}{
		{"fs:write:notes/a.txt", "fs", "write", "notes/a.txt"},
		{`fs:write:C:\x\y`, "fs", "write", `C:\x\y`},
		{"net:http:example.com:8080", "net", "http", "example.com:8080"},
		{"shell:exec", "shell", "exec", ""},
		{"", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			c := ParseCapability(tt.in)
			if c.Raw != tt.in || c.Kind != tt.kind || c.Action != tt.action || c.Target != tt.target {
				t.Errorf("ParseCapability(%q) = %+v", tt.in, c)
			}
		})
	}
	if !ParseCapability("memory:write:k").Is("memory", "write") || ParseCapability("fs:read:x").Is("fs", "write") || !ParseCapability("fs:read:x").Is("fs", "") {
		t.Error("Is")
	}
}
