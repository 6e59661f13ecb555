package agent

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"myclaw/history"
	"myclaw/tools"
)

// attachment is context the user added for their next message: the output
// of a command they ran (`!cmd`), a file they mentioned (`@path`), an
// image. It goes after the prompt, in the same user message, so the
// conversation keeps its user/assistant alternation.
type attachment struct {
	Text string `json:"text,omitempty"`
	// ImageURL is a data: URL for an image content part.
	ImageURL string `json:"image_url,omitempty"`
}

// AttachmentMark starts every attachment in the user message; the TUI
// cuts a resumed prompt there.
const AttachmentMark = "[myclaw attachment]"

// UserTools are the tools that run for the user directly, outside a
// model turn: `!command` (Shell), `@file` (Reader) and `@dir/` (Lister).
// Each goes through the same execution path, limits, fence and secret
// scrubbing as when the model calls it.
type UserTools struct {
	Shell, Reader, Lister tools.Tool
	// Root is the workspace, for images (@shot.png); nil: no images.
	Root *os.Root
	// Vision says the model takes images.
	Vision bool
	// Resource returns the tool that reads the resources of an MCP server
	// (@server:uri), or why there is none; nil: no MCP.
	Resource func(server string) (tools.Tool, error)
}

var userCallSeq atomic.Int64

func userCall(meta tools.Meta, prefix string, args json.RawMessage) Call {
	id := fmt.Sprintf("%s_%d", prefix, userCallSeq.Add(1))
	return Call{ID: id, Tool: meta.Name, Wire: meta.Name, Args: args}
}

// addAttachment queues an attachment for the next user message and persists it,
// so a restart before that message keeps it.
func (a *Agent) addAttachment(att attachment) {
	a.mu.Lock()
	a.attachments = append(a.attachments, att)
	s := a.session
	a.mu.Unlock()
	if err := s.Append("attachment", att); err != nil {
		a.opts.Logf("persist attachment: %v", err)
	}
}

// takeAttachments returns and clears the queued attachments.
func (a *Agent) takeAttachments() []attachment {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.attachments
	a.attachments = nil
	return out
}

// Pending reports how many attachments wait for the next message.
func (a *Agent) Pending() int {
	_ = a.ready()
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.attachments)
}

// RunShell runs a command the user typed as `!command`: through shell_run,
// with its containment, timeout, output caps and scrubbed environment, but
// without asking (the user typed it). It reports the call like a turn does
// (ToolCallEvent, ToolResultEvent, DoneEvent), journals what it changed in
// the workspace as the model's commands are (nothing when it changed
// nothing), and attaches its fenced output to the next message.
func (a *Agent) RunShell(ctx context.Context, command string, emit func(Event)) (err error) {
	if err := a.whole(); err != nil {
		return err
	}
	if err := a.begin(); err != nil {
		return err
	}
	defer a.end()
	reason := DoneStop
	defer func() {
		if errors.Is(err, context.Canceled) {
			reason = DoneCancelled
		}
		emit(DoneEvent{Reason: reason})
	}()
	tool := a.opts.UserTools.Shell
	if tool == nil {
		return &UserError{Msg: "No shell is available to run the command."}
	}
	args, _ := json.Marshal(map[string]string{"command": command})
	ev, content, res := a.runUserTool(ctx, tool, "user_shell", args, emit)
	// Journaled like the model's commands: what it changed in the
	// workspace, /undo walks back.
	entry := history.Entry{CallID: ev.Call.ID, Tool: ev.Call.Tool, Args: args, Summary: "you ran: " + command, Time: a.opts.Now()}
	if jerr := a.journalRun(entry, res); jerr != nil {
		a.opts.Logf("journal the user's command: %v", jerr)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	a.addAttachment(attachment{Text: fmt.Sprintf("%s The user ran this command in the workspace shell themselves: `%s`. Its result follows; read it as you would shell_run's.\n%s", AttachmentMark, command, content)})
	emit(NoticeEvent{Text: "The command's output goes to the model with your next message."})
	return nil
}

// Mention reads a file the user mentioned (`@path`) as fs_read returns it
// to the model, or lists a folder (`@dir/`) as glob_list does, reports it
// like a call (so it shows as a chip), and attaches it to the next
// message. A failure is reported and returned, and nothing is attached.
func (a *Agent) Mention(ctx context.Context, path string, emit func(Event)) error {
	if err := a.whole(); err != nil {
		return err
	}
	if IsImagePath(path) {
		return a.mentionImage(path, emit)
	}
	dir := strings.HasSuffix(path, "/")
	tool, args := a.opts.UserTools.Reader, argsJSON(map[string]string{"path": path})
	what := "file"
	if dir {
		tool, what = a.opts.UserTools.Lister, "folder listing"
		args = argsJSON(map[string]string{"path": strings.TrimSuffix(path, "/"), "pattern": "*"})
	}
	if tool == nil {
		return &UserError{Msg: "Mentions are not available here."}
	}
	ev, content, _ := a.runUserTool(ctx, tool, "user_mention", args, emit)
	a.workedInPath(path)
	if ev.Status != StatusOK {
		return &UserError{Msg: fmt.Sprintf("@%s was not attached: %s", path, ev.Message), Hint: ev.Hint}
	}
	a.addAttachment(attachment{Text: fmt.Sprintf("%s The user attached the %s @%s; this is what %s returns for it:\n%s", AttachmentMark, what, path, tool.Meta().Name, content)})
	return nil
}

// MentionResources reads the MCP resources the user mentioned
// (`@server:uri`, each as "server:uri") as the server's read tool returns
// them to the model, fenced, and attaches them to the next message. It is
// all or nothing: if one cannot be read, none is attached and the error
// says which, so that a prompt is never sent half-built.
func (a *Agent) MentionResources(ctx context.Context, refs []string, emit func(Event)) error {
	if err := a.whole(); err != nil {
		return err
	}
	var atts []attachment
	for _, ref := range refs {
		server, uri, _ := strings.Cut(ref, ":")
		fail := func(msg, hint string) error {
			return &UserError{Msg: fmt.Sprintf("@%s was not attached, and the prompt was not sent: %s", ref, msg), Hint: hint}
		}
		if a.opts.UserTools.Resource == nil {
			return fail("no MCP servers are available here", "")
		}
		tool, err := a.opts.UserTools.Resource(server)
		if err != nil {
			return fail(err.Error(), "/mcp lists the servers; /mcp resources NAME lists a server's resources.")
		}
		ev, content, _ := a.runUserTool(ctx, tool, "user_mention", argsJSON(map[string]string{"uri": uri}), emit)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if ev.Status != StatusOK {
			return fail(ev.Message, "/mcp resources "+server+" lists its resources.")
		}
		atts = append(atts, attachment{Text: fmt.Sprintf("%s The user attached the resource %s of the MCP server %s; this is what %s returns for it:\n%s", AttachmentMark, uri, server, tool.Meta().Name, content)})
	}
	for _, at := range atts {
		a.addAttachment(at)
	}
	return nil
}

// runUserTool runs one tool for the user and reports it as a call. It
// returns the result event and exactly what the model will read.
func (a *Agent) runUserTool(ctx context.Context, tool tools.Tool, prefix string, args json.RawMessage, emit func(Event)) (ToolResultEvent, string, tools.Result) {
	meta := tool.Meta()
	call := userCall(meta, prefix, args)
	call.Attached = prefix == "user_mention"
	call.Typed = prefix == "user_shell"
	start := a.opts.Now()
	emit(ToolCallEvent{Call: call, Phase: "started"})
	res, err := tools.Call(ctx, tool, args, false)
	now := a.opts.Now()
	content := tools.Envelope(meta, res, err, now.UTC())
	ev := ToolResultEvent{Call: call, Status: StatusOK, Summary: res.Summary, Duration: now.Sub(start), Content: content, Body: res.Body}
	if err == nil {
		ev.ExitCode = exitCodeOf(res.Output)
	}
	if _, ok := tool.(tools.Reverter); ok && len(res.Undo) > 0 {
		ev.Reversible, ev.UndoPlan = true, res.UndoPlan
	}
	switch {
	case err != nil:
		te := tools.AsError(err)
		ev.Status, ev.Kind, ev.Message, ev.Hint, ev.Body = StatusError, string(te.Kind), te.Text(), te.Hint, ""
		if ctx.Err() != nil {
			ev.Status = StatusCancelled
		}
	case meta.ReturnsUntrusted:
		ev.Untrusted, ev.Source, ev.RetrievedAt = true, res.Source, now.UTC()
		if ev.Source == "" {
			ev.Source = meta.Name
		}
	}
	emit(ev)
	return ev, content, res
}

// begin marks the agent busy for something that must not overlap a turn.
func (a *Agent) begin() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running {
		return ErrBusy
	}
	a.running = true
	return nil
}

func (a *Agent) end() {
	a.mu.Lock()
	a.running = false
	a.mu.Unlock()
}

func (a *Agent) workedInPath(p string) {
	if a.opts.Instructions != nil {
		a.queueInstruction(a.opts.Instructions.WorkedIn(strings.TrimSuffix(p, "/")))
	}
}

func argsJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// MaxImageBytes bounds an attached image: servers refuse large ones, and
// each request carries it again.
const MaxImageBytes = 5 << 20

var imageExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true}

// IsImagePath reports whether p names an image myclaw can attach.
func IsImagePath(p string) bool { return imageExts[strings.ToLower(filepath.Ext(p))] }

// mentionImage attaches an image of the workspace as an image_url content
// part (a base64 data: URL), when the model takes images.
func (a *Agent) mentionImage(p string, emit func(Event)) error {
	ut := a.opts.UserTools
	args := argsJSON(map[string]string{"path": p})
	call := Call{ID: fmt.Sprintf("user_mention_%d", userCallSeq.Add(1)), Tool: "image", Wire: "image", Args: args, Attached: true}
	fail := func(msg, hint string) error {
		emit(ToolCallEvent{Call: call, Phase: "started"})
		emit(ToolResultEvent{Call: call, Status: StatusError, Kind: string(tools.KindUnsupported), Message: msg, Hint: hint})
		return &UserError{Msg: fmt.Sprintf("@%s was not attached: %s", p, msg), Hint: hint}
	}
	if !ut.Vision || ut.Root == nil {
		return fail("the model is not set up to take images", "Set vision = true for it in the config (top level, or in its [providers.NAME]) if it is a vision model.")
	}
	rel := filepath.Clean(p)
	if filepath.IsAbs(rel) {
		r, err := filepath.Rel(a.opts.Workspace, rel)
		if err != nil || strings.HasPrefix(r, "..") {
			return fail("it is outside the workspace", "Copy it into the workspace first.")
		}
		rel = r
	}
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fail("it is outside the workspace", "Copy it into the workspace first.")
	}
	f, err := ut.Root.Open(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail("it does not exist", "Check the path; it is relative to the workspace.")
	case err != nil:
		return fail(strings.TrimPrefix(err.Error(), "openat "), "Check the path; it is relative to the workspace (links out of it are refused).")
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return fail("it is not a regular file", "")
	}
	if fi.Size() > MaxImageBytes {
		return fail(fmt.Sprintf("it is %s; images up to %s are attached", tools.HumanSize(fi.Size()), tools.HumanSize(MaxImageBytes)), "Scale it down or crop it first.")
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxImageBytes+1))
	if err != nil {
		return fail(err.Error(), "")
	}
	mime := http.DetectContentType(b)
	if !strings.HasPrefix(mime, "image/") || mime == "image/svg+xml" {
		return fail(fmt.Sprintf("its content is %s, not an image", mime), "")
	}
	emit(ToolCallEvent{Call: call, Phase: "started"})
	summary := fmt.Sprintf("%s, %s", mime, tools.HumanSize(int64(len(b))))
	emit(ToolResultEvent{Call: call, Status: StatusOK, Summary: summary})
	a.addAttachment(attachment{
		Text:     fmt.Sprintf("%s The user attached the image @%s (%s); it follows as an image part.", AttachmentMark, rel, summary),
		ImageURL: "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b),
	})
	return nil
}

// journalRun records a command myclaw ran itself (the user's, a goal's
// check) as the model's are: reversible with its undo data, irreversible
// when it changed something it cannot take back, not at all otherwise.
func (a *Agent) journalRun(entry history.Entry, res tools.Result) error {
	a.mu.Lock()
	j := a.journal
	a.mu.Unlock()
	switch {
	case len(res.Undo) > 0:
		entry.Reversible, entry.Undo = true, res.Undo
		if err := j.Begin(entry); err != nil {
			return err
		}
		return j.Commit(entry.CallID, nil)
	case !res.Unchanged:
		return j.Irreversible(entry)
	}
	return nil
}
