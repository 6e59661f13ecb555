package ui

import (
	"myclaw/approval"
	"myclaw/tools/termtext"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// The kinds of transcript block: what a prompt, a notice, a warning, an
// error, the model's reasoning and the welcome line look like. Answers are
// mdBlock (markdown.go, beside their renderer), calls are toolCard
// (toolcard.go), attached files chip (mentions.go); each caches its lines
// per width like funcBlock.

// block is one piece of the transcript: a user prompt, a markdown block of
// an answer, a tool card, a notice. lines returns its rendered lines for
// the current width and display toggles, each at most c.contentWidth()
// columns wide, ending with a blank separator line; blocks cache them, so
// calling lines for an unchanged block is O(1).
type block interface {
	lines(c *common) []string
}

// funcBlock is a block drawn by a function, cached per width.
type funcBlock struct {
	draw  func(c *common) []string
	cache lineCache
}

func newFuncBlock(draw func(c *common) []string) *funcBlock { return &funcBlock{draw: draw} }

func (b *funcBlock) lines(c *common) []string {
	if l, ok := b.cache.get(c); ok {
		return l
	}
	return b.cache.put(c, withGap(b.draw(c)))
}

// goesOnBlock marks that the streamed answer resumes below: a command's
// output or a notice was put in its way.
func goesOnBlock() block {
	return newFuncBlock(func(c *common) []string {
		return []string{"  " + c.styles.Dim.Render("⋯ the answer goes on")}
	})
}

// userBlock shows a prompt or a command as the user typed it.
func userBlock(text string) block {
	text = strings.TrimRight(termtext.Screen(text), "\n")
	return newFuncBlock(func(c *common) []string { return userLines(c, text) })
}

// userLines draws a prompt (sanitised already).
func userLines(c *common, text string) []string {
	st := &c.styles
	var out []string
	for l := range strings.SplitSeq(text, "\n") {
		for _, w := range wrapPlain(expandTabs(l), c.contentWidth()-2) {
			p := "  "
			if len(out) == 0 {
				p = st.UserBar.Render("❯ ")
			}
			out = append(out, p+st.UserText.Render(w))
		}
	}
	return out
}

// pastedPromptBlock shows a prompt with large pastes as it stood in the
// input, each paste a chip; with Ctrl+O (as tool results) the whole text.
// The whole text is cleaned only when first shown: it may be megabytes.
func pastedPromptBlock(shown, full string) block {
	shown = strings.TrimRight(termtext.Screen(shown), "\n")
	clean := false
	return newFuncBlock(func(c *common) []string {
		if !c.expandTools {
			return append(userLines(c, shown), "  "+c.styles.Dim.Render(truncate("ctrl+o shows the pasted text", c.contentWidth()-2)))
		}
		if !clean {
			full, clean = strings.TrimRight(termtext.Screen(full), "\n"), true
		}
		return userLines(c, full)
	})
}

// noticeBlock is a dim line: something worth knowing that is not an error.
func noticeBlock(text string) block {
	return newFuncBlock(noticeLines(text))
}

// noticeLines draws a notice, for a block or a command's result.
func noticeLines(text string) func(c *common) []string {
	text = oneLine(text)
	return func(c *common) []string {
		var out []string
		for _, l := range wrapWords(text, c.contentWidth()-2) {
			out = append(out, "  "+c.styles.Notice.Render(l))
		}
		return out
	}
}

// warnBlock is a line that wants attention, such as the startup banner.
func warnBlock(text string) block {
	text = oneLine(text)
	return newFuncBlock(func(c *common) []string {
		var out []string
		for i, l := range wrapWords(text, c.contentWidth()-2) {
			p := "  "
			if i == 0 {
				p = c.styles.Warn.Render("! ")
			}
			out = append(out, p+c.styles.Warn.Render(l))
		}
		return out
	})
}

// errorBlock is an error as a styled line, with its hint below.
func errorBlock(msg, hint string) block {
	msg, hint = oneLine(msg), oneLine(hint)
	return newFuncBlock(func(c *common) []string {
		st := &c.styles
		var out []string
		for i, l := range wrapPlain(msg, c.contentWidth()-2) {
			p := "  "
			if i == 0 {
				p = st.ErrorMark.Render("✗ ")
			}
			out = append(out, p+st.Error.Render(l))
		}
		if hint != "" {
			for _, l := range wrapPlain(hint, c.contentWidth()-4) {
				out = append(out, "    "+st.Hint.Render(l))
			}
		}
		return out
	})
}

// noticeBlockOf draws n as its kind.
func noticeBlockOf(n Notice) block {
	if n.Warning {
		return warnBlock(n.Text)
	}
	return noticeBlock(n.Text)
}

// reasoningBlock is the model's reasoning: one dim line when collapsed,
// the text when shown. Streaming costs O(delta) per delta: words are
// counted as they arrive, and the lines shown are kept wrapped, so that a
// publication wraps again only the unfinished last line.
type reasoningBlock struct {
	screen termtext.Stream
	text   strings.Builder // sanitised
	words  int             // in text
	inWord bool            // text ends inside a word
	dirty  bool            // text changed since the last publication
	live   bool            // still streaming: its render time paces publications

	// What the screen shows, as of the last publication.
	shown      string
	shownWords int
	body       reasoningBody
	cache      lineCache
}

// write adds a delta of the stream.
func (r *reasoningBlock) write(delta string) { r.add(r.screen.Write(delta)) }

// add appends sanitised text and counts its words.
func (r *reasoningBlock) add(s string) {
	for _, c := range s {
		if unicode.IsSpace(c) {
			r.inWord = false
		} else if !r.inWord {
			r.inWord = true
			r.words++
		}
	}
	r.text.WriteString(s)
	r.dirty = true
}

func (r *reasoningBlock) publish() {
	r.shown = r.text.String()
	r.shownWords = r.words
	r.dirty = false
	r.cache.reset()
}

// finish ends the stream: what was held back is shown too.
func (r *reasoningBlock) finish() {
	r.add(r.screen.Flush())
	r.publish()
	r.live = false
}

func (r *reasoningBlock) lines(c *common) []string {
	if l, ok := r.cache.get(c); ok {
		return l
	}
	st := &c.styles
	key := c.keys.ToggleThink.Help().Key
	if !c.showThink {
		return r.cache.put(c, withGap([]string{truncate(st.Reasoning.Render(
			"▸ reasoning · "+strconv.Itoa(r.shownWords)+" words ("+key+" shows it)"), c.contentWidth())}))
	}
	start := time.Now()
	out := []string{st.Reasoning.Render("▾ reasoning (" + key + " hides it)")}
	out = r.body.render(c, r.shown, out)
	if r.live {
		c.liveCost = time.Since(start)
	}
	return r.cache.put(c, withGap(out))
}

// reasoningBody keeps the reasoning's finished lines wrapped for one
// width. The text only grows, so the lines before its last newline never
// change: each render wraps what finished since the last one, and the
// unfinished last line.
//
// The text is shown trimmed, as it will be once complete: blank lines at
// the start and at the end are not shown, nor the spaces that begin the
// first line and end the last. So the last non-blank line and the blank
// lines after it wait in pending until a non-blank line follows them.
type reasoningBody struct {
	width   int
	lines   []string // styled lines of text[:done], but pending
	done    int      // text[:done] ends with a newline (or is empty)
	pending string   // the last non-blank finished line, "" before the first
	blanks  int      // blank lines after pending
}

// render appends the body of text, wrapped for the block's width, to out.
func (b *reasoningBody) render(c *common, text string, out []string) []string {
	w := c.contentWidth() - 2
	if b.width != w || len(text) < b.done {
		*b = reasoningBody{width: w}
	}
	wrap := func(dst []string, l string) []string {
		for _, p := range wrapPlain(expandTabs(l), w) {
			dst = append(dst, "  "+c.styles.Reasoning.Render(p))
		}
		return dst
	}
	// flush moves pending and its blank lines into dst, a line follows.
	flush := func(dst []string, pending string, blanks int) []string {
		if pending == "" {
			return dst
		}
		dst = wrap(dst, pending)
		for range blanks {
			dst = wrap(dst, "")
		}
		return dst
	}
	if nl := strings.LastIndexByte(text, '\n'); nl+1 > b.done {
		for l := range strings.SplitSeq(text[b.done:nl], "\n") {
			if strings.TrimSpace(l) == "" {
				if b.pending != "" {
					b.blanks++
				}
				continue
			}
			if b.pending == "" && len(b.lines) == 0 {
				l = strings.TrimLeftFunc(l, unicode.IsSpace)
			}
			b.lines = flush(b.lines, b.pending, b.blanks)
			b.pending, b.blanks = l, 0
		}
		b.done = nl + 1
	}
	out = append(out, b.lines...)
	last := strings.TrimRightFunc(text[b.done:], unicode.IsSpace)
	if last == "" {
		return flush(out, strings.TrimRightFunc(b.pending, unicode.IsSpace), 0)
	}
	if b.pending == "" && len(b.lines) == 0 {
		last = strings.TrimLeftFunc(last, unicode.IsSpace)
	}
	return wrap(flush(out, b.pending, b.blanks), last)
}

// welcomeBlock is the first block of the transcript: the version, the
// model and the server with the start-up check's outcome, and a two-line
// quick start.
type welcomeBlock struct {
	version, model, server string
	state                  string // "checking…", "ready", "not answering"
	// level and unsandboxed choose the line that says what runs without
	// asking.
	level       approval.Level
	unsandboxed bool
	cache       lineCache
}

// stateChecking is the welcome's state until the server check ends.
const stateChecking = "checking the server…"

func newWelcome(version, model, server string, level approval.Level, unsandboxed bool) *welcomeBlock {
	return &welcomeBlock{version: oneLine(version), model: oneLine(model), server: oneLine(server), state: stateChecking,
		level: level, unsandboxed: unsandboxed}
}

// setLevel makes the welcome tell the truth for a new level.
func (w *welcomeBlock) setLevel(l approval.Level) {
	if w != nil && w.level != l {
		w.level = l
		w.cache.reset()
	}
}

// levelPromise says what the level lets run without a person; warn is set
// when commands run unsandboxed without asking.
func levelPromise(l approval.Level, unsandboxed bool) (text string, warn bool) {
	switch {
	case l == approval.ReadOnly:
		return "readonly: myclaw reads and answers, and changes nothing.", false
	case l == approval.Plan:
		return "plan: the model explores read-only and submits a plan for you to accept, edit or reject; nothing changes.", false
	case l == approval.Full && unsandboxed:
		return "full, unsandboxed: everything runs without asking, and commands run with your full rights (--sandbox off).", true
	case l == approval.Full:
		return "full: everything runs without asking, confined to the workspace.", false
	case l == approval.AutoEdit && unsandboxed:
		return "auto-edit: undoable edits run; commands run unsandboxed once you approve them (--sandbox off), and the rest waits for you.", true
	case l == approval.AutoEdit:
		return "auto-edit: undoable edits and confined commands run; the rest waits for you.", false
	case unsandboxed:
		return "edits and commands wait for your approval; commands you approve run unsandboxed (--sandbox off).", true
	}
	return "edits and commands wait for your approval.", false
}

// checked records the start-up check; the error itself has its own block.
func (w *welcomeBlock) checked(err error) {
	if w == nil {
		return
	}
	w.state = "server ready"
	if err != nil {
		w.state = "server check failed (below)"
	}
	w.cache.reset()
}

func (w *welcomeBlock) lines(c *common) []string {
	if l, ok := w.cache.get(c); ok {
		return l
	}
	st := &c.styles
	width := c.contentWidth()
	head := "myclaw"
	if w.version != "" {
		head += " " + w.version
	}
	info := " · no model set"
	if w.model != "" {
		info = " · " + w.model
	}
	if w.server != "" {
		info += " at " + w.server
	}
	info += " · " + w.state
	k := &c.keys
	out := []string{truncate("  "+st.Bold.Render(head)+st.Notice.Render(info), width)}
	promise, warn := levelPromise(w.level, w.unsandboxed)
	for i, l := range []string{
		"Ask in plain words (" + k.Send.Help().Key + " sends); " + promise,
		"/undo walks changes back · @path attaches a file · !cmd runs one · /help",
	} {
		style := st.Notice
		if i == 0 && warn {
			style = st.LevelUnsandboxed
		}
		for _, wl := range wrapPlain(l, width-2) {
			out = append(out, "  "+style.Render(wl))
		}
	}
	return w.cache.put(c, withGap(out))
}
