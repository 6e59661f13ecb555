// Package lexers is chroma v2.20.0's lexers package, built on first use.
//
// Chroma's package fills its registry at init, parsing the config of each
// of its 257 embedded XML lexers (about 18 ms and 2.4 MB for every start
// of the program, code block or not). Here the configs come from a
// generated index (index.go), the registry is made when a lexer is first
// asked for, and a lexer's XML is read when it first tokenises. The
// registry holds the same lexers, in the same order, with the same configs
// and analysers, so Get, Match and Analyse choose as chroma's would.
package lexers

//go:generate go run gen_index.go

import (
	"embed"
	"encoding/xml"
	"fmt"
	"math"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/dlclark/regexp2"
)

//go:embed embedded
var embedded embed.FS

// xmlEntry is one embedded XML lexer: its file and its config.
type xmlEntry struct {
	file   string
	config chroma.Config
}

// Lexers the Go-coded ones refer to, set when the registry is made
// (chroma's package variables of the same names).
var (
	HTML           chroma.Lexer
	GoTextTemplate chroma.Lexer
)

var (
	once     sync.Once
	registry *chroma.LexerRegistry
	fallback chroma.Lexer
)

// Registry is the registry, made on first call.
func Registry() *chroma.LexerRegistry {
	once.Do(build)
	return registry
}

// Get a lexer by name, alias or file extension, as chroma's lexers.Get.
func Get(name string) chroma.Lexer { return Registry().Get(name) }

// Analyse picks the lexer whose analyser scores text highest, as chroma's
// lexers.Analyse.
func Analyse(text string) chroma.Lexer { return Registry().Analyse(text) }

// MatchMimeType finds a lexer for a MIME type, as chroma's
// lexers.MatchMimeType.
func MatchMimeType(mimeType string) chroma.Lexer { return Registry().MatchMimeType(mimeType) }

// Fallback is the plain-text lexer used when no other is found.
func Fallback() chroma.Lexer {
	once.Do(build)
	return fallback
}

// build registers the lexers in the order chroma's package does: every
// embedded XML lexer by file name, then the Go-coded ones in its package
// initialisation order (one with an XML lexer's name takes its place),
// then the analysers its init functions add.
func build() {
	reg := chroma.NewLexerRegistry()
	for i := range xmlIndex {
		reg.Register(newXMLLexer(&xmlIndex[i]))
	}
	HTML = xmlLexer("html.xml")
	for _, newLexer := range []func() chroma.Lexer{
		newCaddyfile, newCaddyfileDirectives, newCommonLisp, newEmacsLisp,
		newGemtext, newGenshiText, newGenshiHTMLTemplate, newGenshi,
		newGoHTMLTemplate,
		func() chroma.Lexer { GoTextTemplate = newGoTextTemplate(); return GoTextTemplate },
		newGo, newHaxe, newHTTP, newMarkdown, newPHTML, newRaku,
		newRestructuredtext, newSvelte, newTyposcript,
	} {
		reg.Register(newLexer())
	}
	setDNSAnalyser(reg)
	setMySQLAnalyser(reg)
	setZedAnalyser(reg)
	registry = reg
	fallback = chroma.MustNewLexer(&chroma.Config{
		Name:      "fallback",
		Filenames: []string{"*"},
		Priority:  -1,
	}, plaintextRules)
}

// plaintextRules is chroma's lexers.PlaintextRules.
func plaintextRules() chroma.Rules {
	return chroma.Rules{
		"root": []chroma.Rule{
			{Pattern: `.+`, Type: chroma.Text},
			{Pattern: `\n`, Type: chroma.Text},
		},
	}
}

// xmlLexer makes the lexer of an embedded XML file, as chroma's
// MustNewXMLLexer does, but from the index's config.
func xmlLexer(file string) *chroma.RegexLexer {
	for i := range xmlIndex {
		if xmlIndex[i].file == file {
			return newXMLLexer(&xmlIndex[i])
		}
	}
	panic("lexers: no embedded " + file)
}

func newXMLLexer(e *xmlEntry) *chroma.RegexLexer {
	l := chroma.MustNewLexer(&e.config, func() chroma.Rules { return xmlRules(e.file) })
	if e.config.Analyse != nil {
		l.SetAnalyser(xmlAnalyser(e.config.Analyse))
	}
	return l
}

// xmlRules reads a lexer's rules from its file. The files are part of the
// program and every one is parsed by the package's tests, so failing here
// is a broken build, not bad input.
func xmlRules(file string) chroma.Rules {
	f, err := embedded.Open("embedded/" + file)
	if err != nil {
		panic(fmt.Sprintf("lexers: %s: %v", file, err))
	}
	defer f.Close()
	var lexer struct {
		Rules chroma.Rules `xml:"rules"`
	}
	if err := xml.NewDecoder(f).Decode(&lexer); err != nil {
		panic(fmt.Sprintf("lexers: %s: %v", file, err))
	}
	return lexer.Rules
}

// xmlAnalyser is the analyser chroma's NewXMLLexer makes from a config's
// <analyse> element, its regexps compiled on first use rather than when
// the lexer is made.
func xmlAnalyser(a *chroma.AnalyseConfig) func(string) float32 {
	type regexAnalyse struct {
		re    *regexp2.Regexp
		score float32
	}
	compiled := sync.OnceValue(func() []regexAnalyse {
		out := make([]regexAnalyse, 0, len(a.Regexes))
		for _, ra := range a.Regexes {
			// Every pattern is compiled by the package's tests.
			out = append(out, regexAnalyse{regexp2.MustCompile(ra.Pattern, regexp2.None), ra.Score})
		}
		return out
	})
	return func(text string) float32 {
		var score float32
		for _, ra := range compiled() {
			ok, err := ra.re.MatchString(text)
			if err != nil {
				return 0
			}
			if ok && a.First {
				return float32(math.Min(float64(ra.score), 1.0))
			}
			if ok {
				score += ra.score
			}
		}
		return float32(math.Min(float64(score), 1.0))
	}
}
