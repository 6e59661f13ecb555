package ui

import (
	"log/slog"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"myclaw/tools/termtext"
)

// Fallback screen size until the terminal reports its own.
const (
	defaultWidth  = 80
	defaultHeight = 24
	// minWidth keeps layouts sane on absurdly narrow terminals.
	minWidth = 20
)

// common is what every part of the TUI shares: the screen size, styles,
// keys, the markdown renderers and the display toggles. It is only touched
// from the Bubble Tea goroutine (Update and View).
type common struct {
	width, height int
	styles        Styles
	keys          KeyMap
	md            *markdown
	log           *slog.Logger

	// liveCost is how long the latest render of a live block (the answer's
	// unfinished tail, the reasoning being streamed) took; the publish
	// tick backs off when live blocks get expensive.
	liveCost time.Duration
	// now is the clock that paces publications.
	now func() time.Time

	// gen changes whenever a display toggle changes, so cached renders
	// that depend on the toggles know they are stale.
	gen       int
	showThink bool
	// mouseOff: mouse capture is off, so the terminal selects text.
	mouseOff    bool
	expandTools bool

	// custom are the custom slash commands by name; customList their
	// entries for completion and /help.
	custom map[string]CustomCommand
	// customStamp is the stamp of the command folders when last read;
	// customNotices the notices about them already shown.
	customStamp   string
	customNotices map[string]bool
	customList    []command
	// prompts are the MCP servers' prompts, as /SERVER:PROMPT.
	prompts []command
	// files is the workspace's file index for @ completion.
	files fileIndex
	// workspace is the workspace's path, for pasted image paths.
	workspace string

	// models are the server's models, for /model and its completion.
	models []string
}

// contentWidth is the width transcript blocks render at.
func (c *common) contentWidth() int {
	return max(c.width, minWidth)
}

// lineCache keeps a block's rendered lines for one width and display
// generation; a resize or a toggle makes it stale and the block renders
// again the next time it is on screen.
type lineCache struct {
	width, gen int
	lines      []string
	ok         bool
}

func (lc *lineCache) get(c *common) ([]string, bool) {
	if lc.ok && lc.width == c.contentWidth() && lc.gen == c.gen {
		return lc.lines, true
	}
	return nil, false
}

func (lc *lineCache) put(c *common, lines []string) []string {
	lc.width, lc.gen, lc.lines, lc.ok = c.contentWidth(), c.gen, lines, true
	return lines
}

func (lc *lineCache) reset() { lc.ok = false }

// wrapPlain wraps plain text (no escape sequences) to width columns,
// breaking at spaces where it can and inside words where it must. Newlines
// in s are kept.
func wrapPlain(s string, width int) []string {
	width = max(width, 1)
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		if ansi.StringWidth(line) <= width {
			out = append(out, line)
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(line, width, ""), "\n")...)
	}
	return out
}

// wrapWords wraps plain text to width columns at spaces only, so that a
// date, an id or a path with hyphens stays whole; a word wider than width
// is broken. Newlines in s are kept.
func wrapWords(s string, width int) []string {
	width = max(width, 1)
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		if ansi.StringWidth(line) <= width {
			out = append(out, line)
			continue
		}
		cur, curW := "", 0
		for i, w := range strings.Split(line, " ") {
			ww := ansi.StringWidth(w)
			if i > 0 && curW+1+ww <= width {
				cur, curW = cur+" "+w, curW+1+ww
				continue
			}
			if i > 0 {
				out = append(out, cur)
			}
			for ww > width {
				part := ansi.Truncate(w, width, "")
				if part == "" {
					break // a character wider than width
				}
				out = append(out, part)
				w = strings.TrimPrefix(w, part)
				ww = ansi.StringWidth(w)
			}
			cur, curW = w, ww
		}
		out = append(out, cur)
	}
	return out
}

// indent prefixes every line with p.
func indent(lines []string, p string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = p + l
	}
	return out
}

// oneLine flattens s to a single line for labels, with every control,
// escape and invisible character shown as a visible escape.
func oneLine(s string) string { return termtext.OneLine(s, 0) }

// truncate cuts s (which may carry styles) to width columns with an ellipsis.
func truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}
