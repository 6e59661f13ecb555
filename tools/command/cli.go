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
	namespace, short, ok := strings.Cut(m.Name, "/")
	if !ok {
		namespace, short = "", m.Name
	}
	source := string(m.Source)
	if source == "" {
		source = "unknown"
	}
	out := [][2]string{
		{"name", m.Name},
		{"namespace", namespace},
		{"short_name", short},
		{"source", source},
		{"description", m.Description},
		{"read_only", strconv.FormatBool(m.ReadOnly)},
		{"has_side_effects", strconv.FormatBool(m.HasSideEffects())},
		{"risk", string(m.EffectiveRisk())},
		{"idempotent", strconv.FormatBool(m.Idempotent)},
		{"returns_untrusted", strconv.FormatBool(m.ReturnsUntrusted)},
		{"supports_dry_run", strconv.FormatBool(m.SupportsDryRun)},
		{"capability", m.Capability},
		{"timeout", strconv.Itoa(int(m.EffectiveTimeout().Seconds())) + "s"},
	}
	if m.Claims != "" {
		out = append(out, [2]string{"claims", m.Claims})
	}
	if m.Changed != "" {
		out = append(out, [2]string{"changed", m.Changed})
	}
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
