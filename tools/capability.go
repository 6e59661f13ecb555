package tools

import "strings"

// Capability is a call's concrete capability, "kind:action:target" (e.g.
// "fs:write:notes/a.txt", "net:http:example.com", "shell:exec"), parsed
// once so that nobody cuts the string by hand. A target may hold colons
// (a Windows path, a host with a port); only the first two separate.
type Capability struct {
	Raw, Kind, Action, Target string
}

// ParseCapability splits s; missing parts are empty.
func ParseCapability(s string) Capability {
	c := Capability{Raw: s}
	c.Kind, s, _ = strings.Cut(s, ":")
	c.Action, c.Target, _ = strings.Cut(s, ":")
	return c
}

// Is reports whether the capability is of kind and action ("" matches any
// action).
func (c Capability) Is(kind, action string) bool {
	return c.Kind == kind && (action == "" || c.Action == action)
}
