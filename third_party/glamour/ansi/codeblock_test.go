package ansi

import (
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"
	chromalexers "github.com/alecthomas/chroma/v2/lexers"

	"github.com/charmbracelet/glamour/internal/lexers"
)

// chromaHighlight is highlight as it was, with chroma's own lexers, but for
// Jungle, which the registry leaves out (its lexer never ends on this
// sample): that falls back as a language chroma does not know.
func chromaHighlight(w *strings.Builder, source, lexer string) error {
	l := chromalexers.Get(lexer)
	if l != nil && l.Config().Name == "Jungle" {
		l = nil
	}
	if l == nil {
		l = chromalexers.Analyse(source)
	}
	if l == nil {
		l = chromalexers.Fallback
	}
	it, err := chroma.Coalesce(l).Tokenise(nil, source)
	if err != nil {
		return err
	}
	return formatters.Get(chromaFormatter).Format(w, fallbackStyle(), it)
}

// A code block in every language the registry keeps, and in some it does
// not know, renders byte for byte as it did with chroma's lexers.
func TestHighlightAsWithChromasLexers(t *testing.T) {
	const sample = "#!/bin/sh\n# comment\n// comment\n/* block */ <!-- html -->\n" +
		"package main\nimport \"fmt\"\nfunc main() { fmt.Println(\"hi\", 42, 3.14, 'c', `raw`) }\n" +
		"def f(x):\n    return x ** 2  # py\n<div class=\"a\">text &amp; <b>bold</b></div>\n" +
		"SELECT * FROM t WHERE a = 'b';\nkey: value\n[section]\nname = \"v\"\n{\"json\": [1, true, null]}\n"
	langs := []string{"", "nosuchlang", "jungle", "main.go", "Dockerfile"}
	for _, l := range lexers.Registry().Lexers {
		langs = append(langs, l.Config().Name)
		langs = append(langs, l.Config().Aliases...)
	}
	for _, lang := range langs {
		var got, want strings.Builder
		if err := highlight(&got, sample, lang, chromaFormatter, "", false); err != nil {
			t.Fatalf("%q: %v", lang, err)
		}
		if err := chromaHighlight(&want, sample, lang); err != nil {
			t.Fatalf("%q with chroma's lexers: %v", lang, err)
		}
		if got.String() != want.String() {
			t.Errorf("%q renders\n%q\nchroma's lexers\n%q", lang, head(got.String()), head(want.String()))
		}
	}
}

func head(s string) string { return s[:min(len(s), 300)] }
