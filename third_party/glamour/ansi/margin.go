package ansi

import (
	"fmt"
	"io"

	"github.com/muesli/reflow/indent"
	"github.com/muesli/reflow/padding"
)

// MarginWriter is a Writer that applies indentation and padding around
// whatever you write to it.
type MarginWriter struct {
	w  io.Writer
	pw *padding.Writer
	iw *indent.Writer
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
	// for every cell.
	var pad *string
	pw := padding.NewWriterPipe(w, bs.Width(ctx), func(_ io.Writer) {
		if pad == nil {
			s := styledText(ctx.options.ColorProfile, rules.StylePrimitive, " ")
			pad = &s
		}
		_, _ = io.WriteString(w, *pad)
	})

	ic := " "
	if rules.IndentToken != nil {
		ic = *rules.IndentToken
	}
	var ind *string
	iw := indent.NewWriterPipe(pw, indentation+margin, func(_ io.Writer) {
		if ind == nil {
			s := ""
			if ic != "" {
				s = styledText(ctx.options.ColorProfile, bs.Parent().Style.StylePrimitive, ic)
			}
			ind = &s
		}
		_, _ = io.WriteString(w, *ind)
	})

	return &MarginWriter{
		w:  w,
		pw: pw,
		iw: iw,
	}
}

func (w *MarginWriter) Write(b []byte) (int, error) {
	n, err := w.iw.Write(b)
	if err != nil {
		return 0, fmt.Errorf("glamour: error writing bytes: %w", err)
	}
	return n, nil
}
