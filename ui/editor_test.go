package ui

import (
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

func TestEditorKeys(t *testing.T) {
	tests := []struct {
		name  string
		start string
		keys  []tea.KeyMsg
		want  string
		col   int
	}{
		{"type", "", []tea.KeyMsg{keyMsg("h"), keyMsg("i"), keyMsg(" "), keyMsg("x")}, "hi x", 4},
		{"backspace joins lines", "ab\ncd", []tea.KeyMsg{keyMsg("ctrl+a"), keyMsg("backspace")}, "abcd", 2},
		{"delete joins lines", "ab\ncd", []tea.KeyMsg{keyMsg("up"), keyMsg("ctrl+e"), {Type: tea.KeyDelete}}, "abcd", 2},
		{"left crosses lines", "ab\ncd", []tea.KeyMsg{keyMsg("ctrl+a"), keyMsg("left"), keyMsg("X")}, "abX\ncd", 3},
		{"newline splits", "abcd", []tea.KeyMsg{keyMsg("left"), keyMsg("left"), keyMsg("alt+enter")}, "ab\ncd", 0},
		{"ctrl+w deletes a word", "go test ./...", []tea.KeyMsg{keyMsg("ctrl+w")}, "go test ", 8},
		{"ctrl+k kills to the end", "left|right", []tea.KeyMsg{keyMsg("left"), keyMsg("left"), keyMsg("left"), keyMsg("left"), keyMsg("left"),
			{Type: tea.KeyCtrlK}}, "left|", 5},
		{"ctrl+u kills to the start", "left|right", []tea.KeyMsg{keyMsg("left"), keyMsg("left"), keyMsg("left"), keyMsg("left"), keyMsg("left"),
			{Type: tea.KeyCtrlU}}, "right", 0},
		{"ctrl+u on the second line keeps the first", "one\ntwo three", []tea.KeyMsg{keyMsg("left"), keyMsg("left"), {Type: tea.KeyCtrlU}}, "one\nee", 0},
		{"alt+b moves a word", "one two", []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune("b"), Alt: true}, keyMsg("X")}, "one Xtwo", 5},
		{"paste normalises", "", []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune("a\r\nb\tc\x1bd\re"), Paste: true}}, "a\nb    c\ne", 1},
		{"paste drops whole escape sequences", "", []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune("hello \x1b[31mred\x1b[0m \x1b]0;title\x07\u202eok"), Paste: true}}, "hello red ok", 12},
		{"alt+runes are not typed", "", []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune("x"), Alt: true}}, "", 0},
	}
	c := testCommon()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEditor(c, "", 6)
			e.setValue(tt.start)
			for _, k := range tt.keys {
				e.update(k)
			}
			if got := e.value(); got != tt.want || e.col != tt.col {
				t.Errorf("got %q col %d; want %q col %d", got, e.col, tt.want, tt.col)
			}
		})
	}
}

func TestEditorView(t *testing.T) {
	c := testCommon()
	e := newEditor(c, "type here", 3)
	e.setWidth(10)
	if got := ansi.Strip(strings.Join(e.view(), "\n")); got != " type here" {
		t.Errorf("got placeholder view %q; want %q", got, " type here")
	}
	e.setValue("0123456789abcdef\n日本語テキスト")
	rows := e.view()
	got := make([]string, len(rows))
	for i, r := range rows {
		got[i] = ansi.Strip(r)
		if w := ansi.StringWidth(r); w > 10 {
			t.Errorf("row %d is %d wide; want at most 10", i, w)
		}
	}
	// Three rows fit; the cursor (at the end) must be among them.
	want := []string{"abcdef", "日本語テキ", "スト "}
	if !slices.Equal(got, want) {
		t.Errorf("got rows %q; want %q", got, want)
	}
	if !strings.Contains(rows[2], cursorOn) {
		t.Errorf("got no cursor on the last row: %q", rows[2])
	}
	if len(rows) != 3 {
		t.Errorf("got %d rows; want 3 (the maximum)", len(rows))
	}
}

// The prompt wraps at spaces, as the transcript does; a word longer than
// the row is cut; every rune is on exactly one row and no row is too wide.
func TestEditorWrapsAtWords(t *testing.T) {
	c := testCommon()
	e := newEditor(c, "", 10)
	e.setWidth(20)
	text := "fix the failing test in calc_test.go then run go vet on supercalifragilisticexpialidocious"
	e.setValue(text)
	rows, _ := e.layout()
	var got []string
	joined := ""
	for _, r := range rows {
		s := string(e.lines[r.line][r.start:r.end])
		got = append(got, s)
		joined += s
		if w := ansi.StringWidth(s); w > 20 {
			t.Errorf("row %q is %d wide", s, w)
		}
	}
	if joined != text {
		t.Fatalf("rows %q do not make up the text", got)
	}
	want := []string{"fix the failing test", " in calc_test.go ", "then run go vet on ", "supercalifragilistic", "expialidocious"}
	if !slices.Equal(got, want) {
		t.Fatalf("rows %q; want %q", got, want)
	}
}

func TestHomeEndMoveInTheEditors(t *testing.T) {
	m := typeText(newTestModel(t, newFake()), "hello world")
	m = update(m, keyMsg("home"))
	m = typeText(m, ">")
	m = update(m, keyMsg("end"))
	m = typeText(m, "<")
	m = update(m, keyMsg("ctrl+left"))
	m = typeText(m, "|")
	if got := m.input.ta.value(); got != ">hello |world<" {
		t.Fatalf("prompt %q; want home, end and ctrl+left to move the cursor", got)
	}
	// The pane's argument editor too.
	pm, _ := withPane(t, shellRequest())
	pm = press(t, pm, "e", "home")
	pm = typeText(pm, "X")
	pm = update(pm, keyMsg("end"))
	pm = typeText(pm, "Y")
	if v := pm.pane.editor.value(); !strings.HasPrefix(v, "X") || !strings.HasSuffix(v, "Y") {
		t.Fatalf("pane editor %q; want home and end to work", v)
	}
}
