package approval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestAuditAppendRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "myclaw", AuditFile)
	a, err := OpenAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 4, 21, 22, 14, 3, 0, time.UTC)
	a.now = func() time.Time { return at }

	// Args may hold file contents or secrets: only their digest is logged.
	req := callReq(writeMeta, "fs:write:.netrc")
	req.Args = json.RawMessage(`{"path":".netrc","content":"password secret-token-123"}`)
	req.Summary = "Create .netrc (32 B)"
	want := []AuditEntry{
		DecisionEntry(req, Decision{Choice: ApproveSession}),
		DecisionEntry(req, Decision{Choice: Deny, Reason: "not <that> & not now", By: "headless"}),
		VerdictEntry(callReq(writeMeta, "fs:write:a"), Verdict{Outcome: OutcomeAllow, By: "level: auto-edit"}),
	}
	// Approving with network (w) is its own decision in the log.
	if e := DecisionEntry(req, Decision{Choice: ApproveOnce, Network: true}); !e.Network {
		t.Errorf("an approval with network is logged as %+v", e)
	}
	if e := DecisionEntry(req, Decision{Choice: Deny, Network: true}); e.Network {
		t.Errorf("a denial is logged with network: %+v", e)
	}
	want[2].Time = at.Add(time.Minute).In(time.FixedZone("CEST", 2*3600))
	for _, e := range want {
		if err := a.Append(e); err != nil {
			t.Fatalf("Append: %v", err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("second Close = %v; want nil", err)
	}
	if err := a.Append(want[0]); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Append after Close = %v; want an error saying the log is closed", err)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "secret-token-123") {
		t.Errorf("the log holds the call's arguments:\n%s", data)
	}
	if n := strings.Count(string(data), "\n"); n != 3 {
		t.Errorf("the log has %d lines; want 3", n)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("log mode = %v; want 0600", perm)
	}

	got, warnings, err := ReadAudit(path)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("ReadAudit = %v, %v; want no error or warnings", warnings, err)
	}
	want[0].Time, want[1].Time = at, at
	if len(got) != len(want) {
		t.Fatalf("ReadAudit gave %d entries; want %d", len(got), len(want))
	}
	for i := range want {
		if !got[i].Time.Equal(want[i].Time) {
			t.Errorf("entry %d time = %v; want %v", i, got[i].Time, want[i].Time)
		}
		g, w := got[i], want[i]
		g.Time, w.Time = time.Time{}, time.Time{}
		if g != w {
			t.Errorf("entry %d = %+v; want %+v", i, g, w)
		}
	}
	if got[0].By != "user" || got[0].Decision != "approve_session" || got[0].Tool != "fs_write" || got[0].CallID != "c1" || got[0].Summary != req.Summary {
		t.Errorf("DecisionEntry = %+v; want approve_session by user for fs_write c1 with its summary", got[0])
	}
	if got[0].ArgsSHA != ArgsDigest(req.Args) || len(got[0].ArgsSHA) != 64 {
		t.Errorf("ArgsSHA = %q; want the digest of the args", got[0].ArgsSHA)
	}
}

func TestArgsDigest(t *testing.T) {
	a := ArgsDigest(json.RawMessage(`{"path":"a","content":"x"}`))
	b := ArgsDigest(json.RawMessage("{ \"path\": \"a\",\n \"content\": \"x\" }"))
	c := ArgsDigest(json.RawMessage(`{"path":"b","content":"x"}`))
	if a != b {
		t.Errorf("digest depends on whitespace: %s vs %s", a, b)
	}
	if a == c {
		t.Errorf("different args share a digest")
	}
	if got := ArgsDigest(nil); got != "" {
		t.Errorf("ArgsDigest(nil) = %q; want empty", got)
	}
	if got := ArgsDigest(json.RawMessage(`{"broken`)); len(got) != 64 {
		t.Errorf("ArgsDigest(invalid) = %q; want a digest of the raw bytes", got)
	}
}

func TestAuditTornLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), AuditFile)
	a, err := OpenAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	first := AuditEntry{Time: time.Unix(1, 0).UTC(), Tool: "fs_write", Decision: "approve", By: "user"}
	if err := a.Append(first); err != nil {
		t.Fatal(err)
	}
	a.Close()
	// A crash in the middle of the next write.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"time":"2026-04-21T22:14:03Z","tool":"shell_r`); err != nil {
		t.Fatal(err)
	}
	f.Close()

	got, warnings, err := ReadAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Tool != "fs_write" {
		t.Errorf("ReadAudit entries = %+v; want the one complete entry", got)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], ":2:") || !strings.Contains(warnings[0], "cut off") {
		t.Errorf("ReadAudit warnings = %q; want one about line 2 being cut off", warnings)
	}

	// The next session's entries start on a fresh line; only the torn one is lost.
	a, err = OpenAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	second := AuditEntry{Time: time.Unix(2, 0).UTC(), Tool: "web_fetch", Decision: "deny", By: "headless"}
	if err := a.Append(second); err != nil {
		t.Fatal(err)
	}
	a.Close()
	got, warnings, err = ReadAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].Tool != "web_fetch" {
		t.Errorf("ReadAudit entries = %+v; want fs_write then web_fetch", got)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], ":2:") || !strings.Contains(warnings[0], "unreadable") {
		t.Errorf("ReadAudit warnings = %q; want one about unreadable line 2", warnings)
	}
}

func TestReadAuditDamage(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		content  string
		entries  int
		warnings []string
	}{
		{"missing file", "", 0, nil},
		{"empty lines", "\n\n{\"time\":\"2026-01-01T00:00:00Z\",\"decision\":\"allow\"}\n\n", 1, nil},
		{"garbage line", "not json\n{\"time\":\"2026-01-01T00:00:00Z\",\"decision\":\"allow\"}\n", 1, []string{":1: skipped an unreadable entry"}},
		{"not an entry", "{}\n[1,2]\n", 0, []string{":1: skipped an entry without time or decision", ":2: skipped an unreadable entry"}},
		{"complete last line without newline", "{\"time\":\"2026-01-01T00:00:00Z\",\"decision\":\"allow\"}", 1, nil},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("log%d.jsonl", i))
			if tt.content != "" {
				if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got, warnings, err := ReadAudit(path)
			if err != nil {
				t.Fatalf("ReadAudit: %v", err)
			}
			if len(got) != tt.entries {
				t.Errorf("ReadAudit gave %d entries; want %d", len(got), tt.entries)
			}
			if len(warnings) != len(tt.warnings) {
				t.Fatalf("warnings = %q; want %q", warnings, tt.warnings)
			}
			for j, w := range tt.warnings {
				if !strings.Contains(warnings[j], w) {
					t.Errorf("warning %d = %q; want it to contain %q", j, warnings[j], w)
				}
			}
		})
	}
	if _, _, err := ReadAudit(dir); err == nil {
		t.Errorf("ReadAudit(a directory) = nil error; want one")
	}
}

func TestOpenAuditRefusesDirectory(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenAudit(dir); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("OpenAudit(dir) error = %v; want one naming the path", err)
	}
}

func TestAuditConcurrentAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), AuditFile)
	a, err := OpenAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 20
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				e := AuditEntry{CallID: fmt.Sprintf("%d-%d", w, i), Tool: "fs_write", Decision: "approve", By: "user", Summary: strings.Repeat("x", 500)}
				if err := a.Append(e); err != nil {
					t.Errorf("Append: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	a.Close()
	got, warnings, err := ReadAudit(path)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("ReadAudit = %q, %v; want no warnings or error", warnings, err)
	}
	seen := map[string]bool{}
	for _, e := range got {
		seen[e.CallID] = true
	}
	if len(got) != writers*each || len(seen) != writers*each {
		t.Errorf("read %d entries (%d distinct); want %d", len(got), len(seen), writers*each)
	}
}

func TestFormatAudit(t *testing.T) {
	if got := FormatAudit(nil, false); got != "No approval decisions recorded.\n" {
		t.Errorf("FormatAudit(nil, false) = %q", got)
	}
	t1 := time.Date(2026, 4, 21, 22, 14, 3, 0, time.UTC)
	entries := []AuditEntry{
		{Time: t1, Tool: "shell_run", Summary: "Run `go test ./...`", Decision: "approve_session", By: "user"},
		{Time: t1.Add(time.Second), Tool: "fs_write", Summary: "Create a.txt\n\x1b[2Jfake line\u202e", Decision: "deny", By: "user", Reason: "wrong\tfile"},
		{Time: t1.Add(2 * time.Second), Tool: "github/create_issue", Decision: "allow", By: `rule: tool = "github/*"`},
	}
	out := FormatAudit(entries, false)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(entries) {
		t.Fatalf("FormatAudit gave %d lines; want %d:\n%s", len(lines), len(entries), out)
	}
	if strings.ContainsAny(out, "\x1b\t\u202e") {
		t.Errorf("FormatAudit kept control or invisible characters: %q", out)
	}
	wantIn := []string{
		t1.Local().Format(time.DateTime) + "  approve_session  shell_run            -  Run `go test ./...`  (by user)",
		"deny             fs_write             -  Create a.txt \\e[2Jfake line⟨U+202E⟩  (by user: wrong file)",
		"allow            github/create_issue  -  (no summary)  (by rule: tool = \"github/*\")",
	}
	for i, w := range wantIn {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d = %q; want it to contain %q", i, lines[i], w)
		}
	}
}
