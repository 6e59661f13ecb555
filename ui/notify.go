package ui

import (
	"io"
	"os"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// Notification modes (the config's ui.notify).
const (
	NotifyOff  = "off"
	NotifyBell = "bell"
	NotifyOSC  = "osc"
)

// notifier calls for attention when a turn ends or an approval waits
// while the terminal is not focused. Terminals report focus once asked
// (tea.WithReportFocus); one that never reports it is taken as focused,
// so nothing is ever sent to it.
type notifier struct {
	mode    string
	w       io.Writer
	term    string // $TERM, for the OSC flavour
	focused bool
}

func newNotifier(mode string, w io.Writer) *notifier {
	if w == nil {
		w = os.Stdout
	}
	return &notifier{mode: mode, w: w, term: os.Getenv("TERM"), focused: true}
}

// bytes are what to write for text: BEL, or a desktop notification by
// OSC 9 (iTerm2, WezTerm, Ghostty, kitty, Windows Terminal) or OSC 777
// (foot, urxvt). The text has its controls removed and is one line.
func (n *notifier) bytes(text string) string {
	text = oneLine(text)
	switch n.mode {
	case NotifyBell:
		return "\a"
	case NotifyOSC:
		if strings.HasPrefix(n.term, "foot") || strings.HasPrefix(n.term, "rxvt") {
			return "\x1b]777;notify;myclaw;" + strings.ReplaceAll(text, ";", ",") + "\x07"
		}
		return "\x1b]9;myclaw: " + text + "\x07"
	}
	return ""
}

// notify returns a Cmd that writes the notification, or nil when the
// terminal is focused or notifications are off. Separate writes to a
// terminal do not interleave, so this cannot split a frame's sequences.
func (n *notifier) notify(text string) tea.Cmd {
	if n == nil || n.focused {
		return nil
	}
	b := n.bytes(text)
	if b == "" {
		return nil
	}
	w := n.w
	return func() tea.Msg {
		_, _ = io.WriteString(w, b)
		return nil
	}
}
