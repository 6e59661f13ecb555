package ui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/approval"
	"myclaw/tools"
	"myclaw/tools/termtext"
)

// CustomCommand is a prompt file run as /NAME: the user's
// ($XDG_CONFIG_HOME/myclaw/commands/NAME.md) or the workspace's
// (.myclaw/commands/NAME.md, only in a trusted folder).
type CustomCommand struct {
	Name string
	// Desc comes from the front matter's description (or the first line).
	Desc string
	// Hint names the arguments, from the front matter's argument-hint.
	Hint string
	// Mode is the level the prompt runs at, from the front matter's mode:
	// plan or readonly, or "" for the session's level (see ModeFor).
	Mode approval.Level
	Body string
	// Path is the file; Scope is "user" or "project".
	Path  string
	Scope string
}

// CommandDir is a folder of NAME.md prompt files.
type CommandDir struct {
	Path  string
	Scope string
	// Trusted is false for a workspace folder the user has not trusted:
	// its commands are ignored with a notice.
	Trusted bool
}

// CommandLoader loads the custom commands and says what it skipped; the
// TUI calls it at start and again after /trust.
type CommandLoader func() ([]CustomCommand, []string)

// maxCommandBytes bounds one prompt file.
const maxCommandBytes = 64 << 10

// customNameRE is compiled on first use: its {0,63} costs every start
// half a millisecond to compile at init.
var customNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$`) })

// LoadCommands reads the NAME.md files of dirs, in order: a name seen
// first wins. A builtin name cannot be shadowed; a file that cannot be
// used is skipped with a notice.
func LoadCommands(dirs ...CommandDir) ([]CustomCommand, []string) {
	var out []CustomCommand
	var notices []string
	have := map[string]string{}
	for _, d := range dirs {
		entries, err := os.ReadDir(d.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			notices = append(notices, fmt.Sprintf("Cannot read the commands in %s: %v", d.Path, err))
			continue
		}
		var names []string
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
				names = append(names, e.Name())
			}
		}
		if len(names) == 0 {
			continue
		}
		if !d.Trusted {
			notices = append(notices, fmt.Sprintf("Ignored %s in %s: this folder is not trusted, and a command's prompt could steer the model. Review them, then /trust to use them.", tools.Count(len(names), "command"), d.Path))
			continue
		}
		sort.Strings(names)
		for _, file := range names {
			name := strings.TrimSuffix(file, ".md")
			path := filepath.Join(d.Path, file)
			switch _, builtin := lookupCommand(name); {
			case !customNameRE().MatchString(name):
				notices = append(notices, fmt.Sprintf("Ignored %s: a command name uses letters, digits, '_', '.', ':', '-'.", path))
				continue
			case builtin:
				notices = append(notices, fmt.Sprintf("Ignored %s: /%s is a builtin command and cannot be replaced.", path, name))
				continue
			case have[name] != "":
				notices = append(notices, fmt.Sprintf("Ignored %s: /%s is already defined by %s.", path, name, have[name]))
				continue
			}
			cmd, err := readCommand(path)
			if err != nil {
				notices = append(notices, fmt.Sprintf("Ignored %s: %v", path, err))
				continue
			}
			cmd.Name, cmd.Path, cmd.Scope = name, path, d.Scope
			have[name] = path
			out = append(out, cmd)
		}
	}
	return out, notices
}

func readCommand(path string) (CustomCommand, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return CustomCommand{}, err
	}
	if !fi.Mode().IsRegular() {
		return CustomCommand{}, errors.New("not a regular file")
	}
	if fi.Size() > maxCommandBytes {
		return CustomCommand{}, fmt.Errorf("%d bytes; a command file may have %d at most", fi.Size(), maxCommandBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return CustomCommand{}, err
	}
	return parseCommand(string(b))
}

// parseCommand reads an optional front matter (--- lines with
// "description:", "argument-hint:" and "mode:") and the prompt body.
func parseCommand(src string) (CustomCommand, error) {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	var c CustomCommand
	if rest, ok := strings.CutPrefix(src, "---\n"); ok {
		head, body, found := strings.Cut(rest, "\n---")
		if !found {
			return c, errors.New("the front matter opened with --- is not closed by a --- line")
		}
		for l := range strings.SplitSeq(head, "\n") {
			k, v, ok := strings.Cut(l, ":")
			if !ok {
				continue
			}
			v = strings.Trim(strings.TrimSpace(v), `"'`)
			switch strings.TrimSpace(k) {
			case "description":
				c.Desc = v
			case "argument-hint":
				c.Hint = v
			case "mode":
				m, err := parseMode(v)
				if err != nil {
					return c, err
				}
				c.Mode = m
			}
		}
		_, body, _ = strings.Cut(body, "\n")
		src = body
	}
	c.Body = strings.TrimSpace(src)
	if c.Body == "" {
		return c, errors.New("the prompt is empty")
	}
	if c.Desc == "" {
		first, _, _ := strings.Cut(c.Body, "\n")
		c.Desc = strings.TrimSpace(strings.TrimLeft(first, "# "))
	}
	// Both are drawn in /help and the completion list: a file's escape
	// sequences show as text there instead of acting on the terminal.
	c.Desc = termtext.OneLine(c.Desc, 80)
	c.Hint = termtext.OneLine(c.Hint, 60)
	return c, nil
}

var positionalRE = regexp.MustCompile(`\$(ARGUMENTS|[1-9])`)

// expand fills the prompt's $ARGUMENTS (everything after the name) and
// $1…$9 (the words, "quoted words" kept together). Arguments given to a
// prompt that uses neither are appended to it.
func (c CustomCommand) expand(args string) string {
	args = strings.TrimSpace(args)
	words := splitArgs(args)
	used := false
	out := positionalRE.ReplaceAllStringFunc(c.Body, func(m string) string {
		used = true
		if m == "$ARGUMENTS" {
			return args
		}
		n, _ := strconv.Atoi(m[1:])
		if n <= len(words) {
			return words[n-1]
		}
		return ""
	})
	if !used && args != "" {
		out += "\n\n" + args
	}
	return out
}

// splitArgs splits on spaces, keeping "double" or 'single' quoted runs
// (a quote left open runs to the end).
func splitArgs(s string) []string {
	words, _ := splitWords(s)
	return words
}

// splitWords splits s at blanks, keeping what "double" or 'single' quotes
// hold together; open is the quote left open at the end, or 0.
func splitWords(s string) (words []string, open rune) {
	var cur strings.Builder
	inWord := false
	for _, r := range s {
		switch {
		case open != 0 && r == open:
			open = 0
		case open != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			open, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, open
}

// asCommand is the command's entry in completion and /help.
func (c CustomCommand) asCommand() command {
	desc := c.Desc
	scope := "user"
	if c.Scope == "project" {
		scope = "project"
	}
	if c.Mode != "" {
		scope += ", " + modeName(c.Mode)
	}
	desc += " (" + scope + ")"
	return command{name: c.Name, args: c.Hint, desc: desc}
}

// customCommandsMsg brings freshly loaded custom commands, with the stamp
// of their folders when they were read ("" without one).
type customCommandsMsg struct {
	cmds    []CustomCommand
	notices []string
	stamp   string
	// rescan is set when the folders changed while myclaw ran: notices
	// already shown are not shown again.
	rescan bool
}

func loadCustomCommands(load CommandLoader) tea.Cmd { return loadCommandsStamped(load, nil) }

// loadCommandsStamped loads the custom commands and the stamp of their
// folders, taken first: a change during the load is seen by the next
// rescan.
func loadCommandsStamped(load CommandLoader, stamp func() string) tea.Cmd {
	if load == nil {
		return nil
	}
	return func() tea.Msg {
		var s string
		if stamp != nil {
			s = stamp()
		}
		cmds, notices := load()
		return customCommandsMsg{cmds: cmds, notices: notices, stamp: s}
	}
}

// rescanCommands loads the custom commands again when the stamp of their
// folders is no longer last: a file added, changed or removed.
func rescanCommands(stamp func() string, load CommandLoader, last string) tea.Cmd {
	if stamp == nil || load == nil {
		return nil
	}
	return func() tea.Msg {
		s := stamp()
		if s == last {
			return nil
		}
		cmds, notices := load()
		return customCommandsMsg{cmds: cmds, notices: notices, stamp: s, rescan: true}
	}
}

// CommandsStamp describes the command folders as they stand without
// reading the files: each folder's NAME.md files with their sizes and
// modification times, and whether it is trusted. It changes when a file
// is added, changed or removed.
func CommandsStamp(dirs ...CommandDir) string {
	var b strings.Builder
	for _, d := range dirs {
		fmt.Fprintf(&b, "%s %v:", d.Path, d.Trusted)
		entries, err := os.ReadDir(d.Path)
		if err != nil {
			b.WriteString(" -\n")
			continue
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			if fi, err := e.Info(); err == nil {
				fmt.Fprintf(&b, " %q %d %d", e.Name(), fi.Size(), fi.ModTime().UnixNano())
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// setCustomCommands makes msg's commands the custom commands and shows
// its notices (on a rescan, only those not shown before).
func (m Model) setCustomCommands(msg customCommandsMsg) Model {
	m.c.setCustom(msg.cmds)
	if msg.stamp != "" {
		m.c.customStamp = msg.stamp
	}
	if m.c.customNotices == nil {
		m.c.customNotices = map[string]bool{}
	}
	for _, n := range msg.notices {
		if !msg.rescan || !m.c.customNotices[n] {
			m = m.addBlock(warnBlock(n))
		}
		m.c.customNotices[n] = true
	}
	m.input.refresh()
	return m
}

// setCustom makes cmds the custom commands.
func (c *common) setCustom(cmds []CustomCommand) {
	c.custom = map[string]CustomCommand{}
	c.customList = nil
	for _, cc := range cmds {
		c.custom[cc.Name] = cc
		c.customList = append(c.customList, cc.asCommand())
	}
}

// allCommands is the builtins, then the custom commands, then the MCP
// servers' prompts.
func (c *common) allCommands() []command {
	return append(append(commands[:len(commands):len(commands)], c.customList...), c.prompts...)
}

// runCustom sends a custom command's prompt.
func (m Model) runCustom(cc CustomCommand, line string) (Model, tea.Cmd) {
	_, args, _ := strings.Cut(strings.TrimSpace(line), " ")
	if m.turn != nil {
		return m.keptWhileBusy(line), nil
	}
	prompt := cc.expand(args)
	if m, ok := m.tooLongAs(&cc, prompt); ok {
		return m, nil
	}
	return m.sendCustom(cc, line, prompt)
}

// sendCustom sends prompt, the expansion of custom command line.
func (m Model) sendCustom(cc CustomCommand, line, prompt string) (Model, tea.Cmd) {
	m, note, ok := m.enterCommandMode(cc, line)
	if !ok {
		return m, nil
	}
	m.typedAs[strings.TrimSpace(prompt)] = strings.TrimSpace(line)
	m2, cmd := m.startTurnAs(line, prompt)
	n := strings.Count(prompt, "\n") + 1
	m2.tr.add(noticeBlock(fmt.Sprintf("the prompt of %s (%d %s) went to the model", cc.Path, n, plural(n, "line", "lines"))))
	if note != "" {
		m2.tr.add(noticeBlock(note))
	}
	return m2, cmd
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
