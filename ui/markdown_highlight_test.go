package ui

import (
	"flag"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/muesli/termenv"
)

var updateHighlight = flag.Bool("update-highlight", false, "rewrite testdata/codeblocks.golden")

// highlightCases are code blocks as the transcript draws them: a named
// language, an alias, one told by its content alone, an unknown one, and
// one the lexers know only as a filename.
var highlightCases = []string{
	"```go\npackage main\n\n// main says hello.\nfunc main() { fmt.Println(\"hi\", 42) }\n```",
	"```py\ndef f(x):\n    return x * 2  # twice\n```",
	"```\n#!/bin/sh\nset -e\necho \"$HOME\"\n```",
	"```nosuchlanguage\nplain words here\n```",
	"```rust\nfn main() { let v: Vec<u8> = vec![1]; }\n```",
	"```yaml\nkey: [1, 'two']\n```",
	"```diff\n-old\n+new\n```",
}

// TestCodeBlocksHighlighted pins what code blocks look like, escape for
// escape, in both built-in themes and in a 256-colour and a colourless
// terminal: the highlighter is kept out of the start-up path (see
// third_party/glamour), and this shows it still colours as before.
func TestCodeBlocksHighlighted(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var got strings.Builder
	for _, theme := range []Theme{DarkTheme, LightTheme} {
		for _, profile := range []termenv.Profile{termenv.ANSI256, termenv.TrueColor, termenv.Ascii} {
			md := newMarkdown(theme, profile, log)
			for _, src := range highlightCases {
				got.WriteString("=== " + theme.Name + " " + profile.Name() + " " + strings.SplitN(src, "\n", 2)[0] + "\n")
				for _, l := range md.render(src, 60) {
					got.WriteString(strings.ReplaceAll(l, "\x1b", `\e`) + "\n")
				}
			}
		}
	}
	const golden = "testdata/codeblocks.golden"
	if *updateHighlight {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	// chroma's 256-colour table breaks a tie between 241 and 242 (glamour's
	// comment grey lies halfway) in map order, so either may come out.
	tie := strings.NewReplacer("38;5;241m", "38;5;242m")
	if tie.Replace(got.String()) != tie.Replace(string(want)) {
		t.Errorf("code blocks render differently from %s:\n%s", golden, got.String())
	}
	if !strings.Contains(got.String(), `\e[38;5;`) {
		t.Error("no colour in any code block")
	}
}
