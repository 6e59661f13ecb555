package command

import (
	"strconv"
	"strings"

	"myclaw/tools"
)

// CLIDict returns the seed's as_cli_dict for /tools: a stable, ordered list
// of (key, value) pairs. Every tool gets the same leading keys, from its
// Meta; a command tool (s non-nil) adds the capability fields of its entry,
// its command, working directory and origin. Booleans are "true"/"false",
// lists comma-separated ("" when empty), the timeout in seconds ("300s").
func CLIDict(m tools.Meta, s *Spec) [][2]string {
	out := tools.MetaDetails(m)
	if s == nil {
		return out
	}
	c := s.Capability
	return append(out,
		[2]string{"writes", strconv.FormatBool(c.Writes)},
		[2]string{"write_scope", c.WriteScope},
		[2]string{"checkpointable", strconv.FormatBool(c.Checkpointable)},
		[2]string{"side_effects", strings.Join(c.SideEffects, ", ")},
		[2]string{"unsafe", strconv.FormatBool(c.Unsafe)},
		[2]string{"human_approval_required", strconv.FormatBool(c.HumanApprovalRequired)},
		[2]string{"command", quoteArgv(s.Command)},
		[2]string{"dir", s.Dir},
		[2]string{"origin", s.Origin},
	)
}

// Details implements tools.Detailer: the capability fields of the entry,
// its command, working directory and origin, after the Meta's keys.
func (t *commandTool) Details() [][2]string {
	return CLIDict(t.meta, &t.spec)[len(tools.MetaDetails(t.meta)):]
}
