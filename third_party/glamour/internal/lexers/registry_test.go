package lexers_test

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	chromalexers "github.com/alecthomas/chroma/v2/lexers"

	"github.com/charmbracelet/glamour/internal/lexers"
)

// dropped are chroma's lexers left out (see FORK.md): Jungle's never ends
// on most text.
var dropped = map[string]bool{"Jungle": true}

// kept is chroma's registry without the dropped lexers.
func kept() *chroma.LexerRegistry {
	reg := chroma.NewLexerRegistry()
	for _, l := range chromalexers.GlobalLexerRegistry.Lexers {
		if !dropped[l.Config().Name] {
			reg.Lexers = append(reg.Lexers, l)
		}
	}
	return reg
}

// The registry holds chroma's lexers in chroma's order, with the same
// configs and the same kinds of lexer, so a lookup by name, alias, file
// name or content chooses the same one.
func TestRegistryIsChromas(t *testing.T) {
	ours, theirs := lexers.Registry().Lexers, kept().Lexers
	if len(ours) != len(theirs) {
		t.Fatalf("%d lexers, chroma has %d", len(ours), len(theirs))
	}
	for i := range ours {
		o, c := ours[i], theirs[i]
		if !reflect.DeepEqual(o.Config(), c.Config()) {
			t.Errorf("lexer %d: config\n%#v\nchroma's\n%#v", i, o.Config(), c.Config())
		}
		ot, ct := fmt.Sprintf("%T", o), fmt.Sprintf("%T", c)
		if ot != ct {
			t.Errorf("lexer %d (%s) is a %s, chroma's a %s", i, o.Config().Name, ot, ct)
		}
	}
}

// Every name and alias, and some file names and unknown names, find the
// lexer chroma finds.
func TestGetAsChroma(t *testing.T) {
	names := []string{"", "nosuchlang", "main.go", "x.py", "Makefile", "svg", "h", "tsx", "sh", "yml", "txt", "conf", "php", "pl", "inc"}
	for _, l := range chromalexers.GlobalLexerRegistry.Lexers {
		names = append(names, l.Config().Name, strings.ToUpper(l.Config().Name))
		names = append(names, l.Config().Aliases...)
	}
	for _, name := range names {
		c := chromalexers.Get(name)
		if c != nil && dropped[c.Config().Name] {
			c = nil // as for a language chroma does not know
		}
		if o, c := nameOf(lexers.Get(name)), nameOf(c); o != c {
			t.Errorf("Get(%q) = %s, chroma's %s", name, o, c)
		}
	}
}

// Every lexer tokenises chroma's sample of its language, and a sample of
// many languages' syntax, into chroma's tokens; and each sample, given no
// language, is analysed to the same lexer (or the fallback) as chroma's.
func TestTokensAsChroma(t *testing.T) {
	samples := chromaSamples(t)
	generic := strings.Join([]string{
		"#!/bin/sh\n# comment\n// comment\n/* block */ <!-- html -->\n",
		"package main\nimport \"fmt\"\nfunc main() { fmt.Println(\"hi\", 42, 3.14, 'c', `raw`) }\n",
		"def f(x):\n    return x ** 2  # py\n<div class=\"a\">text &amp; <b>bold</b></div>\n",
		"SELECT * FROM t WHERE a = 'b';\nkey: value\n[section]\nname = \"v\"\n{\"json\": [1, true, null]}\n",
		"$var = @array; %hash; <?php echo $x; ?>\n@@ -1,2 +1,2 @@\n-old\n+new\n",
	}, "")
	// Chroma's JSONata lexer never ends on these (see FORK.md).
	escapes := generic + "\t\\escape \u00e9\u4e2d\n"
	for _, l := range lexers.Registry().Lexers {
		name := l.Config().Name
		texts := append([]string{generic}, samples[strings.ToLower(name)]...)
		if name != "JSONata" {
			texts = append(texts, escapes)
		}
		for _, a := range l.Config().Aliases {
			texts = append(texts, samples[a]...)
		}
		for _, text := range texts {
			if o, c := tokens(t, lexers.Get(name), text), tokens(t, chromalexers.Get(name), text); !reflect.DeepEqual(o, c) {
				t.Errorf("%s: %d tokens\n%v\nchroma's %d\n%v", name, len(o), head(o), len(c), head(c))
			}
		}
	}
	for file, texts := range samples {
		for _, text := range texts {
			if o, c := nameOf(pick(lexers.Analyse(text), lexers.Fallback())), nameOf(pick(kept().Analyse(text), chromalexers.Fallback)); o != c {
				t.Errorf("Analyse(sample %s) = %s, chroma's %s", file, o, c)
			}
		}
	}
	// The fallback, for a language no lexer claims and no analyser likes.
	text := "nothing to see\nhere\n"
	if l := lexers.Analyse(text); l != nil {
		t.Fatalf("Analyse(%q) = %s", text, nameOf(l))
	}
	if o, c := tokens(t, lexers.Fallback(), text), tokens(t, chromalexers.Fallback, text); !reflect.DeepEqual(o, c) {
		t.Errorf("fallback: %v, chroma's %v", o, c)
	}
}

// JSONata's last rule matched the empty string, so a character no rule
// takes (a backslash, a non-ASCII letter) stopped the lexer in its place
// forever; it now becomes an error token, as in other lexers.
func TestJSONataEnds(t *testing.T) {
	got := tokens(t, lexers.Get("jsonata"), "$x \\ \u00e9 y\n")
	want := []chroma.Token{
		{Type: chroma.NameVariable, Value: "$x"}, {Type: chroma.Text, Value: " "},
		{Type: chroma.Error, Value: "\\"}, {Type: chroma.Text, Value: " "},
		{Type: chroma.Error, Value: "\u00e9"}, {Type: chroma.Text, Value: " "},
		{Type: chroma.Name, Value: "y"}, {Type: chroma.Text, Value: "\n"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// The index is what chroma reads from each embedded file.
func TestIndexIsTheXML(t *testing.T) {
	paths, err := fs.Glob(os.DirFS("."), "embedded/*.xml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no embedded lexers: %v", err)
	}
	for _, path := range paths {
		want, err := chroma.NewXMLLexer(os.DirFS("."), path)
		if err != nil {
			t.Fatal(err)
		}
		got := lexers.Get(want.Config().Name)
		if got == nil {
			t.Errorf("%s: %s is not in the registry", path, want.Config().Name)
			continue
		}
		// A Go-coded lexer may have taken the XML one's place.
		if _, ok := got.(*chroma.RegexLexer); ok && !reflect.DeepEqual(got.Config(), want.Config()) {
			t.Errorf("%s: config\n%#v\nin the file\n%#v", path, got.Config(), want.Config())
		}
	}
}

func pick(l, fallback chroma.Lexer) chroma.Lexer {
	if l == nil {
		return fallback
	}
	return l
}

func nameOf(l chroma.Lexer) string {
	if l == nil {
		return "<nil>"
	}
	return l.Config().Name
}

func tokens(t *testing.T, l chroma.Lexer, text string) []chroma.Token {
	t.Helper()
	it, err := chroma.Coalesce(l).Tokenise(nil, text)
	if err != nil {
		t.Fatalf("%s: %v", nameOf(l), err)
	}
	return it.Tokens()
}

func head(ts []chroma.Token) []chroma.Token {
	return ts[:min(len(ts), 20)]
}

// chromaSamples reads chroma's own test inputs (lexers/testdata/*.actual,
// and those in its folders), by the lower-case name they are filed under.
func chromaSamples(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/alecthomas/chroma/v2").Output()
	if err != nil {
		t.Fatalf("finding chroma's source: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "lexers", "testdata")
	samples := map[string][]string{}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".actual") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		key := strings.ToLower(strings.TrimSuffix(rel, ".actual"))
		if i := strings.IndexByte(key, filepath.Separator); i >= 0 && !strings.HasPrefix(key, "analysis") {
			key = key[:i] // a folder of samples is named by its lexer
		}
		samples[key] = append(samples[key], string(data))
		return nil
	})
	if err != nil || len(samples) < 100 {
		t.Fatalf("chroma's samples in %s: %d, %v", dir, len(samples), err)
	}
	return samples
}
