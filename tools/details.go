package tools

import (
	"strconv"
	"strings"
)

// Detailer is implemented by tools with more to say in /tools NAME than
// their Meta: ordered key/value pairs that follow MetaDetails.
type Detailer interface {
	Details() [][2]string
}

// DetailsOf is the seed's as_cli_dict of t: MetaDetails, then what the
// tool adds as a Detailer.
func DetailsOf(t Tool) [][2]string {
	out := MetaDetails(t.Meta())
	if d, ok := t.(Detailer); ok {
		out = append(out, d.Details()...)
	}
	return out
}

// MetaDetails is what every tool shows in /tools NAME, from its Meta, in a
// stable order: booleans "true"/"false", the timeout in seconds ("300s").
func MetaDetails(m Meta) [][2]string {
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
	return out
}
