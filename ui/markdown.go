package ui

import (
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/glamour"
	gansi "github.com/charmbracelet/glamour/ansi"
	"github.com/charmbracelet/glamour/styles"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// maxRenderers bounds the glamour renderers kept, one per width and use.
const maxRenderers = 6

// markdown renders markdown blocks with glamour: one TermRenderer per width,
// created on first use and kept (a TermRenderer is not safe for concurrent
// use; all rendering happens on the Bubble Tea goroutine).
type markdown struct {
	style   gansi.StyleConfig
	profile termenv.Profile
	byWidth map[rendererKey]*glamour.TermRenderer
	widths  []rendererKey // oldest first, for eviction
	log     *slog.Logger
	// padded has glamour pad lines with the spaces that show nothing, as
	// upstream does: for the test that leaving them out draws the same.
	padded bool
	// plainStyles are how glamour draws plain words, by width and list
	// marker.
	plainStyles map[plainKey]plainStyle
}

func newMarkdown(theme Theme, profile termenv.Profile, log *slog.Logger) *markdown {
	st := styles.LightStyleConfig
	if theme.Dark {
		st = styles.DarkStyleConfig
	}
	// Blocks are rendered one at a time and joined by the transcript, so
	// the document's own leading and trailing blank lines only get in the way.
	st.Document.BlockPrefix = ""
	st.Document.BlockSuffix = ""
	quietMarkdown(&st, theme, profile)
	return &markdown{style: st, profile: profile, byWidth: map[rendererKey]*glamour.TermRenderer{}, log: log}
}

// quietMarkdown tunes glamour's style to sit in a transcript. Inline code
// is a colour only: glamour's red on grey, padded with a space each side,
// shouts in every sentence that names a file. Headings are told by their
// colour and weight, so their "## " marks go; with no colours at all the
// marks are all that tells a heading from a paragraph, so they stay.
// Text, headings and inline code take the theme's colours.
func quietMarkdown(st *gansi.StyleConfig, theme Theme, profile termenv.Profile) {
	st.Code.Prefix, st.Code.Suffix = "", ""
	st.Code.BackgroundColor = nil
	st.Code.Color = stringPtr(string(theme.Code))
	st.Document.Color = stringPtr(string(theme.Text))
	st.Heading.Color = stringPtr(string(theme.Accent))
	if profile == termenv.Ascii {
		marks := "#"
		for _, h := range []*gansi.StyleBlock{&st.H1, &st.H2, &st.H3, &st.H4, &st.H5, &st.H6} {
			h.Prefix, h.Suffix = marks+" ", ""
			marks += "#"
		}
		return
	}
	for _, h := range []*gansi.StyleBlock{&st.H2, &st.H3, &st.H4, &st.H5, &st.H6} {
		h.Prefix = ""
	}
}

func stringPtr(s string) *string { return &s }

// rendererKey names a renderer: its width, and whether it draws a block
// being streamed (whose code is lexed on from the last frame's).
type rendererKey struct {
	width    int
	streamed bool
}

func (m *markdown) renderer(key rendererKey) (*glamour.TermRenderer, error) {
	if r, ok := m.byWidth[key]; ok {
		return r, nil
	}
	opts := []glamour.TermRendererOption{
		glamour.WithStyles(m.style),
		glamour.WithWordWrap(key.width),
		glamour.WithColorProfile(m.profile),
		glamour.WithChromaFormatter(codeFormatter),
		glamour.WithTabWidth(tabWidth),
	}
	if !m.padded {
		// compactLine would drop it.
		opts = append(opts, glamour.WithoutInvisiblePadding())
	}
	if key.streamed {
		opts = append(opts, glamour.WithStreamedCode())
	}
	r, err := glamour.NewTermRenderer(opts...)
	if err != nil {
		return nil, err
	}
	if len(m.widths) >= maxRenderers {
		delete(m.byWidth, m.widths[0])
		m.widths = m.widths[1:]
	}
	m.byWidth[key] = r
	m.widths = append(m.widths, key)
	return r, nil
}

// render renders one markdown block to lines at most width columns wide,
// without leading or trailing blank lines. If glamour fails, the block is
// shown as plain text rather than lost.
func (m *markdown) render(src string, width int) []string {
	return m.renderAs(src, rendererKey{width: width})
}

// renderStreamed is render for the unfinished block of an answer, drawn
// again as it grows: a code block in it is lexed on from where the last
// one stopped rather than whole (glamour's WithStreamedCode). Once
// finished, the block is rendered whole.
func (m *markdown) renderStreamed(src string, width int) []string {
	return m.renderAs(src, rendererKey{width: width, streamed: true})
}

func (m *markdown) renderAs(src string, key rendererKey) []string {
	width := key.width
	r, err := m.renderer(key)
	var out string
	if err == nil {
		out, err = r.Render(src)
	}
	if err != nil {
		m.log.Warn("markdown render failed; showing plain text", "err", err)
		var lines []string
		for l := range strings.SplitSeq(strings.Trim(src, "\n"), "\n") {
			lines = append(lines, wrapPlain(expandTabs(l), width)...)
		}
		return lines
	}
	raw := strings.Split(out, "\n")
	lines := make([]string, 0, len(raw))
	for _, l := range raw {
		l = compactLine(l)
		if ansi.StringWidth(l) > width {
			// Wrap rather than cut what glamour left too wide.
			lines = append(lines, wrapOverlong(l, width)...)
			continue
		}
		lines = append(lines, l)
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// SGR attribute bits of a pen.
const (
	attrBold uint16 = 1 << iota
	attrFaint
	attrItalic
	attrUnderline
	attrBlink
	attrReverse
	attrHidden
	attrStrike
)

// attrCodes maps attribute bits to their SGR codes, in emission order.
var attrCodes = []struct {
	bit  uint16
	code string
}{
	{attrBold, "1"}, {attrFaint, "2"}, {attrItalic, "3"}, {attrUnderline, "4"},
	{attrBlink, "5"}, {attrReverse, "7"}, {attrHidden, "8"}, {attrStrike, "9"},
}

// pen is the graphic state SGR sequences leave behind: what a printed
// character looks like.
type pen struct {
	fg, bg string // SGR parameters of the colours, "" for the default
	attrs  uint16
}

func (p pen) zero() bool { return p == pen{} }

// spaceVisible reports whether a space printed with p shows anything.
func (p pen) spaceVisible() bool {
	return p.bg != "" || p.attrs&(attrUnderline|attrReverse|attrStrike) != 0
}

func (p pen) params() string {
	var parts []string
	for _, a := range attrCodes {
		if p.attrs&a.bit != 0 {
			parts = append(parts, a.code)
		}
	}
	if p.fg != "" {
		parts = append(parts, p.fg)
	}
	if p.bg != "" {
		parts = append(parts, p.bg)
	}
	return strings.Join(parts, ";")
}

// apply updates p with the parameters of one SGR sequence.
func (p *pen) apply(params string) {
	if params == "" {
		*p = pen{}
		return
	}
	// The parameters, split without allocating: a line has hundreds.
	var psArr [16]string
	var atArr [16]int
	ps, at := psArr[:0], atArr[:0]
	for off := 0; ; {
		j := strings.IndexByte(params[off:], ';')
		if j < 0 {
			ps, at = append(ps, params[off:]), append(at, off)
			break
		}
		ps, at = append(ps, params[off:off+j]), append(at, off)
		off += j + 1
	}
	for i := 0; i < len(ps); i++ {
		v := ps[i]
		switch v {
		case "", "0":
			*p = pen{}
		case "1":
			p.attrs |= attrBold
		case "2":
			p.attrs |= attrFaint
		case "3":
			p.attrs |= attrItalic
		case "4":
			p.attrs |= attrUnderline
		case "5", "6":
			p.attrs |= attrBlink
		case "7":
			p.attrs |= attrReverse
		case "8":
			p.attrs |= attrHidden
		case "9":
			p.attrs |= attrStrike
		case "22":
			p.attrs &^= attrBold | attrFaint
		case "23":
			p.attrs &^= attrItalic
		case "24":
			p.attrs &^= attrUnderline
		case "25":
			p.attrs &^= attrBlink
		case "27":
			p.attrs &^= attrReverse
		case "28":
			p.attrs &^= attrHidden
		case "29":
			p.attrs &^= attrStrike
		case "39":
			p.fg = ""
		case "49":
			p.bg = ""
		case "38", "48", "58":
			n := 0
			switch {
			case i+2 < len(ps) && ps[i+1] == "5":
				n = 2
			case i+4 < len(ps) && ps[i+1] == "2":
				n = 4
			}
			if n == 0 {
				return // malformed: ignore the rest, as terminals do
			}
			col := params[at[i] : at[i+n]+len(ps[i+n])]
			i += n
			switch v {
			case "38":
				p.fg = col
			case "48":
				p.bg = col
			}
		default:
			switch {
			case strings.HasPrefix(v, "38:"):
				p.fg = v
			case strings.HasPrefix(v, "48:"):
				p.bg = v
			case strings.HasPrefix(v, "4:"):
				if v == "4:0" {
					p.attrs &^= attrUnderline
				} else {
					p.attrs |= attrUnderline
				}
			default:
				n, err := strconv.Atoi(v)
				switch {
				case err != nil:
				case n >= 30 && n <= 37, n >= 90 && n <= 97:
					p.fg = v
				case n >= 40 && n <= 47, n >= 100 && n <= 107:
					p.bg = v
				}
			}
		}
	}
}

// compactLine rewrites one rendered line with as few escape sequences as
// show the same thing: glamour styles every word and every padding space on
// its own, which multiplies what is written to the terminal. It keeps only
// SGR sequences (re-emitted when the look actually changes), expands tabs,
// drops other controls and the invisible trailing padding. (The markdown
// was sanitised before rendering: only glamour's own sequences are here.)
func compactLine(s string) string {
	if plainLine(s) {
		return strings.TrimRight(s, " ")
	}
	var (
		out      strings.Builder
		cur, emt pen // the pen the input sets; the pen the output has set
		cut      int // output length after the last visible cell
		cutPen   pen // emt at cut
		col      int
		tabs     = strings.IndexByte(s, '\t') >= 0
	)
	out.Grow(len(s) / 2)
	ensure := func(p pen) {
		if emt == p {
			return
		}
		switch {
		case p.zero():
			out.WriteString("\x1b[0m")
		case emt.zero():
			out.WriteString("\x1b[" + p.params() + "m")
		default:
			out.WriteString("\x1b[0;" + p.params() + "m")
		}
		emt = p
	}
	space := func() {
		if cur.spaceVisible() || emt.spaceVisible() {
			ensure(cur)
		}
		out.WriteByte(' ')
		if cur.spaceVisible() {
			cut, cutPen = out.Len(), emt
		}
		col++
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			switch {
			case i+1 < len(s) && s[i+1] == '[':
				j := i + 2
				for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
					j++
				}
				if j >= len(s) {
					i = len(s)
					continue
				}
				if s[j] == 'm' {
					cur.apply(s[i+2 : j])
				}
				i = j + 1
			case i+1 < len(s) && s[i+1] == ']':
				j := i + 2
				for j < len(s) {
					if s[j] == 0x07 {
						j++
						break
					}
					if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
						j += 2
						break
					}
					j++
				}
				i = j
			default:
				i += 2
			}
		case c == ' ':
			space()
			i++
		case c == '\t':
			for n := tabWidth - col%tabWidth; n > 0; n-- {
				space()
			}
			i++
		case c < 0x20 || c == 0x7f:
			i++
		default:
			j := i + 1
			for j < len(s) && s[j] != 0x1b && s[j] != ' ' && s[j] != '\t' && s[j] >= 0x20 && s[j] != 0x7f {
				j++
			}
			ensure(cur)
			out.WriteString(s[i:j])
			cut, cutPen = out.Len(), emt
			if tabs {
				col += ansi.StringWidth(s[i:j])
			}
			i = j
		}
	}
	r := out.String()[:cut]
	if !cutPen.zero() {
		r += "\x1b[0m"
	}
	return r
}

// plainLine reports whether s holds no control byte (no escape sequence,
// no tab): then compacting it only drops its trailing spaces.
func plainLine(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return false
		}
	}
	return true
}

// mdStream splits a growing markdown text into blocks at stable
// boundaries, so that finished blocks are rendered once and only the last
// one is rendered again as text arrives.
//
// Invariants: src only grows; done holds blocks not yet taken, in order;
// src[blockStart:] is the unfinished block. A boundary is a blank line,
// outside a fenced code block, followed by a line that does not continue
// the block before it (see continues). Writing is amortised
// O(len(delta)): each byte is looked at a bounded number of times.
type mdStream struct {
	src        strings.Builder
	scanned    int // src[:scanned] is made of complete, examined lines
	searched   int // no newline in src[scanned:searched]
	blockStart int
	blankAt    int // start of the first blank line after content, or -1
	fence      string
	hasContent bool
	done       []string
}

func newMDStream() *mdStream { return &mdStream{blankAt: -1} }

// write appends text (already free of control characters).
func (s *mdStream) write(text string) {
	s.src.WriteString(text)
	str := s.src.String()
	for {
		nl := strings.IndexByte(str[s.searched:], '\n')
		if nl < 0 {
			s.searched = len(str)
			return
		}
		end := s.searched + nl
		s.line(str, str[s.scanned:end], s.scanned)
		s.scanned = end + 1
		s.searched = s.scanned
	}
}

func (s *mdStream) line(str, line string, start int) {
	if s.fence != "" {
		if closesFence(line, s.fence) {
			s.fence = ""
		}
		return
	}
	if strings.TrimSpace(line) == "" {
		if s.hasContent && s.blankAt < 0 {
			s.blankAt = start
		}
		return
	}
	if s.blankAt >= 0 {
		if !continues(line) {
			s.done = append(s.done, str[s.blockStart:s.blankAt])
			s.blockStart = start
		}
		s.blankAt = -1
	}
	if f := openFence(line); f != "" {
		s.fence = f
	}
	s.hasContent = true
}

// continues reports whether a line after a blank line may belong to the
// block before it: indented by a tab or at least two spaces, as the
// paragraphs of a list item and indented code are. One space cannot
// continue a list item, whose content starts at column two or more.
func continues(line string) bool {
	return line[0] == '\t' || strings.HasPrefix(line, "  ")
}

// take returns the blocks finished since the last take.
func (s *mdStream) take() []string {
	d := s.done
	s.done = nil
	return d
}

// tail is the unfinished block.
func (s *mdStream) tail() string { return s.src.String()[s.blockStart:] }

// finish ends the text: the unfinished block becomes a finished one.
func (s *mdStream) finish() {
	if str := s.src.String(); s.scanned < len(str) {
		s.line(str, str[s.scanned:], s.scanned)
	}
	if t := s.tail(); strings.TrimSpace(t) != "" {
		s.done = append(s.done, t)
	}
	s.blockStart = s.src.Len()
	s.scanned, s.searched = s.blockStart, s.blockStart
}

// openFence returns the fence run ("```", "~~~~") if line opens a fenced
// code block, or "".
func openFence(line string) string {
	l := trimIndent(line)
	if len(l) < 3 || (l[0] != '`' && l[0] != '~') {
		return ""
	}
	n := 0
	for n < len(l) && l[n] == l[0] {
		n++
	}
	if n < 3 || (l[0] == '`' && strings.Contains(l[n:], "`")) {
		return ""
	}
	return l[:n]
}

// closesFence reports whether line closes a block opened with fence.
func closesFence(line, fence string) bool {
	l := trimIndent(line)
	n := 0
	for n < len(l) && l[n] == fence[0] {
		n++
	}
	return n >= len(fence) && strings.TrimSpace(l[n:]) == ""
}

// trimIndent drops up to three leading spaces, or returns "" when the line
// is indented more (then it cannot open or close a fence).
func trimIndent(line string) string {
	for i := 0; i < 4; i++ {
		if i == len(line) || line[i] != ' ' {
			return line[i:]
		}
	}
	return ""
}

// mdBlock is one finished block of an assistant message.
type mdBlock struct {
	src   string
	cache lineCache
}

// lines depends on the width only: display toggles do not change markdown,
// so a toggle does not make blocks render again.
func (b *mdBlock) lines(c *common) []string {
	if b.cache.ok && b.cache.width == c.contentWidth() {
		return b.cache.lines
	}
	if strings.TrimSpace(b.src) == "" {
		return b.cache.put(c, nil)
	}
	return b.cache.put(c, withGap(c.md.render(b.src, c.contentWidth())))
}

// mdTail is the unfinished last block of the message being streamed. Its
// text changes only when the stream publishes (at most ~30 times a
// second), so between publications its render is reused, and a
// publication renders again only what may have changed (tailRender). How
// long a render takes paces the publications.
type mdTail struct {
	mdBlock
	inc tailRender
}

func (b *mdTail) set(src string) {
	if src != b.src {
		b.src = src
		b.cache.reset()
	}
}

func (b *mdTail) lines(c *common) []string {
	if b.cache.ok && b.cache.width == c.contentWidth() {
		return b.cache.lines
	}
	start := time.Now()
	var l []string
	if strings.TrimSpace(b.src) != "" {
		l = withGap(b.inc.render(c.md, b.src, c.contentWidth()))
	}
	l = b.cache.put(c, l)
	c.liveCost = time.Since(start)
	return l
}

// withGap adds the blank line that separates a block from the next one.
func withGap(lines []string) []string {
	if len(lines) == 0 {
		return nil
	}
	return append(lines, "")
}
