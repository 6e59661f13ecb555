package ui

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/history"
	"myclaw/tools"
	"myclaw/tools/termtext"
)

// keyArgNames are the arguments that best say what a call is about, in
// order of preference.
var keyArgNames = []string{"path", "command", "url", "query", "pattern", "file", "name", "key", "description", "prompt", "question"}

// keyArg picks the argument a card shows next to the tool name.
func keyArg(args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	for _, k := range keyArgNames {
		if s, ok := m[k].(string); ok && s != "" {
			return oneLine(s)
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return oneLine(s)
		}
	}
	return ""
}

// formatDuration is short and human: 12ms, 1.2s, 3m04s.
func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return ""
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	default:
		m := int(d / time.Minute)
		s := int((d % time.Minute) / time.Second)
		return strconv.Itoa(m) + "m" + pad2(s) + "s"
	}
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// toolCard is one tool call in the transcript: a compact header with the
// tool, its key argument, status and duration; the summary; errors with
// their hint; untrusted output in its frame; and, expanded, the result.
type toolCard struct {
	call     agent.Call
	arg      string // the key argument, flattened to one line
	summary  string
	status   string // "" while running, else an agent.Status* value
	kind     string
	message  string
	hint     string
	duration time.Duration
	content  string
	decision string // who approved or denied it, when not the user
	reason   string // why a rule or hook decided so
	waiting  bool   // the call waits for the person's approval
	// waitingHost is, while a running command waits for a host to be
	// allowed (approval.NetworkTool), that host.
	waitingHost string
	queued      string // "queued · 2 of 3" until the call's turn comes
	exitCode    *int   // the exit status of the command it ran, if any
	diff        string // what a journaled write or edit applied
	live        string // the newest output while it runs (raw)
	progress    string // how far it got, while it runs (an MCP server's progress)

	untrusted  bool
	source     string
	at         time.Time
	body       string
	reversible bool
	undoPlan   string
	// job is set when the call starts a background job, which keeps
	// running after the call and whose changes are not undoable.
	job bool
	// journal is where the journal says the call's change stands
	// (undone, applied), once known; redone is set when /redo put it back.
	journal history.State
	redone  bool
	// past marks a call of a resumed session.
	past bool
	// outsidePlan are the files the call touches that no step of the
	// accepted plan names.
	outsidePlan []string

	cache lineCache
}

func newToolCard(call agent.Call) *toolCard { return &toolCard{call: call, arg: keyArg(call.Args)} }

func (t *toolCard) update(fn func(t *toolCard)) {
	fn(t)
	t.cache.reset()
}

// finish records the result of the call.
func (t *toolCard) finish(ev agent.ToolResultEvent) {
	t.update(func(t *toolCard) {
		t.status = ev.Status
		t.kind, t.message, t.hint = ev.Kind, ev.Message, ev.Hint
		if ev.Summary != "" {
			t.summary = ev.Summary
		}
		t.duration = ev.Duration
		t.content = ev.Content
		t.untrusted, t.source, t.at, t.body = ev.Untrusted, ev.Source, ev.RetrievedAt, ev.Body
		t.reversible = ev.Reversible
		t.undoPlan = ev.UndoPlan
		t.exitCode, t.diff, t.waiting, t.live, t.progress, t.queued = ev.ExitCode, ev.Diff, false, "", "", ""
		if ev.Call.Edited {
			// The card names what ran, not what the model proposed.
			t.call, t.arg = ev.Call, keyArg(ev.Call.Args)
		}
	})
}

func (t *toolCard) lines(c *common) []string {
	if l, ok := t.cache.get(c); ok {
		return l
	}
	return t.cache.put(c, withGap(t.draw(c)))
}

func (t *toolCard) draw(c *common) []string {
	st := &c.styles
	w := c.contentWidth()
	mark, state := st.Running.Render("●"), st.Running.Render("running…")
	switch {
	case t.waitingHost != "":
		state = st.Running.Render("running · asks to reach " + oneLine(t.waitingHost))
	case t.waiting:
		state = st.Running.Render("waiting for approval")
	case t.queued != "":
		mark, state = st.Dim.Render("○"), st.Dim.Render(t.queued)
	}
	switch t.status {
	case agent.StatusOK:
		mark, state = st.OK.Render("●"), st.OK.Render("ok")
		if t.exitCode != nil && *t.exitCode != 0 {
			exit := "exit " + strconv.Itoa(*t.exitCode)
			mark, state = st.Failed.Render("●"), st.Failed.Render(exit)
		}
	case agent.StatusError:
		kind := "error"
		if t.kind != "" {
			kind += " " + oneLine(t.kind)
		}
		mark, state = st.Failed.Render("●"), st.Failed.Render(kind)
	case agent.StatusDenied:
		mark, state = st.Denied.Render("●"), st.Denied.Render("denied")
	case agent.StatusCancelled:
		mark, state = st.Cancelled.Render("●"), st.Cancelled.Render("cancelled")
	}
	if d := formatDuration(t.duration); d != "" {
		state += st.Dim.Render(" · " + d)
	}
	switch {
	case t.status != agent.StatusOK:
	case t.journal == history.StateUndone:
		state += st.Warn.Render(" · undone")
	case t.redone:
		state += st.OK.Render(" · redone")
	}
	name := oneLine(t.call.Tool)
	if name == "" {
		name = oneLine(t.call.Wire)
	}
	head := mark + " " + st.ToolName.Render(name)
	right := "  " + state
	if arg := t.arg; arg != "" {
		room := w - 2 - ansi.StringWidth(name) - 1 - ansi.StringWidth(right)
		if room > 3 {
			head += " " + st.ToolArg.Render(truncate(arg, room))
		}
	}
	out := []string{truncate(head+right, w)}

	inner := w - 2
	add := func(style func(...string) string, s string) {
		for _, l := range wrapPlain(s, inner) {
			out = append(out, "  "+style(l))
		}
	}
	if t.summary != "" {
		add(st.Dim.Render, oneLine(t.summary))
	}
	if t.decision != "" {
		add(st.Dim.Render, oneLine(t.decision))
	}
	if len(t.outsidePlan) > 0 {
		add(st.Warn.Render, "not in the plan: "+oneLine(strings.Join(t.outsidePlan, ", ")))
	}
	switch {
	case t.call.Edited && t.status == agent.StatusDenied:
		add(st.Dim.Render, "denied as you edited it")
	case t.call.Edited && t.status == agent.StatusError:
		add(st.Dim.Render, "failed as you edited it")
	case t.call.Edited && t.status != "":
		add(st.Dim.Render, "ran with the arguments as you edited them")
	}
	switch {
	case t.job && t.status == agent.StatusOK && t.exitCode != nil:
		// The job ended before the call returned (a port it could not
		// bind): it is not running, whatever it was started to do.
		add(st.Warn.Render, "background job: already ended with exit "+strconv.Itoa(*t.exitCode)+" (/jobs lists it); its changes are not undoable")
	case t.job && (t.status == "" && !t.waiting || t.status == agent.StatusOK):
		add(st.Warn.Render, "background job: keeps running (/jobs lists it); its changes are not undoable")
	}
	if t.reason != "" && t.status == agent.StatusDenied {
		// A rule's or hook's own words; the message would only repeat who.
		add(st.Denied.Render, oneLine(t.reason))
	}
	switch t.status {
	case agent.StatusError, agent.StatusDenied, agent.StatusCancelled:
		if t.message != "" && (t.reason == "" || t.status != agent.StatusDenied) {
			style := st.Failed.Render
			if t.status != agent.StatusError {
				style = st.Denied.Render
			}
			add(style, oneLine(t.message))
		}
		if t.hint != "" && t.status == agent.StatusError {
			add(st.Hint.Render, "hint: "+oneLine(t.hint))
		}
	}
	if t.diff != "" && t.status == agent.StatusOK {
		out = append(out, t.drawDiff(c, inner, !c.expandTools)...)
	}
	switch {
	case t.journal == history.StateUndone && t.status == agent.StatusOK:
		add(st.Warn.Render, "↶ undone: its changes were reverted")
	case t.redone && t.status == agent.StatusOK:
		add(st.Dim.Render, "↷ redone: its changes are back; /undo can revert them again")
	case t.reversible && t.undoPlan != "":
		add(st.Dim.Render, "↶ "+oneLine(t.undoPlan))
	case t.reversible && t.status == agent.StatusOK:
		add(st.Dim.Render, "↶ /undo can revert this")
	}
	if t.status == "" && t.progress != "" {
		add(st.Running.Render, "progress "+oneLine(t.progress))
	}
	if t.status == "" && t.live != "" {
		tail, _ := lastLines(t.live, liveLines)
		for _, l := range renderFence(c, inner, "live output", time.Time{}, tail, true, t.call.Typed) {
			out = append(out, "  "+l)
		}
	}
	if t.untrusted {
		body := t.body
		if strings.HasPrefix(t.source, "shell:") && !c.expandTools {
			// A command's errors are at the end: folded, its output shows
			// its last lines.
			var earlier int
			if body, earlier = lastLines(body, foldLines); earlier > 0 {
				add(st.Dim.Render, "… "+strconv.Itoa(earlier)+" earlier lines ("+c.keys.ToggleTools.Help().Key+" shows all)")
			}
		}
		for _, l := range renderFence(c, inner, t.source, t.at, body, !c.expandTools, t.call.Typed || approval.QuietSource(t.source)) {
			out = append(out, "  "+l)
		}
	} else if c.expandTools && t.content != "" {
		for _, l := range strings.Split(prettyContent(t.content), "\n") {
			add(st.Dim.Render, expandTabs(l))
		}
	}
	return out
}

// pastCard is the card of a call from a resumed session, as it ended.
func pastCard(rec agent.CallRecord) *toolCard {
	t := newToolCard(rec.Result.Call)
	t.finish(rec.Result)
	// It may have been undone since: the journal says, once read.
	t.reversible, t.past = false, true
	if rec.Decision != nil {
		t.decided(*rec.Decision)
	}
	return t
}

// decided records who decided the call when it was not the person (a
// rule, a hook, the level), with their reason.
func (t *toolCard) decided(d approval.Decision) {
	if d.By == "" || d.By == "user" {
		return
	}
	verb := "approved"
	if !d.Approved() {
		verb = "denied"
	}
	t.update(func(t *toolCard) { t.decision, t.reason = verb+" by "+d.By, d.Reason })
}

// collapsedDiffLines is how much of an applied diff a collapsed card shows.
const collapsedDiffLines = 8

// drawDiff shows the diff a call applied, coloured like the pane's
// preview; collapsed, its first lines and how to see the rest.
func (t *toolCard) drawDiff(c *common, inner int, collapsed bool) []string {
	st := &c.styles
	var out []string
	// Escaped as the pane showed it: a file name with a control in it
	// reads the same on the card as where it was approved.
	src := strings.Split(strings.TrimRight(termtext.Visible(t.diff), "\n"), "\n")
	shown := src
	// One line more than the fold is shown: its count would take the row.
	if collapsed && len(src) > collapsedDiffLines+1 {
		shown = src[:collapsedDiffLines]
	}
	for _, l := range shown {
		style := diffStyle(st, l)
		for _, w := range wrapPlain(expandTabs(l), inner) {
			out = append(out, "  "+style(w))
		}
	}
	if len(shown) < len(src) {
		out = append(out, "  "+st.Dim.Render("… "+tools.Count(len(src)-len(shown), "more line")+" ("+
			c.keys.ToggleTools.Help().Key+" expands, /diff shows every change)"))
	}
	return out
}

// liveLines is how much of a running call's output its card shows.
const liveLines = 6

// addLive appends output of the running call, keeping the newest 4 KB.
func (t *toolCard) addLive(s string) {
	t.live += s
	if n := len(t.live) - 4<<10; n > 0 {
		t.live = t.live[n:]
	}
}

// lastLines returns the last n lines of s and how many came before them.
func lastLines(s string, n int) (string, int) {
	s = strings.TrimRight(s, "\n")
	total := strings.Count(s, "\n") + 1
	if total <= n {
		return s, 0
	}
	i := len(s)
	for range n {
		i = strings.LastIndexByte(s[:i], '\n')
	}
	return s[i+1:], total - n
}

// prettyContent is a trusted result for people: its JSON indented, or the
// text as it is, without controls.
func prettyContent(s string) string {
	s = termtext.Screen(s)
	var b bytes.Buffer
	if json.Indent(&b, []byte(s), "", "  ") == nil {
		return b.String()
	}
	return strings.TrimRight(s, "\n")
}
