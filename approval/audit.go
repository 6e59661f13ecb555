package approval

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"myclaw/tools/termtext"
)

// AuditFile is the audit log's name in the state directory.
const AuditFile = "approvals.jsonl"

// AuditEntry is one decision in the audit log.
type AuditEntry struct {
	Time   time.Time `json:"time"`
	CallID string    `json:"call_id"`
	Tool   string    `json:"tool"`
	// ArgsSHA is the SHA-256 of the canonical args, not the args: they may
	// hold secrets or file contents.
	ArgsSHA string `json:"args_sha256"`
	Summary string `json:"summary"`
	// Decision is a Verdict's Outcome (allow, deny) when the policy decided
	// alone, or a Choice (approve, approve_session, deny, edit) otherwise;
	// approve_save is a session grant that was also saved as a rule.
	Decision string `json:"decision"`
	// By names who decided: a rule, "user", a level, "headless", a hook.
	By     string `json:"by"`
	Reason string `json:"reason,omitempty"`
	// SavedRule is, for a grant also saved as a rule (decision
	// "approve_save"), the rule and where it was written.
	SavedRule string `json:"saved_rule,omitempty"`
	// Network is set when the person approved a shell command with
	// network (the pane's w or W): a different decision from approve.
	Network bool `json:"network,omitempty"`
	// Session and Workspace say where the call was made (empty in entries
	// written before they were recorded).
	Session   string `json:"session,omitempty"`
	Workspace string `json:"workspace,omitempty"`
}

// ArgsDigest returns the hex SHA-256 of args with insignificant whitespace
// removed, or "" when there are none.
func ArgsDigest(args json.RawMessage) string {
	if len(args) == 0 {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, args) != nil {
		b.Reset()
		b.Write(args)
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:])
}

// VerdictEntry describes a call the policy decided alone (allowed or
// denied without asking); Time is left for Append to fill.
func VerdictEntry(req Request, v Verdict) AuditEntry {
	e := requestEntry(req)
	e.Decision, e.By, e.Reason = string(v.Outcome), v.By, v.Why
	return e
}

// DecisionEntry describes a call an Approver decided; a Decision without
// By is recorded as the user's.
func DecisionEntry(req Request, d Decision) AuditEntry {
	e := requestEntry(req)
	e.Decision, e.By, e.Reason, e.Network = string(d.Choice), d.By, d.Reason, d.Network && d.Approved()
	if e.By == "" {
		e.By = "user"
	}
	return e
}

// ApproveSave is the audit decision of a session grant also saved as a
// permanent rule: it outlives the session, so it is told apart.
const ApproveSave = "approve_save"

// SavedEntry describes a grant saved as a rule: saved says what was
// written where ("" when saving failed, then recorded as the plain
// session grant it became, with why in the reason).
func SavedEntry(req Request, d Decision, saved string, err error) AuditEntry {
	e := DecisionEntry(req, d)
	switch {
	case err != nil:
		e.Reason = "the rule could not be saved: " + err.Error()
	default:
		e.Decision, e.SavedRule = ApproveSave, saved
	}
	return e
}

func requestEntry(req Request) AuditEntry {
	tool := req.Tool
	if tool == "" {
		tool = req.Meta.Name
	}
	return AuditEntry{CallID: req.CallID, Tool: tool, ArgsSHA: ArgsDigest(req.Args), Summary: req.Summary}
}

// Audit appends entries to the audit log, one JSON line each, synced to
// disk before Append returns. It is safe for concurrent use, and several
// processes may append to the same file: each entry is one write to a file
// opened for appending.
type Audit struct {
	path string
	now  func() time.Time

	mu   sync.Mutex
	f    *os.File
	torn bool // the last write failed part way: start the next on a new line
}

// OpenAudit opens the log at path for appending, creating it and its
// directory if needed. A last line torn by a crash is ended first, so the
// next entry starts on a line of its own and only the torn one is lost.
func OpenAudit(path string) (*Audit, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open audit log %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open audit log %s: %w", path, err)
	}
	a := &Audit{path: path, now: time.Now, f: f}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	if err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err = f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			a.torn = true
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open audit log %s: %w", path, err)
	}
	return a, nil
}

// Append writes one entry and syncs it to disk. A zero Time is set to now.
func (a *Audit) Append(e AuditEntry) error {
	if e.Time.IsZero() {
		e.Time = a.now()
	}
	e.Time = e.Time.UTC()
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil { // Encode ends the line with '\n'
		return fmt.Errorf("append to audit log %s: %w", a.path, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return fmt.Errorf("append to audit log %s: the log is closed", a.path)
	}
	data := line.Bytes()
	if a.torn {
		data = append([]byte{'\n'}, data...)
	}
	if _, err := a.f.Write(data); err != nil {
		a.torn = true
		return fmt.Errorf("append to audit log %s: %w", a.path, err)
	}
	a.torn = false
	if err := a.f.Sync(); err != nil {
		return fmt.Errorf("append to audit log %s: sync: %w", a.path, err)
	}
	return nil
}

// Close closes the log; later Appends fail. Closing twice is harmless.
func (a *Audit) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return nil
	}
	err := a.f.Close()
	a.f = nil
	if err != nil {
		return fmt.Errorf("close audit log %s: %w", a.path, err)
	}
	return nil
}

// ReadAudit reads the log at path, oldest first. Lines it cannot read (a
// last line torn by a crash, a damaged line) are skipped, each with a
// warning naming its line number. A log that does not exist yet reads as
// empty.
func ReadAudit(path string) ([]AuditEntry, []string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read audit log %s: %w", path, err)
	}
	defer f.Close()
	var (
		entries  []AuditEntry
		warnings []string
		r        = bufio.NewReader(f)
	)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return entries, warnings, fmt.Errorf("read audit log %s: line %d: %w", path, n, err)
		}
		complete := bytes.HasSuffix(line, []byte{'\n'})
		if text := bytes.TrimSpace(line); len(text) > 0 {
			var e AuditEntry
			switch jerr := json.Unmarshal(text, &e); {
			case jerr == nil && !e.Time.IsZero() && e.Decision != "":
				entries = append(entries, e)
			case !complete:
				warnings = append(warnings, fmt.Sprintf("%s:%d: skipped the last entry, cut off while being written", path, n))
			case jerr != nil:
				warnings = append(warnings, fmt.Sprintf("%s:%d: skipped an unreadable entry: %v", path, n, jerr))
			default:
				warnings = append(warnings, fmt.Sprintf("%s:%d: skipped an entry without time or decision", path, n))
			}
		}
		if err == io.EOF {
			return entries, warnings, nil
		}
	}
}

// FormatAudit renders entries as `myclaw history --approvals` prints them:
// one line per decision, columns aligned (local time, decision, tool, session
// and, with workspaces, the workspace), then
// the summary, who decided and their reason. Text that came from calls is
// sanitised for the screen so it cannot drive the terminal or break the
// line.
func FormatAudit(entries []AuditEntry, workspaces bool) string {
	if len(entries) == 0 {
		return "No approval decisions recorded.\n"
	}
	orDash := func(s string) string {
		if s = oneLine(s); s == "" {
			return "-"
		}
		return s
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, e := range entries {
		rest := oneLine(e.Summary)
		if rest == "" {
			rest = "(no summary)"
		}
		rest += "  (by " + oneLine(e.By)
		if e.Reason != "" {
			rest += ": " + oneLine(e.Reason)
		}
		rest += ")"
		if e.SavedRule != "" {
			rest += "  saved " + oneLine(e.SavedRule)
		}
		where := orDash(e.Session)
		if workspaces {
			where += "\t" + orDash(e.Workspace)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Time.Local().Format(time.DateTime), oneLine(e.Decision), oneLine(e.Tool), where, rest)
	}
	tw.Flush()
	return b.String()
}

// oneLine keeps one decision on one line, every control and invisible
// character shown as an escape.
func oneLine(s string) string { return termtext.OneLine(s, 0) }
