package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sashabaranov/go-openai"

	"myclaw/history"
)

// Prompt is one user prompt of the session's transcript, a point a fork can
// start from.
type Prompt struct {
	// N numbers the prompts from 1, oldest first.
	N    int
	Text string
	// record is the transcript record the prompt is; a fork before it
	// keeps the records ahead of it.
	record int
}

// PromptText is what the user typed in a user message: without the notes
// myclaw put ahead of it and the attachments behind it.
func PromptText(m openai.ChatCompletionMessage) string {
	if NotesOnly(m) {
		return ""
	}
	content := m.Content
	if content == "" && len(m.MultiContent) > 0 {
		content = m.MultiContent[0].Text
	}
	content, _, _ = strings.Cut(content, "\n\n"+AttachmentMark)
	var lines []string
	for l := range strings.SplitSeq(content, "\n") {
		if !strings.HasPrefix(l, "[myclaw note]") {
			lines = append(lines, l)
		}
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// Prompts lists the user prompts of the session as the transcript has them
// (compaction does not hide any), oldest first.
func (a *Agent) Prompts() ([]Prompt, error) {
	records, _, err := a.Session().Records()
	if err != nil {
		return nil, fmt.Errorf("read the session transcript: %w", err)
	}
	var out []Prompt
	for i, r := range records {
		if r.Kind != "message" {
			continue
		}
		var m openai.ChatCompletionMessage
		if json.Unmarshal(r.Data, &m) != nil || m.Role != openai.ChatMessageRoleUser || ToolImages(m) || NotesOnly(m) {
			continue
		}
		out = append(out, Prompt{N: len(out) + 1, Text: PromptText(m), record: i})
	}
	return out, nil
}

// Forked says where a fork went.
type Forked struct {
	ID, Parent string
	// Draft is the prompt the fork was made before, for the user to edit
	// and send again; empty for a fork of the whole conversation.
	Draft string
}

// Fork continues in a new session that starts as this one stood: with the
// whole conversation (before == 0) or with what came before prompt number
// before. The new session has its own undo journal from then on; the
// original stays as it was, and the files are not touched.
func (a *Agent) Fork(before int) (Forked, error) {
	if err := a.whole(); err != nil {
		return Forked{}, err
	}
	if err := a.idle(); err != nil {
		return Forked{}, err
	}
	src := a.Session()
	keep, draft := -1, ""
	if before > 0 {
		prompts, err := a.Prompts()
		if err != nil {
			return Forked{}, err
		}
		if before > len(prompts) {
			return Forked{}, &UserError{Msg: fmt.Sprintf("There is no prompt %d in this session (it has %d).", before, len(prompts)), Hint: "/fork with no number lists the prompts to fork before."}
		}
		keep, draft = prompts[before-1].record, prompts[before-1].Text
	}
	s, err := a.opts.Store.Fork(src, keep)
	if err != nil {
		return Forked{}, err
	}
	if err := a.switchTo(s); err != nil {
		return Forked{}, err
	}
	return Forked{ID: s.Info().ID, Parent: src.Info().ID, Draft: draft}, nil
}

// OpenSession continues a stored session of this workspace in place of the
// current one (which stays on disk).
func (a *Agent) OpenSession(id string) error {
	_ = a.ready() // a session that failed to load may be left
	if err := a.idle(); err != nil {
		return err
	}
	if id == a.Session().Info().ID {
		return &UserError{Msg: "That is the session you are in."}
	}
	s, err := a.opts.Store.OpenSession(id)
	if err != nil {
		if errors.Is(err, history.ErrNoSession) {
			return &UserError{Msg: fmt.Sprintf("No session %q.", id), Hint: "/sessions lists the sessions of this workspace."}
		}
		return err
	}
	if ws := s.Info().Workspace; filepath.Clean(ws) != filepath.Clean(a.opts.Workspace) {
		s.Close()
		return &UserError{Msg: fmt.Sprintf("Session %s belongs to another workspace (%s).", id, ws), Hint: "Run myclaw --workspace " + ws + " --session " + id + " to continue it there."}
	}
	if err := a.switchTo(s); err != nil {
		return err
	}
	// Marked used, it is the one --continue opens next; failing that
	// decides only what --continue opens, not this resume.
	_ = s.Touch()
	a.sessionSwitched("resume")
	return nil
}

func (a *Agent) idle() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running {
		return ErrBusy
	}
	return nil
}

// switchTo makes s the session the conversation continues in, and closes
// the one it replaces. A long session is opened from its end, as
// --session opens it: the rest loads when something needs it (LoadRest,
// or whatever waits for the whole session).
func (a *Agent) switchTo(s *history.Session) error {
	// The session is marked as running here, so that another myclaw on
	// the workspace is told; one running elsewhere is not taken over.
	if err := s.Hold(); err != nil {
		s.Close()
		return &UserError{Msg: fmt.Sprintf("Session %s is open in another myclaw process.", s.Info().ID), Hint: "Quit that one first, or continue there.", Err: err}
	}
	p := PreloadTail(s)
	a.mu.Lock()
	defer a.mu.Unlock()
	old := a.session
	a.opts.Preloaded = p
	if err := a.attach(s); err != nil {
		s.Close()
		return err
	}
	if old != s {
		_ = old.Close()
		a.plan.accepted = nil // a plan belongs to its conversation
	}
	return nil
}
