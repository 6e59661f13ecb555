package builtin

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// grepNaive is the definition grepMatcher must agree with: the regexp run
// on every line.
func grepNaive(re *regexp.Regexp, data []byte) []string {
	var out []string
	for no := 1; len(data) > 0; no++ {
		var line []byte
		line, data = grepNextLine(data)
		if re.Match(line) {
			out = append(out, fmt.Sprintf("%d:%s", no, line))
		}
	}
	return out
}

func grepFast(re *regexp.Regexp, data []byte) []string {
	var out []string
	newGrepMatcher(re).each(data, func(no int, line []byte) bool {
		out = append(out, fmt.Sprintf("%d:%s", no, line))
		return true
	})
	return out
}

func TestGrepMatcherFastPaths(t *testing.T) {
	tests := []struct {
		expr  string
		lit   string // "" for none
		fold  bool
		exact bool
	}{
		{"func NewServer", "func NewServer", false, true},
		{`(?i)context\.Context`, "context.context", true, true},
		{`^func \w+\(`, "func ", false, false},
		{`[Nn]ee+dle\b`, "dle", false, false},
		{`(?i)task`, "ta", true, false}, // k folds with the Kelvin sign
		{`(?i)ünïcode`, "code", true, false},
		{`foo|bar`, "", false, false},
		{`\w+`, "", false, false},
		{`x*`, "", false, false},
		{`(abc){2,}z`, "abc", false, false},
		{`(abc)?zz`, "zz", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			t.Parallel()
			m := newGrepMatcher(regexp.MustCompile(tt.expr))
			if string(m.lit) != tt.lit || m.fold != tt.fold || m.exact != tt.exact {
				t.Errorf("got literal %q fold %v exact %v; want %q %v %v", m.lit, m.fold, m.exact, tt.lit, tt.fold, tt.exact)
			}
		})
	}
}

func TestGrepMatcherAgreesWithRegexp(t *testing.T) {
	text := strings.Join([]string{
		"package main",
		"func NewServer() {}\r",
		"// func NewServer twice: func NewServer",
		"ctx CONTEXT.context Context.Context",
		"a TASK for the \u212Aelvin TA\u212A",
		"",
		"needle neeeedle Needle needles",
		"ünïcode ÜNÏCODE",
		"func",
	}, "\n")
	exprs := []string{
		"func NewServer", `(?i)context\.Context`, `^func`, `func$`, `Server\(\) \{\}$`,
		`(?i)task`, `(?i)TA\x{212A}`, `[Nn]ee+dle\b`, `(?i)ünïcode`, `foo|needle`, `^$`, `x*`,
		`NewServer twice`, "func NewServer\n", `e\.C`,
	}
	for _, expr := range exprs {
		re := regexp.MustCompile(expr)
		for _, data := range []string{text, text + "\n", "\n\n" + text, strings.Repeat(text+"\n", 3)} {
			if got, want := grepFast(re, []byte(data)), grepNaive(re, []byte(data)); !slices.Equal(got, want) {
				t.Errorf("%q: got\n%q\nwant\n%q", expr, got, want)
			}
		}
	}
}

func FuzzGrepMatcher(f *testing.F) {
	f.Add("abc", "xx abc\nABC abc abc\r\n\nab\nc abc", false)
	f.Add("(?i)ab\\.c", "AB.C\nab.c\nabxc", true)
	f.Add("k", "\u212A k K", true)
	f.Fuzz(func(t *testing.T, expr, data string, fold bool) {
		if fold {
			expr = "(?i)" + expr
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return
		}
		if got, want := grepFast(re, []byte(data)), grepNaive(re, []byte(data)); !slices.Equal(got, want) {
			t.Errorf("%q on %q: got %q; want %q", expr, data, got, want)
		}
	})
}
