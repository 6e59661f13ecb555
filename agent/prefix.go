package agent

import (
	"cmp"
	"slices"
	"strings"

	"github.com/sashabaranov/go-openai"

	"myclaw/approval"
	"myclaw/tools"
)

// A local server (llama.cpp, Ollama, vLLM) reuses its cache for the part
// of a prompt that is byte for byte the previous request's, so every
// request of a conversation extends the one before: the system prompt and
// the catalog depend on nothing that changes during a session (nor between
// the sessions of a workspace), and what changes — the date, the autonomy
// level, an instruction file of a folder the model works in — is told in a
// note appended to the conversation. The declared breaks are a compaction
// (and /uncompact), old tool output elided to fit the window, a catalog
// that changes with what is offered (readonly and plan mode hide the
// side-effecting tools, an MCP server comes or goes), /trust, a server
// that refuses the catalog, and a window that turns out small enough for
// the compact prompt.

// Note heads: told (below) is read back from them on resume.
const (
	noteHead      = "[myclaw note] "
	dateNoteHead  = "Today is "
	levelNoteHead = "Autonomy: "
)

// told is what the conversation has been told of the changing state: the
// date and the autonomy level, as the notes said them.
type told struct {
	date  string
	level approval.Level
}

// toldOf reads the last date and level notes of a conversation: the
// leading note lines of its user messages.
func toldOf(msgs []openai.ChatCompletionMessage) told {
	var t told
	for _, m := range msgs {
		if m.Role != openai.ChatMessageRoleUser {
			continue
		}
		text := m.Content
		if text == "" && len(m.MultiContent) > 0 {
			text = m.MultiContent[0].Text
		}
		for line := range strings.Lines(text) {
			note, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), noteHead)
			if !ok {
				break
			}
			if d, ok := strings.CutPrefix(note, dateNoteHead); ok {
				t.date = strings.TrimSuffix(d, ".")
			}
			if l, ok := strings.CutPrefix(note, levelNoteHead); ok {
				if i := strings.IndexByte(l, '.'); i > 0 {
					t.level = approval.Level(l[:i])
				}
			}
		}
	}
	return t
}

// dateFormat is the date as notes give it.
const dateFormat = "Monday 2 January 2006"

// stateNotes are the notes on what changed since the conversation was last
// told (all of them when force), and marks them told.
func (a *Agent) stateNotes(force bool) []string {
	date := a.opts.Now().Format(dateFormat)
	level := a.opts.Policy.PlanFrom()
	a.mu.Lock()
	defer a.mu.Unlock()
	compact := a.window.Tokens < compactWindow
	var notes []string
	if force || a.told.date != date {
		notes = append(notes, dateNoteHead+date+".")
	}
	if force || a.told.level != level {
		notes = append(notes, levelNote(level, compact))
	}
	a.told = told{date: date, level: level}
	return notes
}

// levelNote tells the model the autonomy level and what it means for it.
func levelNote(level approval.Level, compact bool) string {
	s := levelNoteHead + string(level) + ". "
	switch {
	case level == approval.ReadOnly:
		return s + "Only read-only tools are available; say what you would change instead of changing it."
	case level == approval.Full:
		return s + "Your calls run without asking, so be careful: prefer reversible edits over shell commands."
	case compact:
		return s + "Calls with side effects may need the user's approval; respect a denial (permission_denied) and do not retry it."
	}
	return s + "Calls with side effects may wait for the user's approval. A denied call comes back as permission_denied, often with the user's reason: respect it and do not retry the same call."
}

// notesOnlyHead opens a user message that carries notes alone, no prompt.
const notesOnlyHead = noteHead + "From myclaw, not the user:"

// NotesOnly says m carries myclaw's notes alone, not something the user
// typed.
func NotesOnly(m openai.ChatCompletionMessage) bool {
	return m.Role == openai.ChatMessageRoleUser && strings.HasPrefix(m.Content, notesOnlyHead)
}

// joinNotes writes notes as the leading lines of a user message.
func joinNotes(notes []string) string {
	return noteHead + strings.Join(notes, "\n"+noteHead)
}

// queueInstruction has an instruction file that joined the session (a
// subdirectory's AGENTS.md) told in the conversation before the next
// request, rather than rewriting the system prompt.
func (a *Agent) queueInstruction(f *InstructionFile) {
	if f == nil || a.opts.Instructions == nil {
		return
	}
	a.mu.Lock()
	a.instructionNotes = append(a.instructionNotes, a.opts.Instructions.fileNote(f))
	a.mu.Unlock()
}

func (a *Agent) takeInstructionNotes() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := a.instructionNotes
	a.instructionNotes = nil
	return n
}

// deliverNotes appends, before a request within a turn, a user message
// with the notes on what changed since the last (the level switched during
// the turn, an instruction file joined): the earlier messages stay as they
// were sent.
func (a *Agent) deliverNotes() error {
	notes := a.stateNotes(false)
	files := a.takeInstructionNotes()
	if len(notes)+len(files) == 0 {
		return nil
	}
	text := notesOnlyHead
	if len(notes) > 0 {
		text += "\n" + joinNotes(notes)
	}
	for _, f := range files {
		text += "\n\n" + noteHead + f
	}
	return a.appendMessage(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: text})
}

// stableCatalog orders the catalog the same in every session: the
// built-in tools as registered, then the others (MCP servers connect in
// no fixed order) by wire name.
func stableCatalog(defs []tools.Definition, builtin []bool) []tools.Definition {
	type def struct {
		tools.Definition
		builtin bool
	}
	all := make([]def, len(defs))
	for i, d := range defs {
		all[i] = def{d, i < len(builtin) && builtin[i]}
	}
	slices.SortStableFunc(all, func(x, y def) int {
		bx, by := x.builtin, y.builtin
		switch {
		case bx && by:
			return 0
		case bx:
			return -1
		case by:
			return 1
		}
		return cmp.Compare(x.Wire, y.Wire)
	})
	for i, d := range all {
		defs[i] = d.Definition
	}
	return defs
}
