package ansi

import (
	"io"
	"strconv"
)

// An ItemElement is used to render items inside a list.
type ItemElement struct {
	IsOrdered   bool
	Enumeration uint
}

// Render renders an ItemElement.
func (e *ItemElement) Render(w io.Writer, ctx RenderContext) error {
	var el *BaseElement
	if e.IsOrdered {
		el = &BaseElement{
			Style:  ctx.options.Styles.Enumeration,
			Prefix: strconv.FormatInt(int64(e.Enumeration), 10), //nolint: gosec
		}
	} else {
		el = &BaseElement{
			Style: ctx.options.Styles.Item,
		}
	}

	return markItem(ctx, func() error { return el.Render(w, ctx) })
}

// markItem renders an item's marker and records it in its list's
// layout, so that the item's text is wrapped under its first character.
func markItem(ctx RenderContext, render func() error) error {
	list := ctx.blockStack.Current()
	if list.items == nil {
		return render()
	}
	start := list.Block.Len()
	if err := render(); err != nil {
		return err
	}
	list.items.item(string(list.Block.Bytes()[start:]), start, list.Block.Len())
	return nil
}
