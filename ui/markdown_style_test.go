package ui

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"myclaw/agent"
)

const styledAnswer = "# Release\n\n## Setup\n\nRun `go test ./...` in `ui/` first.\n\n### Notes\n\nDone.\n"

func renderStyled(t *testing.T, dark bool, profile termenv.Profile) []string {
	t.Helper()
	md := newMarkdown(map[bool]Theme{true: DarkTheme, false: LightTheme}[dark], profile, slog.New(slog.NewTextHandler(io.Discard, nil)))
	return md.render(styledAnswer, 60)
}

// lineOf returns the rendered line whose text, without escapes and outer
// spaces, is want.
func lineOf(t *testing.T, lines []string, want string) string {
	t.Helper()
	for _, l := range lines {
		if strings.TrimSpace(ansi.Strip(l)) == want {
			return l
		}
	}
	t.Fatalf("no line %q in:\n%s", want, ansi.Strip(strings.Join(lines, "\n")))
	return ""
}

func TestMarkdownHeadingsAndInlineCodeInColour(t *testing.T) {
	for _, dark := range []bool{true, false} {
		name := "light"
		if dark {
			name = "dark"
		}
		t.Run(name, func(t *testing.T) {
			lines := renderStyled(t, dark, termenv.ANSI256)
			for _, h := range []string{"Setup", "Notes"} {
				l := lineOf(t, lines, h)
				if !strings.Contains(l, "\x1b[1;") && !strings.Contains(l, "\x1b[1m") {
					t.Errorf("heading %q is not bold: %q", h, l)
				}
			}
			code := lineOf(t, lines, "Run go test ./... in ui/ first.")
			if strings.Contains(code, "48;5;") {
				t.Errorf("inline code has a background: %q", code)
			}
			if !strings.Contains(code, "38;5;") {
				t.Errorf("inline code has no colour of its own: %q", code)
			}
		})
	}
}

func TestMarkdownHeadingsKeepTheirMarksWithoutColour(t *testing.T) {
	lines := renderStyled(t, true, termenv.Ascii)
	for _, want := range []string{"# Release", "## Setup", "### Notes", "Run go test ./... in ui/ first."} {
		lineOf(t, lines, want)
	}
}

func TestMarkdownAnswerGolden(t *testing.T) {
	m := newTestModel(t, newFake())
	m = startFakeTurn(t, m, "How do I test it?")
	m = events(m,
		agent.TextDelta{Text: styledAnswer},
		agent.DoneEvent{Reason: agent.DoneStop, Rounds: 1},
	)
	m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})
	golden.RequireEqual(t, []byte(screen(m)))
}
