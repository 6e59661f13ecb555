package ansi

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/charmbracelet/glamour/internal/lexers"
	"github.com/muesli/termenv"
)

const (
	// The chroma style theme name used for rendering.
	chromaStyleTheme = "charm"

	// The chroma formatter name used for rendering.
	chromaFormatter = "terminal256"
)

// mutex guards charmStyle.
var mutex = sync.Mutex{}

// charmStyle is the "charm" theme, made from the first rules that ask for
// it (upstream registers it in chroma's style registry, first one wins).
// Keeping it here means chroma/v2/styles, whose init parses every bundled
// style, is not linked.
var charmStyle *chroma.Style

// A CodeBlockElement is used to render code blocks.
type CodeBlockElement struct {
	Code     string
	Language string
}

func chromaStyle(style StylePrimitive) string {
	var s string

	if style.Color != nil {
		s = *style.Color
	}
	if style.BackgroundColor != nil {
		if s != "" {
			s += " "
		}
		s += "bg:" + *style.BackgroundColor
	}
	if style.Italic != nil && *style.Italic {
		if s != "" {
			s += " "
		}
		s += "italic"
	}
	if style.Bold != nil && *style.Bold {
		if s != "" {
			s += " "
		}
		s += "bold"
	}
	if style.Underline != nil && *style.Underline {
		if s != "" {
			s += " "
		}
		s += "underline"
	}

	return s
}

// Render renders a CodeBlockElement.
func (e *CodeBlockElement) Render(w io.Writer, ctx RenderContext) error {
	bs := ctx.blockStack

	var indentation uint
	var margin uint
	formatter := chromaFormatter
	rules := ctx.options.Styles.CodeBlock
	if rules.Indent != nil {
		indentation = *rules.Indent
	}
	if rules.Margin != nil {
		margin = *rules.Margin
	}
	if len(ctx.options.ChromaFormatter) > 0 {
		formatter = ctx.options.ChromaFormatter
	}
	theme := rules.Theme

	if rules.Chroma != nil && ctx.options.ColorProfile != termenv.Ascii {
		theme = chromaStyleTheme
		mutex.Lock()
		if charmStyle == nil {
			charmStyle = chroma.MustNewStyle(theme,
				chroma.StyleEntries{
					chroma.Text:                chromaStyle(rules.Chroma.Text),
					chroma.Error:               chromaStyle(rules.Chroma.Error),
					chroma.Comment:             chromaStyle(rules.Chroma.Comment),
					chroma.CommentPreproc:      chromaStyle(rules.Chroma.CommentPreproc),
					chroma.Keyword:             chromaStyle(rules.Chroma.Keyword),
					chroma.KeywordReserved:     chromaStyle(rules.Chroma.KeywordReserved),
					chroma.KeywordNamespace:    chromaStyle(rules.Chroma.KeywordNamespace),
					chroma.KeywordType:         chromaStyle(rules.Chroma.KeywordType),
					chroma.Operator:            chromaStyle(rules.Chroma.Operator),
					chroma.Punctuation:         chromaStyle(rules.Chroma.Punctuation),
					chroma.Name:                chromaStyle(rules.Chroma.Name),
					chroma.NameBuiltin:         chromaStyle(rules.Chroma.NameBuiltin),
					chroma.NameTag:             chromaStyle(rules.Chroma.NameTag),
					chroma.NameAttribute:       chromaStyle(rules.Chroma.NameAttribute),
					chroma.NameClass:           chromaStyle(rules.Chroma.NameClass),
					chroma.NameConstant:        chromaStyle(rules.Chroma.NameConstant),
					chroma.NameDecorator:       chromaStyle(rules.Chroma.NameDecorator),
					chroma.NameException:       chromaStyle(rules.Chroma.NameException),
					chroma.NameFunction:        chromaStyle(rules.Chroma.NameFunction),
					chroma.NameOther:           chromaStyle(rules.Chroma.NameOther),
					chroma.Literal:             chromaStyle(rules.Chroma.Literal),
					chroma.LiteralNumber:       chromaStyle(rules.Chroma.LiteralNumber),
					chroma.LiteralDate:         chromaStyle(rules.Chroma.LiteralDate),
					chroma.LiteralString:       chromaStyle(rules.Chroma.LiteralString),
					chroma.LiteralStringEscape: chromaStyle(rules.Chroma.LiteralStringEscape),
					chroma.GenericDeleted:      chromaStyle(rules.Chroma.GenericDeleted),
					chroma.GenericEmph:         chromaStyle(rules.Chroma.GenericEmph),
					chroma.GenericInserted:     chromaStyle(rules.Chroma.GenericInserted),
					chroma.GenericStrong:       chromaStyle(rules.Chroma.GenericStrong),
					chroma.GenericSubheading:   chromaStyle(rules.Chroma.GenericSubheading),
					chroma.Background:          chromaStyle(rules.Chroma.Background),
				})
		}
		mutex.Unlock()
	}

	// Reflow's indent writer, each cell of the indent styled once.
	var cell *string
	iw := newIndentWriter(w, indentation+margin, func() string {
		if cell == nil {
			c := styledText(ctx.options.ColorProfile, bs.Current().Style.StylePrimitive, " ")
			cell = &c
		}
		return *cell
	})

	// The code is fitted to the width inside the block's margin (see
	// fitCode) before the margin is written.
	width := int(bs.Width(ctx)) - int(indentation+margin) //nolint: gosec
	var code strings.Builder
	if len(theme) > 0 {
		renderText(iw, ctx.options.ColorProfile, bs.Current().Style.StylePrimitive, rules.BlockPrefix)

		err := highlight(&code, e.Code, e.Language, formatter, theme, ctx.options.StreamedCode)
		if err != nil {
			return fmt.Errorf("glamour: error highlighting code: %w", err)
		}
		_, _ = io.WriteString(iw, fitCode(code.String(), width, ctx.options.TabWidth))
		renderText(iw, ctx.options.ColorProfile, bs.Current().Style.StylePrimitive, rules.BlockSuffix)
		return nil
	}

	// fallback rendering
	el := &BaseElement{
		Token: e.Code,
		Style: rules.StylePrimitive,
	}

	if err := el.Render(&code, ctx); err != nil {
		return err
	}
	_, err := io.WriteString(iw, fitCode(code.String(), width, ctx.options.TabWidth))
	return err
}

// highlight is chroma's quick.Highlight without its style registry: the
// "charm" theme is the one made above; another named theme (glamour's own
// styles name none) falls back to chroma's fallback style, "swapoff".
func highlight(w io.Writer, source, lexer, formatter, style string, streamed bool) error {
	l := lexers.Get(lexer)
	if l == nil {
		l = lexers.Analyse(source)
	}
	if l == nil {
		l = lexers.Fallback()
	}

	f := formatters.Get(formatter)
	if f == nil {
		f = formatters.Fallback
	}

	mutex.Lock()
	s := charmStyle
	mutex.Unlock()
	if style != chromaStyleTheme || s == nil {
		s = fallbackStyle()
	}

	var it chroma.Iterator
	var err error
	if streamed {
		it, err = tokenise(l, source)
	} else {
		it, err = chroma.Coalesce(l).Tokenise(nil, source)
	}
	if err != nil {
		return err
	}
	return f.Format(w, s, it)
}

//go:embed swapoff.xml
var swapoffXML []byte

// fallbackStyle is chroma's styles.Fallback, "swapoff", read on first use.
var fallbackStyle = sync.OnceValue(func() *chroma.Style {
	s, err := chroma.NewXMLStyle(bytes.NewReader(swapoffXML))
	if err != nil {
		panic(err)
	}
	return s
})
