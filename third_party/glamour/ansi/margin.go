package ansi

import (
	"bytes"
	"io"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// MarginWriter is a Writer that applies indentation and padding around
// whatever you write to it.
//
// Upstream chains reflow's indent and padding writers, which pass every
// rune through four state machines, each rune its own Write: a block's
// padding is a styled space per cell, and a document's margins go over
// every cell of its blocks again. This writer runs the same four machines
// (the indent writer, its ANSI writer, the padding writer, its ANSI
// writer) and writes the same bytes, but takes a run of plain characters
// or a colour sequence at once.
type MarginWriter struct {
	w io.Writer

	indent  uint
	indentS func() string // the indentation cell, styled once
	width   uint
	padS    func() string // the padding cell, styled once

	indentOnly bool // no padding writer: the indent writer writes out

	iAnsi, skipIndent bool     // reflow's indent.Writer
	a1                ansiSeqs // its ansi.Writer
	pAnsi             bool     // reflow's padding.Writer
	lineLen           int
	a2                ansiSeqs // its ansi.Writer
	rb                [utf8.UTFMax]byte
}

// ansiSeqs is the state of reflow's ansi.Writer: the sequence being read,
// and the sequences since the last reset, which it writes again after a
// line break.
type ansiSeqs struct {
	ansi, changed bool
	seq, last     []byte
}

// NewMarginWriter returns a new MarginWriter.
func NewMarginWriter(ctx RenderContext, w io.Writer, rules StyleBlock) *MarginWriter {
	bs := ctx.blockStack

	var indentation uint
	var margin uint
	if rules.Indent != nil {
		indentation = *rules.Indent
	}
	if rules.Margin != nil {
		margin = *rules.Margin
	}

	// The padding and the indent are written a cell at a time, always
	// the same styled string: it is styled once, when first needed, not
	// for every cell. The closures take only what they need: taking ctx
	// or rules would copy them (and every style of the document) to the
	// heap at each block.
	profile, padStyle := ctx.options.ColorProfile, rules.StylePrimitive
	var pad *string
	padS := func() string {
		if pad == nil {
			s := styledText(profile, padStyle, " ")
			pad = &s
		}
		return *pad
	}

	ic := " "
	if rules.IndentToken != nil {
		ic = *rules.IndentToken
	}
	var ind *string
	indentS := func() string {
		if ind == nil {
			s := ""
			if ic != "" {
				s = styledText(profile, bs.Parent().Style.StylePrimitive, ic)
			}
			ind = &s
		}
		return *ind
	}

	width := bs.Width(ctx)
	if ctx.options.TrimPadding && invisiblePadding(*bs) {
		width = 0
	}
	return newMarginWriter(w, indentation+margin, width, indentS, padS)
}

// invisiblePadding reports whether padding a line shows nothing, in the
// block being finished (the top of the stack, whose style the margins
// take) and where the enclosing blocks pad the line further.
func invisiblePadding(stack BlockStack) bool {
	for _, b := range stack {
		if visibleSpace(b.Style.StylePrimitive) {
			return false
		}
	}
	return true
}

// visibleSpace reports whether a space styled with p can be seen.
func visibleSpace(p StylePrimitive) bool {
	set := func(b *bool) bool { return b != nil && *b }
	return p.BackgroundColor != nil || set(p.Underline) || set(p.Inverse) || set(p.CrossedOut)
}

func newMarginWriter(w io.Writer, indent, width uint, indentS, padS func() string) *MarginWriter {
	return &MarginWriter{w: w, indent: indent, indentS: indentS, width: width, padS: padS}
}

// newIndentWriter is reflow's indent writer alone, without the padding
// writer after it, as code blocks use it: the first two of the four
// machines.
func newIndentWriter(w io.Writer, indent uint, indentS func() string) *MarginWriter {
	return &MarginWriter{w: w, indent: indent, indentS: indentS, indentOnly: true}
}

func (w *MarginWriter) Write(b []byte) (int, error) {
	for i := 0; i < len(b); {
		c := b[i]
		idle := !w.iAnsi && !w.a1.ansi && !w.pAnsi && !w.a2.ansi
		switch {
		case idle && c >= 0x20 && c < 0x7f:
			// Plain characters: each goes through all four unchanged,
			// one cell wide; the first of a line brings the indent.
			j := i + 1
			for j < len(b) && b[j] >= 0x20 && b[j] < 0x7f {
				j++
			}
			w.startLine()
			w.lineLen += j - i
			_, _ = w.w.Write(b[i:j])
			i = j
			continue
		case idle && c == 0x1b && i+1 < len(b) && b[i+1] == '[':
			// A colour sequence: no machine sees a character in it.
			j := i + 2
			for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == ';') {
				j++
			}
			if j < len(b) && b[j] == 'm' {
				seq := b[i : j+1]
				w.a1.sgr(seq)
				w.a2.sgr(seq)
				_, _ = w.w.Write(seq)
				i = j + 1
				continue
			}
		}
		r, n := utf8.DecodeRune(b[i:])
		w.indentRune(r)
		i += n
	}
	return len(b), nil
}

// sgr is what the ANSI writer does with a whole SGR sequence.
func (a *ansiSeqs) sgr(seq []byte) {
	a.changed = true
	if bytes.HasSuffix(seq, []byte("[0m")) {
		a.last, a.changed = a.last[:0], false
	} else {
		a.last = append(a.last, seq...)
	}
}

// startLine writes the indent before the first character of a line.
func (w *MarginWriter) startLine() {
	if w.skipIndent {
		return
	}
	if w.a1.changed {
		w.padRunes([]byte("\x1b[0m"))
	}
	for range w.indent {
		_, _ = io.WriteString(w.w, w.indentS())
	}
	w.skipIndent = true
	w.padRunes(w.a1.last)
}

// indentRune is reflow's indent.Writer given one rune.
func (w *MarginWriter) indentRune(r rune) {
	switch {
	case r == 0x1b:
		w.iAnsi = true
	case w.iAnsi:
		if r >= 0x41 && r <= 0x5a || r >= 0x61 && r <= 0x7a {
			w.iAnsi = false
		}
	default:
		w.startLine()
		if r == '\n' {
			w.skipIndent = false
		}
	}
	// Its ANSI writer, which forwards to the padding writer.
	enc := utf8.AppendRune(w.rb[:0], r)
	switch {
	case r == 0x1b:
		w.a1.ansi, w.a1.changed = true, true
		w.a1.seq = append(w.a1.seq, enc...)
	case w.a1.ansi:
		w.a1.seq = append(w.a1.seq, enc...)
		if isTerminator(r) {
			w.a1.ansi = false
			if bytes.HasSuffix(w.a1.seq, []byte("[0m")) {
				w.a1.last, w.a1.changed = w.a1.last[:0], false
			} else if r == 'm' {
				w.a1.last = append(w.a1.last, w.a1.seq...)
			}
			seq := w.a1.seq
			w.a1.seq = nil
			w.padRunes(seq)
			w.a1.seq = seq[:0]
		}
	default:
		w.padRunes(enc)
	}
}

// padRunes is reflow's padding.Writer given b.
func (w *MarginWriter) padRunes(b []byte) {
	if w.indentOnly {
		_, _ = w.w.Write(b)
		return
	}
	for _, c := range string(b) {
		switch {
		case c == 0x1b:
			w.pAnsi = true
		case w.pAnsi:
			if c >= 0x41 && c <= 0x5a || c >= 0x61 && c <= 0x7a {
				w.pAnsi = false
			}
		default:
			w.lineLen += runewidth.StringWidth(string(c))
			if c == '\n' {
				if w.width > 0 && uint(w.lineLen) < w.width { //nolint: gosec
					for range int(w.width) - w.lineLen { //nolint: gosec
						_, _ = io.WriteString(w.w, w.padS())
					}
				}
				if w.a2.changed {
					_, _ = io.WriteString(w.w, "\x1b[0m")
				}
				w.lineLen = 0
			}
		}
		// Its ANSI writer, which writes out.
		enc := utf8.AppendRune(w.rb[:0], c)
		switch {
		case c == 0x1b:
			w.a2.ansi, w.a2.changed = true, true
			w.a2.seq = append(w.a2.seq, enc...)
		case w.a2.ansi:
			w.a2.seq = append(w.a2.seq, enc...)
			if isTerminator(c) {
				w.a2.ansi = false
				if bytes.HasSuffix(w.a2.seq, []byte("[0m")) {
					w.a2.last, w.a2.changed = w.a2.last[:0], false
				} else if c == 'm' {
					w.a2.last = append(w.a2.last, w.a2.seq...)
				}
				_, _ = w.w.Write(w.a2.seq)
				w.a2.seq = w.a2.seq[:0]
			}
		default:
			_, _ = w.w.Write(enc)
		}
	}
}

func isTerminator(c rune) bool {
	return (c >= 0x40 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)
}
