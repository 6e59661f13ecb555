package ui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"

	"myclaw/approval"
	"myclaw/tools"
	"myclaw/tools/termtext"
)

// maxHeight is the most rows the pane may take: the rest of the screen
// keeps a few transcript lines and the status line.
func (a *approvalPane) maxHeight() int { return max(a.c.height-5, 8) }

// draw renders what does not change while the pane is open (the title,
// the warnings and signals, the preview, the details) once per width.
func (a *approvalPane) draw() {
	w := max(a.c.width, minWidth)
	if a.head != nil && a.cacheWidth == w {
		return
	}
	a.cacheWidth = w
	a.head = a.drawTitle(w)
	a.fixed = a.drawFixed(w)
	a.preview = a.drawPreview(w)
	a.more = append(a.drawDetails(w), a.preview...)
}

// drawTitle is the title line: the tool, where the call stands, the
// summary and, for a high-risk call, a chip. The chip stays whole at any
// width; a summary that does not fit gets a line of its own.
func (a *approvalPane) drawTitle(w int) []string {
	st := &a.c.styles
	req := a.p.req
	var tags string
	if req.Count > 1 && req.Position > 0 {
		// More calls of the same answer wait behind this one.
		tags += fmt.Sprintf("· call %d of %d ", req.Position, req.Count)
	}
	if a.edited {
		tags += "· as you edited it "
	}
	chip, chipW := "", 0
	if a.high {
		chip = " HIGH RISK "
		chipW = ansi.StringWidth(chip)
	}
	// "── approve NAME? TAGS" then the rule, the chip and "─".
	fixedW := 2 + len(" approve ") + len("? ") + ansi.StringWidth(tags) + chipW + 2
	name := truncate(oneLine(req.Tool), max(w-fixedW, 4))
	title := " approve " + name + "? " + tags
	summary := ""
	if _, shell := shellCommand(req); req.Summary != "" && (!shell || req.Previewed) {
		// A shell command is shown once, in the preview. Summaries are
		// written for Markdown: the pane is plain text, so no backticks.
		summary = strings.ReplaceAll(oneLine(req.Summary), "`", "")
	}
	room := w - 2 - ansi.StringWidth(title) - chipW - 2
	inTitle := summary != "" && ansi.StringWidth(summary)+1 <= room
	line := st.PaneRule.Render("──") + st.PaneTitle.Render(title)
	used := 2 + ansi.StringWidth(title)
	if inTitle {
		line += st.Bold.Render(summary) + " "
		used += ansi.StringWidth(summary) + 1
	}
	fill := max(w-used-chipW-1, 1)
	line += st.PaneRule.Render(strings.Repeat("─", fill))
	if chip != "" {
		line += st.RiskHigh.Render(chip)
	}
	// Tags too wide for a narrow screen are what gives way last.
	out := []string{truncate(line+st.PaneRule.Render("─"), w)}
	if summary != "" && !inTitle {
		for _, l := range wrapPlain(summary, w-1) {
			out = append(out, " "+st.Bold.Render(l))
		}
	}
	return out
}

// drawFixed is what stays under the preview whatever is scrolled or
// toggled: every warning, then one line of compact signals (how the call
// runs, whether /undo can walk it back, what it follows).
func (a *approvalPane) drawFixed(w int) []string {
	st := &a.c.styles
	req := a.p.req
	var out []string
	warn := func(style func(...string) string, s string) {
		for _, l := range hangWrap(" ⚠ "+s, w) {
			out = append(out, style(l))
		}
	}
	if req.From != "" {
		// A sub-agent's call: never shown as if the conversation asked.
		for _, l := range hangWrap(" ↳ "+oneLine(req.From), w) {
			out = append(out, st.Warn.Render(l))
		}
	}
	if cl := req.Command; cl != nil {
		for _, m := range cl.Warnings {
			warn(st.Warn.Render, oneLine(m))
		}
		if cl.Risk == tools.RiskHigh && cl.RiskWhy != "" && !slices.Contains(cl.Warnings, cl.RiskWhy) {
			warn(st.Error.Render, oneLine(cl.RiskWhy))
		}
	}
	if c := tools.ParseCapability(req.Capability); req.Command == nil && c.Kind == "fs" && c.Action != "read" && c.Target != "" {
		// Why a write that auto-edit would run asks, at a glance, as a
		// shell line writing the same file says.
		if what := tools.TrustedFile(c.Target); what != "" {
			warn(st.Warn.Render, "writes "+oneLine(what))
		}
	}
	if len(req.OutsidePlan) > 0 {
		warn(st.Warn.Render, "not in the plan: "+oneLine(strings.Join(req.OutsidePlan, ", ")))
	}
	if len(req.Conflicts) > 0 {
		warn(st.Warn.Render, "in conflict: "+oneLine(strings.Join(req.Conflicts, ", "))+" (nothing applies while any remain). "+
			a.c.keys.Edit.Help().Key+" opens "+oneLine(req.Conflicts[0])+" in the workspace: make the lines both changed hold the agent's (shown above), save, and the merge is proposed again")
	}
	var signals []string
	follows := ""
	// Loud only where it carries signal: the call is drawn from untrusted
	// text (of this turn or an earlier one), or this turn's untrusted text
	// came from outside the workspace.
	if where := approval.DrawnFrom(req); where != "" {
		warn(st.Error.Render, oneLine(where)+": this call may be following instructions planted there")
	} else if t := req.Taint; t != nil {
		switch {
		case approval.QuietSource(t.Source):
			follows = "follows content read from " + oneLine(strings.TrimPrefix(t.Source, "file:"))
		default:
			warn(st.Warn.Render, "this call follows untrusted content from "+oneLine(t.Source)+
				": it may be acting on instructions planted there")
		}
	}
	if c := req.Confinement; c != nil {
		switch {
		case !c.Sandboxed:
			warn(st.Warn.Render, oneLine(c.String()))
		case c.ReadOnly:
			signals = append(signals, "sandboxed", "read-only (plan mode)", "no network")
		case c.Discarded:
			signals = append(signals, "sandboxed", "on a scratch copy, writes discarded", "no network")
		case c.Layer:
			signals = append(signals, "sandboxed", "in the agent's layer", "no network")
		case c.Network:
			signals = append(signals, "sandboxed", "network")
		case c.HostProxy:
			signals = append(signals, "sandboxed", "network to allowed hosts")
		default:
			signals = append(signals, "sandboxed", "no network")
		}
	}
	job := startsJob(req)
	if job {
		warn(st.Warn.Render, "starts a background job: it keeps running after approval, and its changes are not undoable")
	}
	if req.Meta.Changed != "" {
		warn(st.Warn.Render, "the server changed this tool "+oneLine(req.Meta.Changed))
	}
	switch {
	case req.Confinement != nil && req.Confinement.Discarded:
		// Nothing it writes stays, so there is nothing to undo.
	case req.Confinement != nil && req.Confinement.Layer:
		signals = append(signals, "reaches the workspace through the merge")
	case req.Previewed:
		signals = append(signals, "previewed: nothing changed yet")
	case req.Command != nil && req.Command.NotUndoable != "":
		signals = append(signals, "not undoable")
	case req.Reversible && !job:
		signals = append(signals, "undoable")
	default:
		signals = append(signals, "not undoable")
	}
	if follows != "" {
		signals = append(signals, follows)
	}
	for _, l := range wrapPlain(strings.Join(signals, " · "), w-1) {
		out = append(out, " "+st.Dim.Render(l))
	}
	return out
}

// drawPreview renders what the call would do: the command line for
// shell_run, the host for a fetch, a coloured diff for writes, or the
// preview text.
func (a *approvalPane) drawPreview(w int) []string {
	st := &a.c.styles
	req := a.p.req
	inner := w - 2
	var out []string
	add := func(style func(...string) string, s string) {
		for _, l := range wrapPlain(expandTabs(s), inner) {
			out = append(out, "  "+style(l))
		}
	}
	if req.Previewed {
		// The preview's report: the command, its output, and the diff.
		for l := range strings.SplitSeq(strings.TrimRight(termtext.Visible(req.Preview), "\n"), "\n") {
			add(diffStyle(st, l), l)
		}
		return out
	}
	if cmd, ok := shellCommand(req); ok {
		for i, l := range strings.Split(termtext.Visible(cmd), "\n") {
			p := "$ "
			if i > 0 {
				p = "  "
			}
			add(st.Bold.Render, p+l)
		}
	}
	if host, u := fetchTarget(req); host != "" && !strings.Contains(req.Preview, "host: "+host) {
		add(st.Bold.Render, "host: "+host)
		if u != "" {
			add(st.Dim.Render, "url: "+u)
		}
	}
	if p := strings.TrimRight(termtext.Visible(req.Preview), "\n"); p != "" && req.Command == nil {
		diff := looksLikeDiff(p)
		for l := range strings.SplitSeq(p, "\n") {
			style := st.Choice.Render
			if diff {
				style = diffStyle(st, l)
			}
			add(style, l)
		}
	}
	switch {
	case len(out) > 0:
	case req.Unchanged:
		add(st.Dim.Render, "(nothing would change: approving writes nothing)")
	default:
		add(st.Dim.Render, "(no preview: this tool cannot show what it would do)")
	}
	return out
}

// drawDetails is the details view: what the pane keeps out of the way
// until asked (its key toggles it), the risk and capability, how the call
// is undone and confined, why the policy asks, the full parse of a
// command line, and what each grant would allow or save.
func (a *approvalPane) drawDetails(w int) []string {
	st := &a.c.styles
	k := &a.c.keys
	req := a.p.req
	var out []string
	add := func(style func(...string) string, s string) {
		for _, l := range hangWrap("  "+s, w) {
			out = append(out, style(l))
		}
	}
	capability := req.Capability
	if capability == "" {
		capability = req.Meta.Capability
	}
	line := "risk " + string(req.Meta.EffectiveRisk())
	if _, shell := shellCommand(req); shell && req.Command != nil {
		// shell_run's declared risk is high for every command: the pane
		// judges each line by what the policy makes of it (see assess).
		switch {
		case a.high:
			line = "risk of this command line: high"
		case req.Command.Risk == tools.RiskMedium:
			// Undoable changes run under auto-edit, but they are not routine.
			line = "risk of this command line: medium"
			if req.Command.RiskWhy != "" {
				line += ", " + oneLine(req.Command.RiskWhy)
			}
		default:
			line = "risk of this command line: routine"
		}
	}
	if capability != "" {
		line += " · capability " + oneLine(capability)
	}
	add(st.Dim.Render, line)
	switch {
	case req.Previewed:
		add(st.OK.Render, "applying is journaled: /undo reverts these changes")
	case startsJob(req):
		add(st.Warn.Render, "not reversible: a background job's changes are not recorded, so /undo cannot walk them back; /jobs lists and stops jobs")
	case req.Command != nil && req.Command.NotUndoable != "":
		add(st.Warn.Render, "not reversible: "+oneLine(req.Command.NotUndoable))
	case req.Reversible:
		plan := "reversible"
		if req.UndoPlan != "" {
			plan += ": " + oneLine(req.UndoPlan)
		}
		add(st.OK.Render, plan)
	case req.UndoPlan != "":
		// Not journaled because there is nothing to walk back (no change).
		add(st.Dim.Render, oneLine(req.UndoPlan))
	default:
		add(st.Warn.Render, "not reversible: /undo cannot walk this back")
	}
	if c := req.Confinement; c != nil {
		add(st.Dim.Render, oneLine(c.String()))
	}
	if req.Meta.Claims != "" {
		add(st.Dim.Render, oneLine(req.Meta.Claims))
	}
	if req.Why != "" {
		add(st.Dim.Render, "asks because "+oneLine(req.Why))
	}
	if cl := req.Command; cl != nil {
		if len(cl.Commands) > 1 {
			add(st.Dim.Render, "runs "+strconv.Itoa(len(cl.Commands))+" commands:")
			for _, c := range cl.Commands {
				add(st.Dim.Render, "  · "+oneLine(c))
			}
		}
		if len(cl.Redirects) > 0 {
			r := make([]string, len(cl.Redirects))
			for i, x := range cl.Redirects {
				r[i] = oneLine(x)
			}
			add(st.Dim.Render, "writes to: "+strings.Join(r, ", "))
		}
	}
	keyed := func(b key.Binding, text string) {
		for i, l := range hangWrap("  "+b.Help().Key+" "+text, w) {
			if i == 0 {
				l = "  " + st.Key.Render(b.Help().Key) + st.Choice.Render(strings.TrimPrefix(l, "  "+b.Help().Key))
			} else {
				l = st.Choice.Render(l)
			}
			out = append(out, l)
		}
	}
	if a.offers(choicePreview) {
		keyed(k.PreviewRun, "preview: run it once in a scratch layer (no network), then approve or discard what it changed")
	}
	if a.offers(choiceNetwork) {
		text := "approve with network once"
		if a.offers(choiceNetworkSession) {
			text += "  " + k.ApproveNetworkSession.Help().Key + " with network for the session"
		}
		keyed(k.ApproveNetwork, text)
	}
	if a.offers(choiceTrustHints) {
		keyed(k.TrustHints, "approve, and trust the read-only hints of "+oneLine(req.Meta.HintServer)+
			" in this project: its tools that claim to be read-only run without asking until their definitions change")
	}
	switch {
	case req.Previewed:
	case !a.grantable:
		add(st.Dim.Render, "once only, no session grant or saved rule: "+oneLine(a.noGrant))
	default:
		grant := oneLine(a.rule.Tool)
		if a.rule.Match != "" {
			grant += " matching " + oneLine(a.rule.Match)
		}
		keyed(k.ApproveSession, "allows for this session: "+grant)
		saved := strings.ReplaceAll(oneLine(strings.ReplaceAll(a.rule.String(), "\n", ", ")), "  ", " ")
		keyed(k.SaveRule, "also saves it as a rule for this project ("+k.SaveRuleUserWide.Help().Key+
			": for every project) in your config: "+saved)
	}
	switch {
	case a.inConflict():
	case a.deliberate != "":
		keyed(k.ApproveOnce, "approves; "+k.ApproveEnter.Help().Key+" does not, on a call "+a.deliberate)
	default:
		keyed(k.ApproveEnter, "or "+k.ApproveOnce.Help().Key+" approves this call once")
	}
	keyed(k.Deny, "denies this call and the turn goes on; "+k.DenyReason.Help().Key+" denies with a reason the model reads")
	keyed(k.DenyEsc, "ends the turn: this call and every call still waiting are not run")
	switch {
	case a.offers(choiceEdit) && req.Previewed:
		keyed(k.Edit, "opens "+oneLine(req.Conflicts[0])+" of the workspace in $VISUAL or $EDITOR to resolve; when it returns, the merge is proposed again")
	case a.offers(choiceEdit):
		keyed(k.Edit, "edits the arguments; "+k.Send.Help().Key+" then approves the edited call, shown once more first")
	}
	return out
}

// keySegment is one key of the key line and what it does.
type keySegment struct{ key, label string }

// keyLine is the keys of the moment, short; the details view explains
// them. Keys that do not fit go on more lines, never cut: a key the user
// cannot see is one they do not know they have.
func (a *approvalPane) keyLine(w int) []string {
	st := &a.c.styles
	k := &a.c.keys
	h := func(b key.Binding) string { return b.Help().Key }
	approve := keySegment{key: h(k.ApproveEnter), label: "approve"}
	if a.deliberate != "" {
		approve = keySegment{key: h(k.ApproveOnce), label: "approve (not " + h(k.ApproveEnter) + ")"}
	}
	var segs []keySegment
	if a.p.req.Previewed {
		approve.label = "applies these changes (journaled: /undo reverts them)"
		if !a.inConflict() {
			segs = append(segs, approve)
		}
		segs = append(segs, keySegment{key: h(k.Deny), label: "discards them"})
		if a.offers(choiceEdit) {
			segs = append(segs, keySegment{key: h(k.Edit), label: "resolve " + oneLine(a.p.req.Conflicts[0])})
		}
	} else {
		segs = append(segs, approve, keySegment{key: h(k.Deny), label: "deny"}, keySegment{key: h(k.DenyReason), label: "reason"})
		if a.offers(choiceEdit) {
			segs = append(segs, keySegment{key: h(k.Edit), label: "edit"})
		}
		if a.offers(choicePreview) {
			segs = append(segs, keySegment{key: h(k.PreviewRun), label: "preview"})
		}
		if a.offers(choiceSession) {
			segs = append(segs, keySegment{key: h(k.ApproveSession) + "/" + h(k.SaveRule), label: "grant"})
		}
		if a.offers(choiceTrustHints) {
			segs = append(segs, keySegment{key: h(k.TrustHints), label: "trust hints"})
		}
	}
	more := "details"
	if a.details {
		more = "hide details"
	}
	segs = append(segs, keySegment{key: h(k.Details), label: more})
	if a.offers(choiceNetwork) {
		segs = append(segs, keySegment{key: h(k.ApproveNetwork), label: "+network"})
	}
	segs = append(segs, keySegment{key: h(k.DenyEsc), label: "end turn"})
	var out []string
	line, lineW := "", 0
	for _, s := range segs {
		seg := " " + st.Key.Render(s.key) + " " + st.Choice.Render(s.label) + " "
		segW := ansi.StringWidth(seg)
		if lineW > 0 && lineW+segW > w {
			out = append(out, line)
			line, lineW = "", 0
		}
		line, lineW = line+seg, lineW+segW
	}
	return append(out, truncate(line, w))
}

// footer is the note about the last key and the key line, or the reason
// or edit editor.
func (a *approvalPane) footer() []string {
	st := &a.c.styles
	k := &a.c.keys
	w := max(a.c.width, minWidth)
	back := " · " + k.Cancel.Help().Key + " goes back"
	switch a.mode {
	case modeReason:
		out := []string{st.Key.Render(" reason") + st.Dim.Render(" (the model reads it) · "+k.Send.Help().Key+" denies"+back)}
		return append(out, indent(a.editor.view(), "  ")...)
	case modeEdit:
		what := "the arguments (JSON)"
		if a.shell {
			what = "the command"
		}
		var out []string
		for i, l := range hangWrap(" edit "+what+" · "+k.Send.Help().Key+" approves the edited call (shown once more first) · "+
			k.Newline.Help().Key+" newline"+back, w) {
			if i == 0 {
				l = st.Key.Render(" edit "+what) + st.Dim.Render(strings.TrimPrefix(l, " edit "+what))
			} else {
				l = st.Dim.Render(l)
			}
			out = append(out, l)
		}
		out = append(out, indent(a.editor.view(), "  ")...)
		if a.errMsg != "" {
			for _, l := range wrapPlain(a.errMsg, w-2) {
				out = append(out, "  "+st.Error.Render(l))
			}
		}
		return out
	}
	var out []string
	if a.note != "" {
		for _, l := range hangWrap(" "+a.note, w) {
			out = append(out, st.Error.Render(l))
		}
	}
	if k := (paneKeysKey{w, a.details}); a.keys == nil || a.keysFor != k {
		a.keys, a.keysFor = a.keyLine(w), k
	}
	if len(out) == 0 {
		return a.keys
	}
	return append(out, a.keys...)
}

// paneKeysKey is what the key line depends on besides the request.
type paneKeysKey struct {
	width   int
	details bool
}

// body is the scrolled part: the details (when open) above the preview.
func (a *approvalPane) body() []string {
	a.draw()
	if !a.details {
		return a.preview
	}
	return a.more
}

// fetchTarget returns the host and URL a request reaches over the network.
func fetchTarget(req approval.Request) (host, raw string) {
	// The call's capability names the host it reaches (the protocol's
	// word, whatever the tool); the URL, when the arguments hold one.
	c := tools.ParseCapability(req.Capability)
	if !c.Is("net", "http") && !c.Is("net", "connect") || c.Target == "" {
		return "", ""
	}
	var args struct {
		URL string `json:"url"`
	}
	if json.Unmarshal(req.Args, &args) == nil && args.URL != "" {
		raw = oneLine(args.URL)
	}
	return oneLine(c.Target), raw
}

func looksLikeDiff(s string) bool {
	return strings.HasPrefix(s, "--- ") || strings.HasPrefix(s, "@@") || strings.Contains(s, "\n@@ ")
}

func diffStyle(st *Styles, l string) func(...string) string {
	switch {
	case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		return st.DiffHeader.Render
	case strings.HasPrefix(l, "@@"):
		return st.DiffHunk.Render
	case strings.HasPrefix(l, "⚠"): // a preview's warning (a setuid file)
		return st.Warn.Render
	case strings.HasPrefix(l, "+"):
		return st.DiffAdd.Render
	case strings.HasPrefix(l, "-"):
		return st.DiffDel.Render
	}
	return st.Choice.Render
}

// previewHeight is how many body lines fit in the pane.
func (a *approvalPane) previewHeight() int {
	a.draw()
	return a.previewRoom(len(a.head)+len(a.fixed), len(a.footer()))
}

// previewRoom is how many body lines fit between fixed lines and a footer
// of these heights (one more line says where the scroll is).
func (a *approvalPane) previewRoom(fixed, footer int) int {
	return max(a.maxHeight()-fixed-footer-1, 3)
}

func (a *approvalPane) clampScroll() {
	a.scroll = max(min(a.scroll, len(a.body())-a.previewHeight()), 0)
}

// view is the title, the body (scrolled), the warnings and signals, and
// the footer. The footer holds the editor; with the fixed lines it decides
// how much of the body fits.
func (a *approvalPane) view() []string {
	body := a.body()
	head, fixed, foot := a.head, a.fixed, a.footer()
	ph := a.previewRoom(len(head)+len(fixed), len(foot))
	if a.mode != modeChoose {
		ph = max(min(ph, len(body)), 0)
		ph = min(ph, max(a.maxHeight()-len(head)-len(fixed)-len(foot)-1, 0))
	}
	start := max(min(a.scroll, len(body)-ph), 0)
	end := min(start+ph, len(body))
	out := make([]string, 0, len(head)+end-start+1+len(fixed)+len(foot))
	out = append(append(out, head...), body[start:end]...)
	if len(body) > ph {
		out = append(out, a.c.styles.Dim.Render(truncate(fmt.Sprintf("  lines %d–%d of %d · ↑/↓ pgup/pgdown scroll", start+1, end, len(body)), max(a.c.width, minWidth))))
	}
	out = append(out, fixed...)
	return append(out, foot...)
}

// hangWrap wraps text to width w with a hanging indent: lines after the
// first start three spaces in, and none is wider than w.
func hangWrap(text string, w int) []string {
	lines := wrapPlain(text, max(w-3, 10))
	for i := 1; i < len(lines); i++ {
		lines[i] = "   " + lines[i]
	}
	return lines
}
