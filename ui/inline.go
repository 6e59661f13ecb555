package ui

import (
	"os"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// The inline screen ([ui] screen = "inline") keeps the session on the
// normal screen. A block of the transcript that can no longer change is
// printed once, above the view, into the terminal's own scrollback, where
// its search and selection reach it during the session; the view (the
// live region) holds only what can still change: the running blocks (the
// answer's unfinished tail, running calls, reasoning still streaming),
// then the bottom part (input, pane, form, picker) and the status line.
//
// Blocks are printed in order: one that can still change holds back those
// after it. Printed lines are the lines the transcript draws, at the width
// of the moment; they leave the transcript, so nothing draws them again,
// and a resize or a display toggle (ctrl+o, ctrl+t) reaches only what is
// still live. They are handed to the renderer with tea.PrintAboveMsg, one
// batch at a time: the view keeps showing a batch until the Update that
// sees its message, which is drawn in the same frame as the batch, so no
// frame shows a line twice or loses one.
type inlineState struct {
	// sized is set once the terminal's size is known: nothing is printed
	// at a guessed width.
	sized bool
	// journalDue holds back a resumed session's cards until the journal
	// has said where their changes stand.
	journalDue bool
	// flight is the batch handed to the renderer and not yet printed; the
	// view shows it above the live blocks.
	flight []string
	// quitting: the last frame is empty, and Run prints what is left.
	quitting bool
}

// transientBlock is a block that is removed once its work ends (the
// progress line of /compact): the inline screen never prints it.
type transientBlock struct{ block }

// settled reports whether b can no longer change, so that the inline
// screen may print it.
func (m Model) settled(b block) bool {
	switch b := b.(type) {
	case *mdTail, *transientBlock:
		return false
	case *reasoningBlock:
		return !b.live
	case *toolCard:
		return b.status != "" && !(b.past && m.inl.journalDue)
	case *welcomeBlock:
		// It says how the server check went.
		return b.state != stateChecking
	}
	return true
}

// inlineStep follows an Update on the inline screen: it notes what msg
// tells (the size, a batch printed, the journal read), and when no batch
// is on its way, hands the renderer the settled blocks at the head of the
// transcript, which leave it.
func (m Model) inlineStep(msg tea.Msg) (Model, tea.Cmd) {
	in := m.inl
	switch msg := msg.(type) {
	case tea.PrintAboveMsg:
		in.flight = nil
	case tea.WindowSizeMsg:
		in.sized = true
	case journalMsg:
		in.journalDue = false
	case sessionSwitchedMsg:
		if msg.err == nil {
			in.journalDue = m.hasPastCards()
		}
	}
	if in.flight != nil || !in.sized || in.quitting {
		return m, nil
	}
	n := 0
	for n < len(m.tr.blocks) && m.settled(m.tr.blocks[n]) {
		n++
	}
	if n == 0 {
		return m, nil
	}
	var out []string
	for _, b := range m.tr.blocks[:n] {
		out = append(out, b.lines(m.c)...)
	}
	m.tr.dropFront(n)
	if len(out) == 0 {
		return m, nil
	}
	in.flight = out
	return m, func() tea.Msg { return tea.PrintAboveMsg{Lines: out} }
}

// dropFront removes the first n blocks, printed, and their lines.
func (t *transcript) dropFront(n int) {
	for _, b := range t.blocks[:n] {
		delete(t.warm, b)
		if d, ok := b.(dropper); ok {
			d.dropLines()
		}
	}
	t.blocks = append([]block(nil), t.blocks[n:]...)
	t.top, t.off = 0, 0
}

// inlineView is the live region: the last lines not printed yet, as many
// as fit above the bottom part and the status line (a block taller than
// the room shows its end), then those.
func (m Model) inlineView() string {
	if m.inl.quitting {
		return ""
	}
	bottom := m.bottomView()
	live := m.liveLines(max(m.c.height-len(bottom)-1, 0))
	return m.frame(live, bottom)
}

// liveLines returns the last room lines of what is not printed: the batch
// on its way, then the transcript's blocks. Only the blocks needed are
// drawn.
func (m Model) liveLines(room int) []string {
	if room <= 0 {
		return nil
	}
	var parts [][]string
	n := 0
	for i := len(m.tr.blocks) - 1; i >= 0 && n < room; i-- {
		if ls := m.tr.blocks[i].lines(m.c); len(ls) > 0 {
			parts = append(parts, ls)
			n += len(ls)
		}
	}
	if n < room && len(m.inl.flight) > 0 {
		parts = append(parts, m.inl.flight)
		n += len(m.inl.flight)
	}
	return bottomLines(parts, n, room)
}

// inlineRest is what the inline screen had not printed when the program
// ended, for Run to write below the last (empty) frame.
func (m Model) inlineRest() string {
	if m.c == nil {
		return ""
	}
	var b strings.Builder
	for _, l := range m.inl.flight {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	for _, bl := range m.tr.blocks {
		for _, l := range bl.lines(m.c) {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// unprinted is what of bs, the blocks that take the place of a streamed
// answer's published blocks (finishLiveAs), is not on the screen already:
// printed text cannot be taken back, so a block printed as it stands in
// bs, in order, is not printed again.
func (m Model) unprinted(published, bs []block) []block {
	if m.inl == nil {
		return bs
	}
	inTranscript := make(map[block]bool, len(m.tr.blocks))
	for _, b := range m.tr.blocks {
		inTranscript[b] = true
	}
	i := 0
	for _, p := range published {
		pb, ok := p.(*mdBlock)
		if inTranscript[p] || !ok || i == len(bs) {
			continue
		}
		if nb, ok := bs[i].(*mdBlock); ok && nb.src == pb.src {
			i++
		}
	}
	return bs[i:]
}

// inlineInit tells the renderer, on the inline screen, whether the
// terminal rewraps its lines on a narrower window.
func (m Model) inlineInit() tea.Cmd {
	if m.inl == nil {
		return nil
	}
	return func() tea.Msg { return tea.InlineReflowMsg(rewraps(os.Getenv)) }
}

// rewraps reports whether the terminal rewraps its lines when the window
// narrows. tmux does, as do most terminals (kitty, iTerm2, Terminal.app,
// VTE, Konsole, WezTerm, Alacritty, Windows Terminal); xterm, the Linux
// console, st, rxvt and GNU screen do not, or not surely, and there an
// inline view is drawn again over the rows it took.
func rewraps(getenv func(string) string) bool {
	if getenv("TMUX") != "" {
		return true
	}
	if getenv("XTERM_VERSION") != "" || getenv("STY") != "" {
		return false
	}
	term := getenv("TERM")
	for _, t := range []string{"linux", "st", "screen", "vt100", "vt220"} {
		if term == t || strings.HasPrefix(term, t+"-") {
			return false
		}
	}
	return !strings.HasPrefix(term, "rxvt")
}

// inlineMouse answers a mouse toggle on the inline screen, where the
// mouse is the terminal's.
func (m Model) inlineMouse() (Model, tea.Cmd) {
	return m.addBlock(noticeBlock("the screen is inline: the mouse stays the terminal's, which selects text and scrolls its own scrollback")), nil
}
