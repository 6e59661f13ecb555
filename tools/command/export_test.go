package command

import "myclaw/tools"

// SpecOf returns the entry a command tool was built from (a copy), for
// CLIDict; ok is false for any other tool.
func SpecOf(t tools.Tool) (spec *Spec, ok bool) {
	ct, ok := t.(*commandTool)
	if !ok {
		return nil, false
	}
	s := ct.spec
	s.Command = append([]string(nil), s.Command...)
	s.Capability.SideEffects = append([]string(nil), s.Capability.SideEffects...)
	return &s, true
}
