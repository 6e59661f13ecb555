package ui

import (
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/tools"
	"myclaw/tools/termtext"
)

// maxCopyBytes bounds what /copy sends: terminals cap OSC 52 (xterm and
// tmux at about 100 KB of base64), and a longer one is dropped whole.
const maxCopyBytes = 74 * 1024

// maxAnswers is how many answers /copy can reach back.
const maxAnswers = 100

// answer is the text of one turn's answer, as the transcript shows it
// (already free of control sequences), for /copy.
type answer struct {
	turn int
	text string
}

// keepAnswer adds text to the answer of turn, or starts a new one.
func (m Model) keepAnswer(turn int, text string) Model {
	if text = strings.Trim(text, "\n"); strings.TrimSpace(text) == "" {
		return m
	}
	if n := len(m.answers); n > 0 && m.answers[n-1].turn == turn {
		m.answers[n-1].text += "\n\n" + text
		return m
	}
	m.answers = append(m.answers, answer{turn: turn, text: text})
	if len(m.answers) > maxAnswers {
		m.answers = m.answers[len(m.answers)-maxAnswers:]
	}
	return m
}

// copyCommand runs /copy [N] (the last answer, or the Nth from last) and
// /copy code [N] (the Nth code block of the last answer, the last by
// default).
func (m Model) copyCommand(args []string) (Model, tea.Cmd) {
	usage := func() (Model, tea.Cmd) {
		m = m.addBlock(errorBlock("usage: /copy [N] | /copy code [N]", "copies the last answer (N: the Nth from last), or a code block of the last answer, to the clipboard"))
		return m, nil
	}
	code := len(args) > 0 && args[0] == "code"
	if code {
		args = args[1:]
	}
	if len(args) > 1 {
		return usage()
	}
	n := 0
	if len(args) == 1 {
		v, err := strconv.Atoi(args[0])
		if err != nil || v < 1 {
			return usage()
		}
		n = v
	}
	if len(m.answers) == 0 {
		m = m.addBlock(errorBlock("nothing to copy yet", "/copy copies the model's answers"))
		return m, nil
	}
	what, text := "", ""
	switch {
	case code:
		blocks := codeBlocks(m.answers[len(m.answers)-1].text)
		if len(blocks) == 0 {
			m = m.addBlock(errorBlock("the last answer has no code block", "/copy copies the whole answer"))
			return m, nil
		}
		i := len(blocks) - 1
		if n > 0 {
			i = n - 1
		}
		if i >= len(blocks) {
			m = m.addBlock(errorBlock(fmt.Sprintf("the last answer has %s", tools.Count(len(blocks), "code block")), ""))
			return m, nil
		}
		what, text = fmt.Sprintf("code block %d of %d of the last answer", i+1, len(blocks)), blocks[i]
		if len(blocks) == 1 {
			what = "the code block of the last answer"
		}
	default:
		if n == 0 {
			n = 1
		}
		if n > len(m.answers) {
			m = m.addBlock(errorBlock(fmt.Sprintf("there %s only %s to copy", map[bool]string{true: "is", false: "are"}[len(m.answers) == 1], tools.Count(len(m.answers), "answer")), ""))
			return m, nil
		}
		what, text = "the last answer", m.answers[len(m.answers)-n].text
		if n > 1 {
			what = fmt.Sprintf("answer %d from last", n)
		}
	}
	text = clipboardText(text)
	if len(text) > maxCopyBytes {
		m = m.addBlock(errorBlock(fmt.Sprintf("%s is %s, more than the %s a terminal takes through OSC 52: nothing was copied", what, tools.HumanSize(int64(len(text))), tools.HumanSize(maxCopyBytes)),
			"/copy code N copies one code block; the whole session is in the transcript under the state directory"))
		return m, nil
	}
	lines := strings.Count(text, "\n") + 1
	msg := fmt.Sprintf("copied %s (%s, %s) to the clipboard through the terminal (OSC 52)", what, tools.Count(lines, "line"), tools.HumanSize(int64(len(text))))
	if hint := clipboardHint(); hint != "" {
		msg += "; " + hint
	}
	m = m.addBlock(noticeBlock(msg))
	w := m.notify.w
	seq := osc52(text)
	return m, func() tea.Msg {
		_, _ = io.WriteString(w, seq)
		return nil
	}
}

// osc52 is the sequence that puts text on the system clipboard.
func osc52(text string) string {
	return "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\x07"
}

// clipboardText is what may be pasted later into a shell or an editor: no
// control sequences or characters (tabs and newlines kept), no invisible
// or bidi characters.
func clipboardText(s string) string {
	s = termtext.StripTags(termtext.Strip(s))
	return strings.Map(func(r rune) rune {
		if termtext.Invisible(r) && r != '\u200d' { // ZWJ holds emoji together
			return -1
		}
		return r
	}, strings.TrimSpace(s))
}

// clipboardHint says what the terminal may need for OSC 52, where that is
// known to be off by default.
func clipboardHint() string {
	switch {
	case os.Getenv("TMUX") != "":
		return "inside tmux it needs set -g set-clipboard on"
	case strings.HasPrefix(os.Getenv("TERM"), "screen"):
		return "GNU screen does not pass OSC 52 on; the terminal outside it may"
	}
	return "if nothing arrives, your terminal does not allow OSC 52 (xterm: allowWindowOps; most others do)"
}

// codeBlocks returns the contents of the fenced code blocks of markdown.
func codeBlocks(src string) []string {
	var out []string
	var cur []string
	fence := ""
	for l := range strings.SplitSeq(src, "\n") {
		switch {
		case fence == "":
			if f := openFence(l); f != "" {
				fence, cur = f, nil
			}
		case closesFence(l, fence):
			out = append(out, strings.Join(cur, "\n"))
			fence = ""
		default:
			cur = append(cur, l)
		}
	}
	if fence != "" && len(cur) > 0 {
		out = append(out, strings.Join(cur, "\n"))
	}
	return out
}

// setMouse turns mouse capture on or off. Off, the terminal's own drag
// selects text (and the wheel may scroll the terminal, not the transcript).
func (m Model) setMouse(on bool) (Model, tea.Cmd) {
	if m.inl != nil {
		return m.inlineMouse()
	}
	if on == !m.c.mouseOff {
		return m, nil
	}
	m.c.mouseOff = !on
	m.status.mouseOff = !on
	k := m.c.keys.ToggleMouse.Help().Key
	if on {
		m = m.addBlock(noticeBlock("mouse capture on: the wheel scrolls the transcript (" + k + " or /mouse off lets the terminal select text)"))
		return m, tea.EnableMouseCellMotion
	}
	m = m.addBlock(noticeBlock("mouse capture off: drag to select and copy with the terminal; PgUp/PgDn scroll (" + k + " or /mouse on brings the wheel back)"))
	return m, tea.DisableMouse
}
