package config

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ThemeChoice is [theme]: which palette the TUI draws with.
type ThemeChoice struct {
	// Name is auto (the default: dark or light as the terminal's
	// background is), dark, light, or a [themes.NAME] of the config.
	Name string `toml:"name"`
}

// ThemeSpec is one [themes.NAME] entry: a palette built on dark or light,
// with the colours it sets by role ("#rrggbb", "#rgb" or 0-255).
type ThemeSpec struct {
	Base           string `toml:"base"`
	Background     string `toml:"background"`
	Text           string `toml:"text"`
	Muted          string `toml:"muted"`
	Accent         string `toml:"accent"`
	Success        string `toml:"success"`
	Warning        string `toml:"warning"`
	Danger         string `toml:"danger"`
	Info           string `toml:"info"`
	Untrusted      string `toml:"untrusted"`
	UntrustedFrame string `toml:"untrusted_frame"`
	Border         string `toml:"border"`
	DiffAdded      string `toml:"diff_added"`
	DiffRemoved    string `toml:"diff_removed"`
	DiffHunk       string `toml:"diff_hunk"`
	Code           string `toml:"code"`
}

// Colours returns the colour roles the theme sets, by their config names.
func (t ThemeSpec) Colours() map[string]string {
	out := map[string]string{}
	v := reflect.ValueOf(t)
	for i := range v.NumField() {
		name := tomlName(v.Type().Field(i))
		if name == "base" || name == "background" {
			continue
		}
		if s := v.Field(i).String(); s != "" {
			out[name] = s
		}
	}
	return out
}

// StatusLine is [status]: the segments of the status line, in order, or
// a command whose output is the line. Only the user's config may set it.
type StatusLine struct {
	Line    []string `toml:"line"`
	Command string   `toml:"command"`
}

// StatusSegments are the names [status] line takes.
var StatusSegments = []string{"model", "level", "sandbox", "workspace", "tokens", "cost", "undo", "branch", "jobs", "agents"}

var hexColourRE = regexp.MustCompile(`^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

func colourOK(s string) bool {
	if hexColourRE.MatchString(s) {
		return true
	}
	n, err := strconv.Atoi(s)
	return err == nil && n >= 0 && n <= 255 && s == strconv.Itoa(n)
}

// KeyBindings returns [keys] as action → keys (a key or a list of keys).
func (c *Config) KeyBindings() map[string][]string {
	out := map[string][]string{}
	for action, v := range c.Keys {
		switch v := v.(type) {
		case string:
			out[action] = []string{v}
		case []any:
			for _, k := range v {
				if s, ok := k.(string); ok {
					out[action] = append(out[action], s)
				}
			}
		}
	}
	return out
}

// checkLooks checks [theme], [themes], [keys] and [status].
func (c *Config) checkLooks(bad func(table, key, msg string) error) error {
	for _, name := range sortedKeys(c.Themes) {
		t := c.Themes[name]
		table := "themes." + name
		if name == "auto" || name == "dark" || name == "light" {
			return bad(table, "", fmt.Sprintf("%q is a built-in theme: give yours another name", name))
		}
		if t.Base != "" && t.Base != "dark" && t.Base != "light" {
			return bad(table, "base", fmt.Sprintf("%q: want dark or light (the theme whose colours the unset roles take)", t.Base))
		}
		if t.Background != "" && !colourOK(t.Background) {
			return bad(table, "background", colourMsg(t.Background))
		}
		colours := t.Colours()
		for _, role := range sortedKeys(colours) {
			if !colourOK(colours[role]) {
				return bad(table, role, colourMsg(colours[role]))
			}
		}
	}
	switch n := c.Theme.Name; n {
	case "", "auto", "dark", "light":
	default:
		if _, ok := c.Themes[n]; !ok {
			return bad("theme", "name", fmt.Sprintf("%q: want auto, dark, light or a theme defined as [themes.%s]", n, n))
		}
	}
	for _, action := range sortedKeys(c.Keys) {
		ok := false
		switch v := c.Keys[action].(type) {
		case string:
			ok = v != ""
		case []any:
			ok = len(v) > 0
			for _, k := range v {
				if s, isStr := k.(string); !isStr || s == "" {
					ok = false
				}
			}
		}
		if !ok {
			return bad("keys", action, "want a key such as \"ctrl+g\" or a list of keys")
		}
	}
	if c.Status.Command != "" && len(c.Status.Line) > 0 {
		return bad("status", "command", "set either line (the segments) or command, not both")
	}
	if c.Status.Command != "" && strings.TrimSpace(c.Status.Command) == "" {
		return bad("status", "command", "is empty")
	}
	seen := map[string]bool{}
	for _, s := range c.Status.Line {
		if !slices.Contains(StatusSegments, s) {
			return bad("status", "line", fmt.Sprintf("%q is not a segment: want some of %s", s, strings.Join(StatusSegments, ", ")))
		}
		if seen[s] {
			return bad("status", "line", fmt.Sprintf("%q is there twice", s))
		}
		seen[s] = true
	}
	return nil
}

func colourMsg(s string) string {
	return fmt.Sprintf("%q is not a colour: want \"#rrggbb\", \"#rgb\" or an xterm-256 number such as \"111\"", s)
}

// setsLooks says c sets the theme, key or status line, which only the
// user's own config may: a status command runs with the user's rights.
func (c *Config) setsLooks() bool {
	return c.Theme != (ThemeChoice{}) || len(c.Themes) > 0 || len(c.Keys) > 0 || len(c.Status.Line) > 0 || c.Status.Command != ""
}
