package ui

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"myclaw/internal/suggest"
)

// keyScope is a set of places where keys are read. Two actions conflict
// when they share a place and a key: only one of them can have it.
type keyScope uint8

const (
	scopePrompt   keyScope = 1 << iota // the prompt and the transcript
	scopePane                          // the approval pane, choosing
	scopePaneEdit                      // the pane's editors (a reason, the arguments)
	scopeList                          // a list to choose from (/sessions, /model)
	scopeJob                           // a background job's output
	scopeAll      = scopePrompt | scopePane | scopePaneEdit | scopeList | scopeJob
	// scopeText are the places where a printable key types itself.
	scopeText = scopePrompt | scopePaneEdit | scopeList
)

// keyAction is one action of the KeyMap: the name [keys] and /help use,
// the /help group it is listed in, and where it is read.
type keyAction struct {
	name  string
	group int
	scope keyScope
	get   func(*KeyMap) *key.Binding
}

// keyActions lists every action in /help's order.
var keyActions = []keyAction{
	{"send", 0, scopePrompt | scopePaneEdit, func(k *KeyMap) *key.Binding { return &k.Send }},
	{"newline", 0, scopePrompt | scopePaneEdit, func(k *KeyMap) *key.Binding { return &k.Newline }},
	{"history_prev", 0, scopePrompt, func(k *KeyMap) *key.Binding { return &k.HistoryPrev }},
	{"history_next", 0, scopePrompt, func(k *KeyMap) *key.Binding { return &k.HistoryNext }},
	{"complete", 0, scopePrompt, func(k *KeyMap) *key.Binding { return &k.Complete }},
	{"page_up", 0, scopePrompt | scopeJob, func(k *KeyMap) *key.Binding { return &k.PageUp }},
	{"page_down", 0, scopePrompt | scopeJob, func(k *KeyMap) *key.Binding { return &k.PageDown }},
	{"top", 0, scopePrompt, func(k *KeyMap) *key.Binding { return &k.Top }},
	{"bottom", 0, scopePrompt, func(k *KeyMap) *key.Binding { return &k.Bottom }},
	{"cancel", 0, scopePrompt | scopePaneEdit | scopeList | scopeJob, func(k *KeyMap) *key.Binding { return &k.Cancel }},
	{"interrupt", 0, scopeAll, func(k *KeyMap) *key.Binding { return &k.Interrupt }},
	{"toggle_tools", 0, scopePrompt, func(k *KeyMap) *key.Binding { return &k.ToggleTools }},
	{"toggle_think", 0, scopePrompt, func(k *KeyMap) *key.Binding { return &k.ToggleThink }},
	{"external_editor", 0, scopePrompt, func(k *KeyMap) *key.Binding { return &k.ExternalEditor }},
	{"expand_paste", 0, scopePrompt, func(k *KeyMap) *key.Binding { return &k.ExpandPaste }},
	{"toggle_mouse", 0, scopePrompt, func(k *KeyMap) *key.Binding { return &k.ToggleMouse }},
	{"cycle_level", 0, scopePrompt, func(k *KeyMap) *key.Binding { return &k.CycleLevel }},
	{"choose", 0, scopeList, func(k *KeyMap) *key.Binding { return &k.Choose }},

	{"approve_enter", 1, scopePane, func(k *KeyMap) *key.Binding { return &k.ApproveEnter }},
	{"approve_once", 1, scopePane, func(k *KeyMap) *key.Binding { return &k.ApproveOnce }},
	{"deny", 1, scopePane, func(k *KeyMap) *key.Binding { return &k.Deny }},
	{"deny_reason", 1, scopePane, func(k *KeyMap) *key.Binding { return &k.DenyReason }},
	{"deny_esc", 1, scopePane, func(k *KeyMap) *key.Binding { return &k.DenyEsc }},
	{"edit", 1, scopePane, func(k *KeyMap) *key.Binding { return &k.Edit }},
	{"details", 1, scopePane, func(k *KeyMap) *key.Binding { return &k.Details }},
	{"approve_session", 1, scopePane, func(k *KeyMap) *key.Binding { return &k.ApproveSession }},
	{"save_rule", 1, scopePane, func(k *KeyMap) *key.Binding { return &k.SaveRule }},
	{"save_rule_user_wide", 1, scopePane, func(k *KeyMap) *key.Binding { return &k.SaveRuleUserWide }},
	{"approve_network", 1, scopePane, func(k *KeyMap) *key.Binding { return &k.ApproveNetwork }},
	{"approve_network_session", 1, scopePane, func(k *KeyMap) *key.Binding { return &k.ApproveNetworkSession }},
	{"preview_run", 1, scopePane, func(k *KeyMap) *key.Binding { return &k.PreviewRun }},
	{"trust_hints", 1, scopePane, func(k *KeyMap) *key.Binding { return &k.TrustHints }},
	{"preview_up", 1, scopePane | scopeList, func(k *KeyMap) *key.Binding { return &k.PreviewUp }},
	{"preview_down", 1, scopePane | scopeList, func(k *KeyMap) *key.Binding { return &k.PreviewDown }},
	{"preview_pgup", 1, scopePane | scopeList, func(k *KeyMap) *key.Binding { return &k.PreviewPgUp }},
	{"preview_pgdown", 1, scopePane | scopeList, func(k *KeyMap) *key.Binding { return &k.PreviewPgDown }},

	{"left", 2, scopePrompt | scopePaneEdit, func(k *KeyMap) *key.Binding { return &k.Editor.Left }},
	{"right", 2, scopePrompt | scopePaneEdit, func(k *KeyMap) *key.Binding { return &k.Editor.Right }},
	{"up", 2, scopePrompt | scopePaneEdit, func(k *KeyMap) *key.Binding { return &k.Editor.Up }},
	{"down", 2, scopePrompt | scopePaneEdit, func(k *KeyMap) *key.Binding { return &k.Editor.Down }},
	{"line_start", 2, scopePrompt | scopePaneEdit, func(k *KeyMap) *key.Binding { return &k.Editor.LineStart }},
	{"line_end", 2, scopePrompt | scopePaneEdit, func(k *KeyMap) *key.Binding { return &k.Editor.LineEnd }},
	{"word_left", 2, scopePrompt | scopePaneEdit, func(k *KeyMap) *key.Binding { return &k.Editor.WordLeft }},
	{"word_right", 2, scopePrompt | scopePaneEdit, func(k *KeyMap) *key.Binding { return &k.Editor.WordRight }},
	{"delete_back", 2, scopePrompt | scopePaneEdit, func(k *KeyMap) *key.Binding { return &k.Editor.DeleteBack }},
	{"delete_forward", 2, scopePrompt | scopePaneEdit, func(k *KeyMap) *key.Binding { return &k.Editor.DeleteForward }},
	{"delete_word_back", 2, scopePrompt | scopePaneEdit, func(k *KeyMap) *key.Binding { return &k.Editor.DeleteWordBack }},
	{"delete_word_forward", 2, scopePrompt | scopePaneEdit, func(k *KeyMap) *key.Binding { return &k.Editor.DeleteWordForward }},
	{"delete_to_start", 2, scopePrompt | scopePaneEdit, func(k *KeyMap) *key.Binding { return &k.Editor.DeleteToStart }},
	{"delete_to_end", 2, scopePrompt | scopePaneEdit, func(k *KeyMap) *key.Binding { return &k.Editor.DeleteToEnd }},
	{"indent", 2, scopePrompt | scopePaneEdit, func(k *KeyMap) *key.Binding { return &k.Editor.Indent }},
}

// keyNames are the names of the keys that are not one character, as
// Bubble Tea names them ("ctrl+g", "pgup", "shift+tab", "f2").
var keyNames = func() map[string]bool {
	names := map[string]bool{}
	for k := tea.KeyType(-200); k < 200; k++ {
		if s := k.String(); utf8.RuneCountInString(s) > 1 {
			names[s] = true
		}
	}
	return names
}()

// normalKey checks a key as [keys] writes it and returns Bubble Tea's name
// for it: a named key ("ctrl+g", "f2"), one character ("y", "S"),
// "space", each optionally after "alt+".
func normalKey(k string) (string, error) {
	body, alt := strings.CutPrefix(k, "alt+")
	switch {
	case body == "space":
		body = " "
	case keyNames[body]:
	case utf8.RuneCountInString(body) == 1 && unicode.IsPrint([]rune(body)[0]):
	default:
		msg := fmt.Sprintf("%q is not a key: want a name such as \"ctrl+g\", \"alt+enter\", \"f2\", \"pgup\", or one character", k)
		if near := nearestName(body, sortedKeyNames()); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		return "", fmt.Errorf("%s", msg)
	}
	if alt {
		return "alt+" + body, nil
	}
	return body, nil
}

func sortedKeyNames() []string {
	out := make([]string, 0, len(keyNames))
	for n := range keyNames {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// printable says a key types a character where text is typed.
func printable(k string) bool {
	return utf8.RuneCountInString(k) == 1 || k == " "
}

// sharedByDesign lists the pairs of actions the standard map gives a key
// in common on purpose (history_prev and up both take "up": the cursor's
// line decides); [keys] does not make them a conflict.
var sharedByDesign = func() map[[2]string]bool {
	def := DefaultKeyMap()
	pairs := map[[2]string]bool{}
	for i, a := range keyActions {
		for _, b := range keyActions[i+1:] {
			if a.scope&b.scope != 0 && shareKey(*a.get(&def), *b.get(&def)) {
				pairs[[2]string{a.name, b.name}] = true
				pairs[[2]string{b.name, a.name}] = true
			}
		}
	}
	return pairs
}()

func shareKey(a, b key.Binding) bool {
	for _, k := range a.Keys() {
		if slices.Contains(b.Keys(), k) {
			return true
		}
	}
	return false
}

// ApplyKeys rebinds the actions [keys] names (action name → keys) and
// returns what it has to tell: unknown actions and keys, printable keys
// where text is typed, and conflicts. A key rebound to an action is taken
// from any other action that had it and shares a place with it; when two
// rebound actions claim the same key, neither gets it.
func ApplyKeys(k *KeyMap, bindings map[string][]string) []string {
	var notes []string
	byName := map[string]keyAction{}
	var names []string
	for _, a := range keyActions {
		byName[a.name] = a
		names = append(names, a.name)
	}
	rebound := map[string][]string{}
	for _, name := range sortedMapKeys(bindings) {
		a, ok := byName[name]
		if !ok {
			msg := fmt.Sprintf("[keys] %s: no such action; /help lists them", name)
			if near := nearestName(name, names); near != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", near)
			}
			notes = append(notes, msg)
			continue
		}
		var keys []string
		for _, raw := range bindings[name] {
			nk, err := normalKey(raw)
			if err != nil {
				notes = append(notes, fmt.Sprintf("[keys] %s: %v", name, err))
				continue
			}
			if a.scope&scopeText != 0 && printable(nk) {
				notes = append(notes, fmt.Sprintf("[keys] %s: %q would type a character in the prompt, so it is not bound; use ctrl+, alt+ or a named key", name, raw))
				continue
			}
			if !slices.Contains(keys, nk) {
				keys = append(keys, nk)
			}
		}
		if len(keys) == 0 {
			continue
		}
		rebound[name] = keys
	}
	for _, name := range sortedMapKeys(rebound) {
		b := byName[name].get(k)
		*b = key.NewBinding(key.WithKeys(rebound[name]...), key.WithHelp(rebound[name][0], b.Help().Desc))
	}
	// Conflicts: a rebound key against every other action that has it.
	for _, a := range keyActions {
		keys, ok := rebound[a.name]
		if !ok {
			continue
		}
		for _, kk := range keys {
			for _, b := range keyActions {
				if b.name == a.name || a.scope&b.scope == 0 || sharedByDesign[[2]string{a.name, b.name}] {
					continue
				}
				bb := b.get(k)
				if !slices.Contains(bb.Keys(), kk) {
					continue
				}
				if _, both := rebound[b.name]; both {
					if a.name < b.name {
						notes = append(notes, fmt.Sprintf("[keys] %s and %s both take %s: a conflict, so neither does", a.name, b.name, kk))
						dropKey(a.get(k), kk)
						dropKey(bb, kk)
					}
					continue
				}
				dropKey(bb, kk)
				msg := fmt.Sprintf("[keys] %s takes %s from %s", a.name, kk, b.name)
				if len(bb.Keys()) == 0 {
					msg += ", which has no key left"
				}
				notes = append(notes, msg)
			}
		}
	}
	return notes
}

// dropKey takes kk from b, keeping its help text; the help names the
// first key left.
func dropKey(b *key.Binding, kk string) {
	keys := slices.DeleteFunc(slices.Clone(b.Keys()), func(s string) bool { return s == kk })
	desc := b.Help().Desc
	if len(keys) == 0 {
		*b = key.NewBinding(key.WithHelp("", desc))
		return
	}
	*b = key.NewBinding(key.WithKeys(keys...), key.WithHelp(keys[0], desc))
}

func sortedMapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// nearestName is the name of list closest to name, "" when none is close.
func nearestName(name string, list []string) string {
	best, bestD := "", 0
	for _, n := range list {
		if d := suggest.EditDistance(name, n); best == "" || d < bestD {
			best, bestD = n, d
		}
	}
	if bestD > max(2, len(name)/3) {
		return ""
	}
	return best
}

// keysHelp is /help's account of the keys: every action in its group,
// with the keys in force and its name for [keys].
func keysHelp(c *common) []string {
	st := &c.styles
	var out []string
	for g, title := range helpGroups {
		if g > 0 {
			out = append(out, "")
		}
		head := st.Bold.Render(title)
		if g == 0 {
			head += st.Dim.Render("  ([keys] in the config rebinds each by its [name])")
		}
		out = append(out, head)
		for _, a := range keyActions {
			if a.group != g {
				continue
			}
			b := a.get(&c.keys)
			keys := allKeys(*b)
			if keys == "" {
				keys = "(none)"
			}
			out = append(out, helpLines(c, keys, b.Help().Desc+" ["+a.name+"]")...)
		}
	}
	return out
}
