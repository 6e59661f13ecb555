package ui

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"
)

// colourDoc has every kind of block an answer holds.
const colourDoc = "## Section 1: The render loop\n\n" +
	"This is a paragraph with **bold**, *italic*, `code()` and ~~struck~~ text, long enough to wrap at the width it is drawn at, twice or more when narrow.\n\n" +
	"- one item\n- two `items`\n- three **items**\n\n" +
	"1. first\n2. second\n\n" +
	"> a quote\n\n" +
	"```go\nfunc (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {\n\ts := `raw\nstring`\n\treturn m, nil\n}\n```\n\n" +
	"```python\ndef f(x):\n    \"\"\"doc\"\"\"\n    return x ** 2\n```\n\n" +
	"| name | value | note |\n| --- | ---: | --- |\n| are | 992 | more |\n| interface | 49 | like |\n"

// The markdown rendering, in colours, is what glamour v1.0.0 and chroma's
// 256-colour formatter drew before the drawing was made cheaper (the
// golden file was written by them): the cached styles change no byte.
// One change is meant: the Go line too long for 40 columns goes on at
// the code block's margin, where glamour went on at the document's
// (third_party/glamour/FORK.md).
// (No comments in the code: chroma picks the palette colour of the
// theme's comment grey among two as near, by map order, run to run.)
func TestMarkdownColoursGolden(t *testing.T) {
	var out strings.Builder
	for _, profile := range []termenv.Profile{termenv.ANSI256, termenv.TrueColor} {
		for _, theme := range []Theme{DarkTheme, LightTheme} {
			md := newMarkdown(theme, profile, slog.Default())
			for _, width := range []int{40, 100} {
				fmt.Fprintf(&out, "== profile %d dark %v width %d\n", profile, theme.Dark, width)
				for _, block := range strings.Split(colourDoc, "\n\n") {
					out.WriteString(strings.Join(md.render(block, width), "\n"))
					out.WriteString("\n--\n")
				}
			}
		}
	}
	golden.RequireEqual(t, []byte(out.String()))
}
