package glamour

import (
	"strings"
	"testing"

	"github.com/charmbracelet/glamour/ansi"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

func str(s string) *string { return &s }

func yes() *bool { b := true; return &b }

func one() *uint { n := uint(1); return &n }

// renderAt renders src with styles at width 30.
func renderAt(t *testing.T, styles ansi.StyleConfig, src string, opts ...TermRendererOption) string {
	t.Helper()
	r, err := NewTermRenderer(append([]TermRendererOption{WithStyles(styles), WithWordWrap(30), WithColorProfile(termenv.ANSI256)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Render(src)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestVisiblePaddingIsKept: WithoutInvisiblePadding leaves a block's
// padding out only where no space of it could be seen, in the block and
// in every block around it; elsewhere the render is upstream's.
func TestVisiblePaddingIsKept(t *testing.T) {
	const src = "short\n\n> quoted"
	plain := ansi.StyleConfig{
		Document:   ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Color: str("252")}},
		BlockQuote: ansi.StyleBlock{Indent: one(), IndentToken: str("│ ")},
		Paragraph:  ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Color: str("252")}},
	}
	first := strings.Split(strings.TrimLeft(renderAt(t, plain, src, WithoutInvisiblePadding()), "\n"), "\n")[0]
	if w := xansi.StringWidth(first); w != 5 {
		t.Fatalf("invisible padding left out: first line %q is %d wide, want 5", first, w)
	}
	for name, visible := range map[string]ansi.StylePrimitive{
		"background":    {BackgroundColor: str("63")},
		"underline":     {Underline: yes()},
		"inverse":       {Inverse: yes()},
		"strikethrough": {CrossedOut: yes()},
	} {
		own := plain
		own.Paragraph.StylePrimitive = visible
		around := plain
		// The quote's own paragraph is plain; the quote's padding shows.
		around.BlockQuote.StylePrimitive = visible
		for what, c := range map[string]struct {
			styles ansi.StyleConfig
			src    string
		}{"paragraph": {own, "short"}, "quote around a paragraph": {around, "> quoted"}} {
			got := strings.Split(renderAt(t, c.styles, c.src, WithoutInvisiblePadding()), "\n")
			want := strings.Split(renderAt(t, c.styles, c.src), "\n")
			if len(got) != len(want) {
				t.Fatalf("%s with a %s: %d lines, want upstream's %d", what, name, len(got), len(want))
			}
			for i := range got {
				// The document's blank lines around the block are
				// plain and lose their padding.
				if strings.TrimSpace(xansi.Strip(want[i])) != "" && got[i] != want[i] {
					t.Errorf("%s with a %s: line %d is %d bytes, want upstream's %d", what, name, i, len(got[i]), len(want[i]))
				}
			}
		}
	}
}
