package glamour

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/charmbracelet/glamour/styles"
)

// A list item too long for the width goes on under its text, past its
// marker, however wide the marker; a code line a tab stop (8 cells) past
// its indentation.
func TestWrappedItemsAndCodeKeepTheirIndent(t *testing.T) {
	const text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma"
	for _, tt := range []struct{ src, marker string }{
		{"- " + text, "• "},
		{"* " + text, "• "},
		{"1. " + text, "1. "},
		{"10. " + text, "10. "},
		{"- [ ] " + text, "[ ] "},
		{"- x\n  - " + text, "• "},
		{"```\n" + strings.ReplaceAll(text, " ", "_") + " " + text + "\n```", "tab stop"},
	} {
		r, err := NewTermRenderer(WithStyles(styles.DarkStyleConfig), WithWordWrap(40))
		if err != nil {
			t.Fatal(err)
		}
		out, err := r.Render(tt.src)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, l := range strings.Split(ansi.Strip(out), "\n") {
			if strings.TrimSpace(l) != "" && strings.TrimSpace(l) != "• x" {
				lines = append(lines, strings.TrimRight(l, " "))
			}
		}
		if len(lines) < 3 {
			t.Fatalf("%q did not wrap: %q", tt.src, lines)
		}
		first := lines[0]
		hang := ansi.StringWidth(tt.marker)
		if tt.marker == "tab stop" {
			hang = 8
		}
		col := len(first) - len(strings.TrimLeft(first, " ")) + hang
		for _, l := range lines[1:] {
			if ansi.StringWidth(l) > 40 {
				t.Errorf("%q: line %q wider than 40", tt.src, l)
			}
			if lead := len(l) - len(strings.TrimLeft(l, " ")); lead != col {
				t.Errorf("%q: a wrapped line starts at %d, not %d:\n%s", tt.src, lead, col, strings.Join(lines, "\n"))
				break
			}
		}
	}
}
