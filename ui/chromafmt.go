package ui

import (
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"
)

// codeFormatter is the name glamour is given for highlighting code blocks:
// chroma's 256-colour formatter (glamour's own choice) with its theme
// worked out once per style. Chroma's maps every entry of the style to the
// nearest palette colours on every call, which cost about half a
// millisecond a code block before any code; the live tail of an answer
// that is a code block renders ~30 times a second.
const codeFormatter = "myclaw-terminal256"

func init() { formatters.Register(codeFormatter, &cachedTTY{base: formatters.TTY256}) }

// cachedTTY writes what base writes, each token's sequence looked up in a
// cache filled by asking base once per style and token type.
type cachedTTY struct {
	base chroma.Formatter
	mu   sync.Mutex
	seqs map[*chroma.Style]map[chroma.TokenType]string
}

// probe is the text base is asked to format, to learn a token type's
// sequence: base writes the sequence, the text and a reset, or the text
// alone when the type has no style.
const probe = "x"

func (f *cachedTTY) seq(style *chroma.Style, t chroma.TokenType) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.seqs[style][t]; ok {
		return s, true
	}
	var b strings.Builder
	if err := f.base.Format(&b, style, chroma.Literator(chroma.Token{Type: t, Value: probe})); err != nil {
		return "", false
	}
	out, s := b.String(), ""
	if out != probe {
		var ok bool
		if s, ok = strings.CutSuffix(out, probe+ttyReset); !ok {
			return "", false // not the shape expected: base formats this type
		}
	}
	if f.seqs == nil {
		f.seqs = map[*chroma.Style]map[chroma.TokenType]string{}
	}
	if f.seqs[style] == nil {
		f.seqs[style] = map[chroma.TokenType]string{}
	}
	f.seqs[style][t] = s
	return s, true
}

func (f *cachedTTY) Format(w io.Writer, style *chroma.Style, it chroma.Iterator) error {
	for tok := it(); tok != chroma.EOF; tok = it() {
		s, ok := f.seq(style, tok.Type)
		if !ok {
			if err := f.base.Format(w, style, chroma.Literator(tok)); err != nil {
				return err
			}
			continue
		}
		writeTTYToken(w, s, tok.Value)
	}
	return nil
}

const ttyReset = "\033[0m"

var ttyNewline = regexp.MustCompile(`\r?\n`)

// writeTTYToken writes text in the style seq as chroma's terminal
// formatters do: the style is ended before each line break and taken up
// again after it.
func writeTTYToken(w io.Writer, seq, text string) {
	if seq == "" {
		_, _ = io.WriteString(w, text)
		return
	}
	if !strings.Contains(text, "\n") {
		_, _ = io.WriteString(w, seq+text+ttyReset)
		return
	}
	var b strings.Builder
	last := 0
	for _, ix := range ttyNewline.FindAllStringIndex(text, -1) {
		b.WriteString(seq)
		b.WriteString(text[last:ix[0]])
		b.WriteString(ttyReset)
		b.WriteString(text[ix[0]:ix[1]])
		last = ix[1]
	}
	if last < len(text) {
		b.WriteString(seq)
		b.WriteString(text[last:])
		b.WriteString(ttyReset)
	}
	_, _ = io.WriteString(w, b.String())
}
