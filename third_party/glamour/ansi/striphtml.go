package ansi

import (
	"errors"
	"io"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// stripHTML is what bluemonday.StrictPolicy().Sanitize does, which is all
// glamour asks of bluemonday: every tag, comment and doctype is dropped,
// the content of script, style and the elements below with it, and the
// rest of the text is kept, HTML-escaped. Linking bluemonday cost every
// start of the program its CSS packages' inits (about 1 MB and several
// milliseconds) for this.
func stripHTML(s string) string {
	if strings.TrimSpace(s) == "" {
		return s
	}
	var (
		b        strings.Builder
		skip     bool
		skipping int64
		recent   string // the most recently started element
	)
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		if z.Next() == html.ErrorToken {
			if errors.Is(z.Err(), io.EOF) {
				return b.String()
			}
			return "" // as bluemonday does on a tokenizer error
		}
		t := z.Token()
		switch t.Type {
		case html.StartTagToken:
			recent = normaliseElementName(t.Data)
			if recent == "script" || recent == "style" {
				continue
			}
			if skipContent[t.Data] {
				skip = true
				skipping++
			}
		case html.EndTagToken:
			name := normaliseElementName(t.Data)
			if recent == name {
				recent = ""
			}
			if name == "script" || name == "style" {
				continue
			}
			if skipContent[t.Data] {
				skipping--
				if skipping == 0 {
					skip = false
				}
			}
		case html.TextToken:
			if !skip && recent != "script" && recent != "style" {
				b.WriteString(t.String())
			}
		}
	}
}

// skipContent are the elements whose content bluemonday's policies drop
// by default.
var skipContent = map[string]bool{
	"frame": true, "frameset": true, "iframe": true, "noembed": true,
	"noframes": true, "noscript": true, "nostyle": true, "object": true,
	"script": true, "style": true, "title": true,
}

// normaliseElementName is bluemonday's: lower case, with non-ASCII
// escaped, so a look-alike letter cannot make a name read "script".
func normaliseElementName(str string) string {
	return strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(strconv.QuoteToASCII(str)), `"`), `"`)
}
