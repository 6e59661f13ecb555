package ui

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/lucasb-eyer/go-colorful"
	"github.com/muesli/termenv"
)

// Theme is the palette every style is built from: one colour per role.
// Under NO_COLOR lipgloss drops them all.
type Theme struct {
	Name string
	// Dark says the theme is made for a dark background; markdown then
	// uses glamour's dark style.
	Dark bool
	// Background is the background the theme is made for. It is never
	// painted (the terminal's own shows); the contrast of every role is
	// measured against it.
	Background lipgloss.Color

	Text    lipgloss.Color // what is read: prompts, tool arguments, untrusted text
	Muted   lipgloss.Color // hints, notices, the status line, the workspace's frame
	Accent  lipgloss.Color // the prompt mark, tool names, keys, titles
	Success lipgloss.Color // a call that worked, low risk
	Warning lipgloss.Color // running, denied, medium risk, autonomy full
	Danger  lipgloss.Color // errors, high risk, unsandboxed
	Info    lipgloss.Color // autonomy auto-edit
	// Untrusted labels text from outside (a tool's output, an MCP form);
	// UntrustedFrame draws the frame around it.
	Untrusted      lipgloss.Color
	UntrustedFrame lipgloss.Color
	// Border draws rules that only separate (the prompt's rule).
	Border      lipgloss.Color
	DiffAdded   lipgloss.Color
	DiffRemoved lipgloss.Color
	DiffHunk    lipgloss.Color
	// Code is inline code in the model's markdown: a tint, not a badge.
	Code lipgloss.Color
}

// ThemeRole names one colour of a Theme as the config writes it.
type ThemeRole struct {
	Name string
	// Frame roles only draw lines: they need less contrast than text.
	Frame bool
	get   func(*Theme) *lipgloss.Color
}

// ThemeRoles lists every role, in the order the README documents them.
var ThemeRoles = []ThemeRole{
	{Name: "text", get: func(t *Theme) *lipgloss.Color { return &t.Text }},
	{Name: "muted", get: func(t *Theme) *lipgloss.Color { return &t.Muted }},
	{Name: "accent", get: func(t *Theme) *lipgloss.Color { return &t.Accent }},
	{Name: "success", get: func(t *Theme) *lipgloss.Color { return &t.Success }},
	{Name: "warning", get: func(t *Theme) *lipgloss.Color { return &t.Warning }},
	{Name: "danger", get: func(t *Theme) *lipgloss.Color { return &t.Danger }},
	{Name: "info", get: func(t *Theme) *lipgloss.Color { return &t.Info }},
	{Name: "untrusted", get: func(t *Theme) *lipgloss.Color { return &t.Untrusted }},
	{Name: "untrusted_frame", Frame: true, get: func(t *Theme) *lipgloss.Color { return &t.UntrustedFrame }},
	{Name: "border", Frame: true, get: func(t *Theme) *lipgloss.Color { return &t.Border }},
	{Name: "diff_added", get: func(t *Theme) *lipgloss.Color { return &t.DiffAdded }},
	{Name: "diff_removed", get: func(t *Theme) *lipgloss.Color { return &t.DiffRemoved }},
	{Name: "diff_hunk", get: func(t *Theme) *lipgloss.Color { return &t.DiffHunk }},
	{Name: "code", get: func(t *Theme) *lipgloss.Color { return &t.Code }},
}

// Colour returns the colour of the role named name.
func (t Theme) Colour(name string) (lipgloss.Color, bool) {
	for _, r := range ThemeRoles {
		if r.Name == name {
			return *r.get(&t), true
		}
	}
	return "", false
}

// The built-in themes. Their colours are xterm-256 numbers, which every
// colour terminal shows alike; theme_test.go holds each to WCAG contrast
// against its background and the other usual ones.
var (
	DarkTheme = Theme{
		Name: "dark", Dark: true, Background: "#000000",
		Text: "252", Muted: "246", Accent: "111", Success: "78", Warning: "221", Danger: "203", Info: "80",
		Untrusted: "213", UntrustedFrame: "213", Border: "244",
		DiffAdded: "78", DiffRemoved: "203", DiffHunk: "80", Code: "152",
	}
	LightTheme = Theme{
		Name: "light", Dark: false, Background: "#ffffff",
		Text: "236", Muted: "242", Accent: "25", Success: "22", Warning: "94", Danger: "160", Info: "23",
		Untrusted: "127", UntrustedFrame: "127", Border: "244",
		DiffAdded: "22", DiffRemoved: "160", DiffHunk: "23", Code: "24",
	}
)

// ThemeAuto picks dark or light from the terminal's background.
const ThemeAuto = "auto"

// ThemeSpec is a user theme: the built-in theme it starts from ("dark"
// or "light"; "" is dark), an optional background, and the colours it
// changes, by role name.
type ThemeSpec struct {
	Base       string
	Background string
	Colours    map[string]string
}

var hexColour = regexp.MustCompile(`^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

// CheckColour says what is wrong with a colour as the config writes it:
// "#rrggbb", "#rgb" or an xterm-256 number (0-255).
func CheckColour(s string) error {
	if hexColour.MatchString(s) {
		return nil
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n <= 255 && s == strconv.Itoa(n) {
		return nil
	}
	return fmt.Errorf("%q is not a colour: want \"#rrggbb\", \"#rgb\" or an xterm-256 number such as \"111\"", s)
}

// ResolveTheme finds the theme called name: "auto" (or "") is dark or
// light as dark says (the terminal's background), "dark" and "light" are
// built in, anything else is one of user. A user theme may not reuse a
// built-in name.
func ResolveTheme(name string, user map[string]ThemeSpec, dark bool) (Theme, error) {
	switch name {
	case "", ThemeAuto:
		if dark {
			return DarkTheme, nil
		}
		return LightTheme, nil
	case "dark":
		return DarkTheme, nil
	case "light":
		return LightTheme, nil
	}
	spec, ok := user[name]
	if !ok {
		names := []string{ThemeAuto, "dark", "light"}
		for n := range user {
			names = append(names, n)
		}
		slices.Sort(names[3:])
		return Theme{}, fmt.Errorf("no theme %q: want one of %s, or define [themes.%s]", name, strings.Join(names, ", "), name)
	}
	return spec.Build(name)
}

// Build makes the theme: its base's colours, with the ones it sets.
func (s ThemeSpec) Build(name string) (Theme, error) {
	var t Theme
	switch s.Base {
	case "", "dark":
		t = DarkTheme
	case "light":
		t = LightTheme
	default:
		return Theme{}, fmt.Errorf("themes.%s: base %q: want dark or light", name, s.Base)
	}
	t.Name = name
	if s.Background != "" {
		if err := CheckColour(s.Background); err != nil {
			return Theme{}, fmt.Errorf("themes.%s: background: %w", name, err)
		}
		t.Background = lipgloss.Color(s.Background)
	}
	for role, v := range s.Colours {
		i := slices.IndexFunc(ThemeRoles, func(r ThemeRole) bool { return r.Name == role })
		if i < 0 {
			return Theme{}, fmt.Errorf("themes.%s: no colour role %q", name, role)
		}
		if err := CheckColour(v); err != nil {
			return Theme{}, fmt.Errorf("themes.%s: %s: %w", name, role, err)
		}
		*ThemeRoles[i].get(&t) = lipgloss.Color(v)
	}
	return t, nil
}

// colourRGB is the colour a terminal shows for c: hex as written, 16-255
// by the xterm palette. 0-15 are the terminal's own palette: unknown.
func colourRGB(c lipgloss.Color) (colorful.Color, bool) {
	s := string(c)
	if strings.HasPrefix(s, "#") {
		col, err := colorful.Hex(expandHex(s))
		return col, err == nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 16 || n > 255 {
		return colorful.Color{}, false
	}
	return termenv.ConvertToRGB(termenv.ANSI256Color(n)), true
}

func expandHex(s string) string {
	if len(s) == 4 {
		return "#" + string([]byte{s[1], s[1], s[2], s[2], s[3], s[3]})
	}
	return s
}

// contrast is the WCAG 2 contrast ratio of two colours (1 to 21).
func contrast(a, b colorful.Color) float64 {
	lum := func(c colorful.Color) float64 {
		ch := func(v float64) float64 {
			if v <= 0.03928 {
				return v / 12.92
			}
			return math.Pow((v+0.055)/1.055, 2.4)
		}
		return 0.2126*ch(c.R) + 0.7152*ch(c.G) + 0.0722*ch(c.B)
	}
	la, lb := lum(a), lum(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// minContrast is what a role needs against the background: WCAG AA for
// text, and for graphics (3:1) on roles that only draw lines.
func (r ThemeRole) minContrast() float64 {
	if r.Frame {
		return 3
	}
	return 4.5
}

// HardToRead lists the roles of t whose contrast with its background is
// under what they need, for a user theme to be warned about at start.
func (t Theme) HardToRead() []string {
	bg, ok := colourRGB(t.Background)
	if !ok {
		return nil
	}
	var out []string
	for _, r := range ThemeRoles {
		fg := *r.get(&t)
		col, ok := colourRGB(fg)
		if !ok {
			continue
		}
		if c := contrast(col, bg); c < r.minContrast() {
			out = append(out, fmt.Sprintf("%s (%s) has contrast %.1f on %s, under %.1f", r.Name, fg, c, t.Background, r.minContrast()))
		}
	}
	return out
}
