package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"myclaw/approval"
	"myclaw/tools"
	"myclaw/tools/termtext"
)

// errApproverClosed is what Approve returns once the TUI is gone: the user
// left, so the call is treated as cancelled.
var errApproverClosed = fmt.Errorf("the approval pane is closed: %w", context.Canceled)

// pendingApproval is one Request waiting for the person, with the channel
// (capacity 1, so answering never blocks) its answer goes to.
type pendingApproval struct {
	req   approval.Request
	ctx   context.Context
	reply chan approval.Decision
	// answered is set when the reply is sent; only Update touches it.
	answered bool
}

// Approver implements approval.Approver for the TUI: Approve hands the
// Request to the program, which shows it in the approval pane, and waits
// for the pane's decision, for ctx to end, or for the program to close.
// It is safe for concurrent use; concurrent requests queue in the pane.
type Approver struct {
	requests chan *pendingApproval
	done     chan struct{}
	once     sync.Once
}

// NewApprover returns an Approver with no program attached yet: Approve
// blocks until a Model built with it reads the request.
func NewApprover() *Approver {
	return &Approver{requests: make(chan *pendingApproval), done: make(chan struct{})}
}

// Approve implements approval.Approver.
func (a *Approver) Approve(ctx context.Context, req approval.Request) (approval.Decision, error) {
	p := &pendingApproval{req: req, ctx: ctx, reply: make(chan approval.Decision, 1)}
	select {
	case a.requests <- p:
	case <-ctx.Done():
		return approval.Decision{}, ctx.Err()
	case <-a.done:
		return approval.Decision{}, errApproverClosed
	}
	select {
	case d := <-p.reply:
		return d, nil
	case <-ctx.Done():
		return approval.Decision{}, ctx.Err()
	case <-a.done:
		return approval.Decision{}, errApproverClosed
	}
}

// Close makes every waiting and future Approve return errApproverClosed,
// and ends the program's wait for requests. It is idempotent.
func (a *Approver) Close() { a.once.Do(func() { close(a.done) }) }

// approvalRequestMsg carries a request from Approve to Update.
type approvalRequestMsg struct{ p *pendingApproval }

// approvalDecidedMsg is the pane's answer; the root model sends it on.
type approvalDecidedMsg struct {
	p *pendingApproval
	d approval.Decision
}

// waitForApproval is re-armed after every request; it returns nil (and is
// not re-armed) once the Approver is closed.
func (a *Approver) waitForApproval() tea.Cmd {
	return func() tea.Msg {
		select {
		case p := <-a.requests:
			return approvalRequestMsg{p}
		case <-a.done:
			return nil
		}
	}
}

// paneMode is what the approval pane is doing.
type paneMode int

const (
	modeChoose paneMode = iota
	modeReason
	modeEdit
)

// paneChoice is one of the pane's answers, in the order the choices line
// shows them.
type paneChoice int

const (
	choiceApprove paneChoice = iota
	choiceSession
	choiceSaveRule
	choiceDeny
	choiceReason
	choiceEdit
	choiceNetwork
	choiceNetworkSession
	choicePreview
	choiceTrustHints
	choiceSaveUserWide
	numChoices
)

// label is the choice's name on the choices line, next to its key.
func (ch paneChoice) label() string {
	return [...]string{"approve", "session", "save rule", "deny", "deny + reason", "edit", "with network", "with network for the session", "preview", "trust read-only hints", "save rule for every project"}[ch]
}

// binding is the key that takes the choice.
func (ch paneChoice) binding(k *KeyMap) key.Binding {
	return [...]key.Binding{k.ApproveOnce, k.ApproveSession, k.SaveRule, k.Deny, k.DenyReason, k.Edit, k.ApproveNetwork, k.ApproveNetworkSession, k.PreviewRun, k.TrustHints, k.SaveRuleUserWide}[ch]
}

// offers reports whether the pane offers a choice: approving with network
// only makes sense for a command the sandbox would run without, and a
// risky call gets no grant beyond itself (approval.Grantable).
//
// A previewed call's result is approved once or discarded: no grant, no
// edit (the command already ran), no second preview.
func (a *approvalPane) offers(ch paneChoice) bool {
	req := a.p.req
	switch ch {
	case choicePreview:
		return req.Previewable
	case choiceSession, choiceSaveRule, choiceSaveUserWide:
		return !req.Previewed && a.grantable
	case choiceEdit:
		return !req.Previewed
	case choiceNetwork, choiceNetworkSession:
		c := req.Confinement
		return !req.Previewed && c != nil && c.Sandboxed && !c.Network && (ch == choiceNetwork || a.grantable)
	case choiceTrustHints:
		return !req.Previewed && req.Meta.HintServer != ""
	}
	return true
}

// onChoicesLine reports whether a choice is on the choices line (and in
// the arrow keys' cycle); the others have lines of their own.
func onChoicesLine(ch paneChoice) bool { return ch < choiceNetwork }

// step moves the highlight by d over the choices the line offers.
func (a *approvalPane) step(d int) {
	n := int(choiceNetwork)
	for range n {
		a.sel = (a.sel + n + d) % n
		if a.offers(paneChoice(a.sel)) {
			return
		}
	}
}

// approvalPane shows one Request and collects the decision.
type approvalPane struct {
	c    *common
	p    *pendingApproval
	rule approval.Rule
	// grantable is approval.Grantable of the request; noGrant says why not.
	grantable bool
	noGrant   string
	sel       int
	mode      paneMode
	scroll    int
	editor    editor
	shell     bool   // editing the command line rather than the JSON
	shown     string // the text the editor started with
	errMsg    string
	// decided is set once a decision is on its way: keys pressed before
	// the pane closes must not answer twice.
	decided bool
	// armed is set paneArmDelay after the pane opened: keys typed before
	// (the end of a prompt someone was typing as the pane appeared) are
	// not taken as an answer.
	armed bool

	preview      []string // rendered preview for previewWidth
	previewWidth int
	head         []string // rendered header for headWidth
	headWidth    int
}

func newApprovalPane(c *common, p *pendingApproval) *approvalPane {
	a := &approvalPane{c: c, p: p, rule: approval.SessionRule(p.req)}
	a.grantable, a.noGrant = approval.Grantable(p.req)
	// A reflexive Enter must not run a high-risk call, or one that may be
	// following planted instructions: there the highlighted choice is deny.
	t := p.req.Taint
	if p.req.Meta.EffectiveRisk() == tools.RiskHigh || (t != nil && (!approval.QuietSource(t.Source) || approval.DrawnFrom(p.req) != "")) {
		a.sel = int(choiceDeny)
	}
	return a
}

// decide answers the request through the root model.
func (a *approvalPane) decide(d approval.Decision) tea.Cmd {
	a.decided = true
	d.By = "user"
	p := a.p
	return func() tea.Msg { return approvalDecidedMsg{p: p, d: d} }
}

func (a *approvalPane) update(km tea.KeyMsg) (*approvalPane, tea.Cmd) {
	if a.decided || !a.armed {
		return a, nil
	}
	k := &a.c.keys
	if a.mode != modeChoose {
		switch {
		case key.Matches(km, k.Cancel):
			a.mode, a.errMsg = modeChoose, ""
		case key.Matches(km, k.Send) && !km.Paste:
			return a.submit()
		default:
			a.editor.update(km)
		}
		return a, nil
	}
	for ch := range numChoices {
		if a.offers(ch) && key.Matches(km, ch.binding(k)) {
			return a.take(ch)
		}
	}
	switch {
	case key.Matches(km, k.DenyEsc):
		return a.take(choiceDeny)
	case key.Matches(km, k.ChoiceLeft):
		a.step(-1)
	case key.Matches(km, k.ChoiceRight):
		a.step(1)
	case key.Matches(km, k.Choose):
		return a.take(paneChoice(a.sel))
	case key.Matches(km, k.PreviewUp):
		a.scroll--
	case key.Matches(km, k.PreviewDown):
		a.scroll++
	case key.Matches(km, k.PreviewPgUp):
		a.scroll -= a.previewHeight()
	case key.Matches(km, k.PreviewPgDown):
		a.scroll += a.previewHeight()
	}
	a.clampScroll()
	return a, nil
}

// take acts on a choice: a decision, or the reason or edit mode.
func (a *approvalPane) take(ch paneChoice) (*approvalPane, tea.Cmd) {
	switch ch {
	case choiceApprove:
		return a, a.decide(approval.Decision{Choice: approval.ApproveOnce})
	case choiceSession:
		return a, a.decide(approval.Decision{Choice: approval.ApproveSession})
	case choiceSaveRule:
		return a, a.decide(approval.Decision{Choice: approval.ApproveSession, SaveRule: true})
	case choiceSaveUserWide:
		return a, a.decide(approval.Decision{Choice: approval.ApproveSession, SaveRule: true, UserWide: true})
	case choiceNetwork:
		return a, a.decide(approval.Decision{Choice: approval.ApproveOnce, Network: true})
	case choiceNetworkSession:
		return a, a.decide(approval.Decision{Choice: approval.ApproveSession, Network: true})
	case choicePreview:
		return a, a.decide(approval.Decision{Choice: approval.Preview})
	case choiceTrustHints:
		return a, a.decide(approval.Decision{Choice: approval.ApproveOnce, TrustHints: true})
	case choiceReason:
		a.startReason()
	case choiceEdit:
		a.startEdit()
	default:
		return a, a.decide(approval.Decision{Choice: approval.Deny})
	}
	return a, nil
}

func (a *approvalPane) startReason() {
	a.mode, a.errMsg = modeReason, ""
	a.editor = newEditor(a.c, "why not? (optional)", 3)
	a.fitEditor()
}

func (a *approvalPane) startEdit() {
	a.mode, a.errMsg = modeEdit, ""
	text := ""
	a.shell = false
	if cmd, ok := shellCommand(a.p.req); ok {
		a.shell, text = true, termtext.Editable(cmd)
	} else {
		var b bytes.Buffer
		if json.Indent(&b, a.p.req.Args, "", "  ") == nil {
			text = jsonEscapeInvisible(b.String())
		} else {
			text = termtext.Editable(string(a.p.req.Args))
		}
	}
	a.editor = newEditor(a.c, "", 8)
	a.editor.setValue(text)
	a.shown = a.editor.value()
	a.fitEditor()
}

func (a *approvalPane) fitEditor() { a.editor.setWidth(max(a.c.width-2, minWidth)) }

// submit finishes the reason or the edit. A bad edit keeps the text and
// says what is wrong.
func (a *approvalPane) submit() (*approvalPane, tea.Cmd) {
	text := a.editor.value()
	if a.mode == modeReason {
		return a, a.decide(approval.Decision{Choice: approval.Deny, Reason: strings.TrimSpace(text)})
	}
	if text == a.shown {
		// Untouched: exactly the call that was asked about runs, byte for
		// byte, whatever the editor had to escape to show it.
		return a, a.decide(approval.Decision{Choice: approval.ApproveOnce})
	}
	if a.shell {
		text = termtext.ParseEditable(text)
	}
	args, changed, err := editedArgs(a.p.req, a.shell, text)
	if err != nil {
		a.errMsg = err.Error()
		return a, nil
	}
	if !changed {
		return a, a.decide(approval.Decision{Choice: approval.ApproveOnce})
	}
	return a, a.decide(approval.Decision{Choice: approval.Edit, Args: args})
}

// jsonEscapeInvisible writes every character of indented JSON that would
// not show as itself (controls cannot appear raw in valid JSON; invisible
// and format characters can) as a \uXXXX escape, which decodes to the
// same string: the editor then shows them and keeps them.
func jsonEscapeInvisible(s string) string {
	if !termtext.HasHidden(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r == '\n' || !termtext.HasHidden(string(r)) {
			b.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&b, "\\u%04x", u)
		}
	}
	return b.String()
}

// shellCommand returns the command line of a shell_run request, if it has one.
func shellCommand(req approval.Request) (string, bool) {
	if !req.Meta.Shell && req.Command == nil {
		return "", false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(req.Args, &m) != nil {
		return "", false
	}
	var cmd string
	if raw, ok := m["command"]; !ok || json.Unmarshal(raw, &cmd) != nil {
		return "", false
	}
	return cmd, true
}

// editedArgs turns the edited text into the arguments that go back in the
// Decision: the command line put back into the original arguments for
// shell_run, or a JSON object. changed is false when nothing differs.
func editedArgs(req approval.Request, shell bool, text string) (json.RawMessage, bool, error) {
	if shell {
		if strings.TrimSpace(text) == "" {
			return nil, false, fmt.Errorf("the command is empty: type a command, or press esc to go back")
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(req.Args, &m); err != nil {
			return nil, false, fmt.Errorf("the original arguments are not a JSON object: %v", err)
		}
		old, _ := shellCommand(req)
		if text == old {
			return req.Args, false, nil
		}
		b, err := json.Marshal(text)
		if err != nil {
			return nil, false, err
		}
		m["command"] = b
		out, err := json.Marshal(m)
		return out, true, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &m); err != nil || m == nil {
		if err == nil {
			err = fmt.Errorf("null")
		}
		return nil, false, fmt.Errorf("the arguments must be a JSON object: %v", err)
	}
	var b, old bytes.Buffer
	if err := json.Compact(&b, []byte(text)); err != nil {
		return nil, false, fmt.Errorf("the arguments must be a JSON object: %v", err)
	}
	if json.Compact(&old, req.Args) == nil && bytes.Equal(b.Bytes(), old.Bytes()) {
		return req.Args, false, nil
	}
	return json.RawMessage(b.Bytes()), true, nil
}

// maxHeight is the most rows the pane may take: the rest of the screen
// keeps a few transcript lines and the status line.
func (a *approvalPane) maxHeight() int { return max(a.c.height-5, 8) }

// header is everything above the preview. The request does not change,
// so it is rendered once per width.
func (a *approvalPane) header() []string {
	w := max(a.c.width, minWidth)
	if a.head == nil || a.headWidth != w {
		a.head, a.headWidth = a.drawHeader(w), w
	}
	return a.head
}

func (a *approvalPane) drawHeader(w int) []string {
	st := &a.c.styles
	req := a.p.req
	title := " approve " + oneLine(req.Tool) + "? "
	if req.Count > 1 && req.Position > 0 {
		// More calls of the same answer wait behind this one.
		title += fmt.Sprintf("· call %d of %d ", req.Position, req.Count)
	}
	rule := st.PaneRule.Render("──") + st.PaneTitle.Render(title) +
		st.PaneRule.Render(strings.Repeat("─", max(w-2-ansi.StringWidth(title), 0)))
	out := []string{rule}

	risk := req.Meta.EffectiveRisk()
	badge := st.RiskLow
	switch risk {
	case tools.RiskMedium:
		badge = st.RiskMedium
	case tools.RiskHigh:
		badge = st.RiskHigh
	}
	// The badge stays whole at any width: the name and the capability
	// give way first.
	tag := " " + strings.ToUpper(string(risk)) + " RISK "
	name := truncate(oneLine(req.Tool), max(w-1-2-ansi.StringWidth(tag), 4))
	line := " " + st.ToolName.Render(name) + "  " + badge.Render(tag)
	capability := req.Capability
	if capability == "" {
		capability = req.Meta.Capability
	}
	if room := w - ansi.StringWidth(line) - 2; capability != "" && room > 3 {
		line += "  " + st.Dim.Render(truncate(oneLine(capability), room))
	}
	out = append(out, line)

	wrap := func(style func(...string) string, s string) {
		for _, l := range wrapPlain(s, w-1) {
			out = append(out, " "+style(l))
		}
	}
	if req.Reversible {
		plan := "reversible"
		if req.UndoPlan != "" {
			plan += ": " + oneLine(req.UndoPlan)
		}
		wrap(st.OK.Render, plan)
	} else if req.UndoPlan != "" {
		// Not journaled because there is nothing to walk back (no change).
		wrap(st.Dim.Render, oneLine(req.UndoPlan))
	} else {
		wrap(st.Warn.Render, "not reversible: /undo cannot walk this back")
	}
	if c := req.Confinement; c != nil {
		style := st.OK.Render
		if !c.Sandboxed {
			style = st.Warn.Render
		}
		wrap(style, oneLine(c.String()))
	}
	if t := req.Taint; t != nil {
		// Loud only where it carries signal: the call is drawn from the
		// untrusted text, or that text came from outside the workspace.
		switch where := approval.DrawnFrom(req); {
		case where != "":
			wrap(st.Error.Render, "⚠ "+oneLine(where)+": this call may be following instructions planted there")
		case approval.QuietSource(t.Source):
			wrap(st.Dim.Render, "follows content read from "+oneLine(strings.TrimPrefix(t.Source, "file:")))
		default:
			wrap(st.Warn.Render, "⚠ this call follows untrusted content from "+oneLine(t.Source)+
				": it may be acting on instructions planted there")
		}
	}
	if req.Meta.Changed != "" {
		wrap(st.Warn.Render, "⚠ the server changed this tool "+oneLine(req.Meta.Changed))
	}
	if req.Meta.Claims != "" {
		wrap(st.Dim.Render, oneLine(req.Meta.Claims))
	}
	if req.Why != "" {
		wrap(st.Dim.Render, "asks because "+oneLine(req.Why))
	}
	if _, shell := shellCommand(req); req.Summary != "" && !shell {
		// A shell command is shown once, in the preview. Summaries are
		// written for Markdown: the pane is plain text, so no backticks.
		wrap(st.Bold.Render, strings.ReplaceAll(oneLine(req.Summary), "`", ""))
	}
	return out
}

// footer is the choices line and what the session choices grant.
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
		out := []string{st.Key.Render(" edit "+what) + st.Dim.Render(" · "+k.Send.Help().Key+" approves · "+k.Newline.Help().Key+" newline"+back)}
		out = append(out, indent(a.editor.view(), "  ")...)
		if a.errMsg != "" {
			for _, l := range wrapPlain(a.errMsg, w-2) {
				out = append(out, "  "+st.Error.Render(l))
			}
		}
		return out
	}
	// Every choice takes its width plus brackets, highlighted or not, so
	// the line keeps the pane's left edge and does not shift as ←/→ move.
	// A narrow screen gets the choices on more lines, never cut.
	var out []string
	line, lineW := "", 0
	for ch := range numChoices {
		if !onChoicesLine(ch) || !a.offers(ch) {
			continue
		}
		name, label := ch.binding(k).Help().Key, ch.label()
		seg := " " + st.Key.Render(name) + " " + st.Choice.Render(label) + " "
		if int(ch) == a.sel {
			seg = st.ChoiceActive.Render("[" + name + " " + label + "]")
		}
		segW := ansi.StringWidth(seg)
		if lineW > 0 && lineW+segW > w {
			out = append(out, line)
			line, lineW = "", 0
		}
		line, lineW = line+seg, lineW+segW
	}
	out = append(out, truncate(line, w))
	if a.offers(choiceNetwork) {
		text := " " + k.ApproveNetwork.Help().Key + " approve with network once"
		if a.offers(choiceNetworkSession) {
			text += "  " + k.ApproveNetworkSession.Help().Key + " with network for the session"
		}
		for _, l := range hangWrap(text, w) {
			out = append(out, st.Choice.Render(l))
		}
	}
	if a.offers(choiceTrustHints) {
		for _, l := range hangWrap(" "+k.TrustHints.Help().Key+" approve, and trust the read-only hints of "+oneLine(a.p.req.Meta.HintServer)+
			" in this project: its tools that claim to be read-only run without asking until their definitions change", w) {
			out = append(out, st.Choice.Render(l))
		}
	}
	if a.offers(choicePreview) {
		for i, l := range hangWrap(" "+k.PreviewRun.Help().Key+" preview: run it once in a scratch layer (no network), then approve or discard what it changed", w) {
			if i == 0 {
				l = " " + st.Key.Render(k.PreviewRun.Help().Key) + st.Choice.Render(strings.TrimPrefix(l, " "+k.PreviewRun.Help().Key))
			} else {
				l = st.Choice.Render(l)
			}
			out = append(out, l)
		}
	}
	if a.p.req.Previewed {
		out = append(out, truncate(st.Dim.Render(" "+k.ApproveOnce.Help().Key+" applies these changes (journaled: /undo reverts them) · "+k.Deny.Help().Key+" discards them"), w))
		return out
	}
	if !a.grantable {
		for _, l := range wrapPlain("once only, no session grant or saved rule: "+oneLine(a.noGrant), w-1) {
			out = append(out, " "+st.Dim.Render(l))
		}
		return out
	}
	grant := oneLine(a.rule.Tool)
	if a.rule.Match != "" {
		grant += " matching " + oneLine(a.rule.Match)
	}
	for _, l := range hangWrap(" "+k.ApproveSession.Help().Key+" allows for this session: "+grant, w) {
		out = append(out, st.Dim.Render(l))
	}
	saved := strings.ReplaceAll(oneLine(strings.ReplaceAll(a.rule.String(), "\n", ", ")), "  ", " ")
	for _, l := range hangWrap(" "+k.SaveRule.Help().Key+" also saves it as a rule for this project ("+
		k.SaveRuleUserWide.Help().Key+": for every project) in your config: "+saved, w) {
		out = append(out, st.Dim.Render(l))
	}
	return out
}

// previewLines renders the preview once per width: the parsed command
// with its warnings for shell_run, the host for web_fetch, a coloured
// diff for writes, or the preview text.
func (a *approvalPane) previewLines() []string {
	w := max(a.c.width, minWidth)
	if a.preview != nil && a.previewWidth == w {
		return a.preview
	}
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
		a.preview, a.previewWidth = out, w
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
	if cl := req.Command; cl != nil {
		for _, wmsg := range cl.Warnings {
			add(st.Warn.Render, "⚠ "+oneLine(wmsg))
		}
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
	if len(out) == 0 {
		add(st.Dim.Render, "(no preview: this tool cannot show what it would do)")
	}
	a.preview, a.previewWidth = out, w
	return out
}

// fetchTarget returns the host and URL a request reaches over the network.
func fetchTarget(req approval.Request) (host, raw string) {
	// The call's capability names the host it reaches (the protocol's
	// word, whatever the tool); the URL, when the arguments hold one.
	c := tools.ParseCapability(req.Capability)
	if !c.Is("net", "http") || c.Target == "" {
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

// previewHeight is how many preview lines fit in the pane.
func (a *approvalPane) previewHeight() int {
	return a.previewRoom(len(a.header()), len(a.footer()))
}

// previewRoom is how many preview lines fit between a header and a footer
// of these heights (one more line says where the scroll is).
func (a *approvalPane) previewRoom(header, footer int) int {
	return max(a.maxHeight()-header-footer-1, 3)
}

func (a *approvalPane) clampScroll() {
	a.scroll = max(min(a.scroll, len(a.previewLines())-a.previewHeight()), 0)
}

// view builds the header and the footer once: the footer holds the
// editor, and both decide how much preview fits.
func (a *approvalPane) view() []string {
	head, foot := a.header(), a.footer()
	prev := a.previewLines()
	ph := a.previewRoom(len(head), len(foot))
	if a.mode != modeChoose {
		ph = max(min(ph, len(prev)), 0)
		ph = min(ph, max(a.maxHeight()-len(head)-len(foot)-1, 0))
	}
	start := max(min(a.scroll, len(prev)-ph), 0)
	end := min(start+ph, len(prev))
	out := make([]string, 0, len(head)+end-start+1+len(foot))
	out = append(append(out, head...), prev[start:end]...)
	if len(prev) > ph {
		out = append(out, a.c.styles.Dim.Render(fmt.Sprintf("  lines %d–%d of %d · ↑/↓ pgup/pgdown scroll", start+1, end, len(prev))))
	}
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
