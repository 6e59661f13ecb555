package ui

import (
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

// The cached formatter writes exactly what chroma's 256-colour formatter
// writes, tokens spanning lines (comments, raw strings) included, for
// several styles and for a second use of the same style (from the cache).
func TestCachedTTYMatchesChroma(t *testing.T) {
	code := map[string]string{
		"go":     "package main\n\n/* a comment\r\nover lines */\nfunc main() {\n\ts := `raw\nstring`\n\tprintln(s, 42, 'x') // done\n}\n",
		"python": "def f(x):\n    \"\"\"doc\n    string\"\"\"\n    return x ** 2  # square\n",
		"text":   "plain\nlines\n",
	}
	cached := formatters.Get(codeFormatter)
	if cached == nil {
		t.Fatal("the cached formatter is not registered")
	}
	for _, name := range []string{"monokai", "github", "dracula"} {
		style := styles.Get(name)
		for round := range 2 {
			for lang, src := range code {
				lex := chroma.Coalesce(lexers.Get(lang))
				format := func(f chroma.Formatter) string {
					it, err := lex.Tokenise(nil, src)
					if err != nil {
						t.Fatal(err)
					}
					var b strings.Builder
					if err := f.Format(&b, style, it); err != nil {
						t.Fatal(err)
					}
					return b.String()
				}
				want, got := format(formatters.TTY256), format(cached)
				if got != want {
					t.Errorf("%s %s round %d:\n got %q\nwant %q", name, lang, round, got, want)
				}
			}
		}
	}
}
