package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/config"
)

// The config and the TUI know the same segments.
func TestStatusSegmentsMatchTheConfig(t *testing.T) {
	if !slices.Equal(StatusSegments, config.StatusSegments) {
		t.Errorf("ui %v, config %v", StatusSegments, config.StatusSegments)
	}
}

func gitRepo(t *testing.T, head string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// [status] line shows the segments it names, in its order, and only
// those; a segment with nothing to say takes no room.
func TestStatusSegmentsOrder(t *testing.T) {
	dir := gitRepo(t, "ref: refs/heads/feature/themes\n")
	f := newFake()
	f.status.Cost, f.status.CostKnown = 0.0123, true
	m := New(f, Options{Workspace: dir, Unsandboxed: true,
		StatusLine: []string{"cost", "branch", "undo", "model", "jobs", "agents", "tokens", "sandbox", "level"}})
	m = update(m, tea.WindowSizeMsg{Width: 120, Height: 30})
	m = update(m, m.readBranch()())
	got := statusRow(m)
	want := " $0.0123 · git:feature/themes · undo 2 · test-model · 1.2k/128k tokens · unsandboxed · ask"
	if strings.TrimRight(got, " ") != want {
		t.Errorf("status line\n%q; want\n%q", got, want)
	}
	// Another order, another line; the workspace only when named.
	m = New(f, Options{Workspace: "/work/project", StatusLine: []string{"level", "workspace", "model"}})
	m = update(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if got := strings.TrimRight(statusRow(m), " "); got != " ask · /work/project · test-model" {
		t.Errorf("status line %q", got)
	}
	// The level says unsandboxed itself when no sandbox segment does.
	m = New(f, Options{Workspace: "/work/project", Unsandboxed: true, StatusLine: []string{"model", "level"}})
	m = update(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if got := strings.TrimRight(statusRow(m), " "); got != " test-model · ask · unsandboxed" {
		t.Errorf("status line %q", got)
	}
	// The running turn keeps its place on the right.
	m = startFakeTurn(t, m, "go")
	if got := statusRow(m); !strings.HasPrefix(got, " test-model · ask · unsandboxed") || !strings.Contains(got, "esc cancels") {
		t.Errorf("status line during a turn %q", got)
	}
}

// The agents segment counts the running sub-agents, and says nothing
// when none runs.
func TestStatusSegmentAgents(t *testing.T) {
	f := newFake()
	m := New(f, Options{Workspace: "/work/project", StatusLine: []string{"model", "agents", "level"}})
	m = update(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if got := strings.TrimRight(statusRow(m), " "); got != " test-model · ask" {
		t.Errorf("no agents running: status line %q", got)
	}
	for n, want := range map[int]string{1: "1 agent", 3: "3 agents"} {
		m = update(m, statusRefreshMsg{status: f.Status(), level: approval.Ask, agents: n})
		if got := strings.TrimRight(statusRow(m), " "); got != " test-model · "+want+" · ask" {
			t.Errorf("%d agents running: status line %q", n, got)
		}
	}
	m = update(m, statusRefreshMsg{status: f.Status(), level: approval.Ask})
	if got := strings.TrimRight(statusRow(m), " "); got != " test-model · ask" {
		t.Errorf("after the agents finished: status line %q", got)
	}
}

func TestGitBranch(t *testing.T) {
	if got := gitBranch(gitRepo(t, "ref: refs/heads/main\n")); got != "main" {
		t.Errorf("branch %q; want main", got)
	}
	if got := gitBranch(gitRepo(t, "0123456789abcdef0123456789abcdef01234567\n")); got != "0123456" {
		t.Errorf("detached %q; want the short commit", got)
	}
	// A worktree's .git is a file naming its git directory; a subfolder
	// finds the repository above it.
	main := gitRepo(t, "ref: refs/heads/main\n")
	wt := filepath.Join(main, ".git", "worktrees", "wt")
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(wt, "HEAD"), []byte("ref: refs/heads/topic\n"), 0o644)
	tree := t.TempDir()
	os.WriteFile(filepath.Join(tree, ".git"), []byte("gitdir: "+wt+"\n"), 0o644)
	sub := filepath.Join(tree, "a", "b")
	os.MkdirAll(sub, 0o755)
	if got := gitBranch(sub); got != "topic" {
		t.Errorf("worktree branch %q; want topic", got)
	}
	// A branch name cannot drive the terminal.
	if got := gitBranch(gitRepo(t, "ref: refs/heads/x\x1b]0;pwned\x07\n")); strings.ContainsRune(got, 0x1b) {
		t.Errorf("branch %q holds an escape", got)
	}
}

// statusScript writes a tiny status command: it keeps what it was given
// in in.json and prints body's output.
func statusScript(t *testing.T, body string) (dir, command string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the status command test uses a POSIX shell")
	}
	dir = t.TempDir()
	script := filepath.Join(dir, "status.sh")
	if err := os.WriteFile(script, []byte("cat > \"$(dirname \"$0\")/in.json\"\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, "sh " + script
}

// ranStatus gives Update the result of the status command's run: the one
// Update started (the update helper drops Cmds), or a new one.
func ranStatus(t *testing.T, m Model) Model {
	t.Helper()
	sl := m.sl
	cmd := m.runStatusCommand()
	if sl.running && cmd == nil {
		cmd = runStatusCmd(m.shared.base, sl.command, sl.confine, m.c.workspace, statusPayload(sl.sent, m.c.workspace, sl.version, sl.start))
	}
	if cmd == nil {
		t.Fatal("the status command did not run")
	}
	next, _ := m.Update(cmd())
	return next.(Model)
}

func TestStatusCommand(t *testing.T) {
	dir, command := statusScript(t, `printf '\033]0;title\007on \033[31mmain\033[0m · all good\nsecond line\n'`)
	f := newFake()
	f.status.SessionID = "s-42"
	m := New(f, Options{Workspace: dir, Version: "1.2.3", StatusCommand: command})
	m = update(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m = update(m, statusRefreshMsg{status: f.Status(), level: approval.Ask})
	if !strings.Contains(statusRow(m), "test-model · ask") {
		t.Errorf("before the command printed, the line is %q; want the standard one", statusRow(m))
	}
	m = ranStatus(t, m)
	if got := strings.TrimRight(statusRow(m), " "); got != " on main · all good" {
		t.Errorf("status line %q; want the first line, without its escapes", got)
	}
	if strings.ContainsRune(m.View(), 0x07) || strings.Contains(m.View(), "]0;") {
		t.Error("the command's escapes reached the screen")
	}
	var in map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "in.json"))
	if err != nil || json.Unmarshal(b, &in) != nil {
		t.Fatalf("the command's stdin: %s, %v", b, err)
	}
	model, _ := in["model"].(map[string]any)
	ws, _ := in["workspace"].(map[string]any)
	mine, _ := in["myclaw"].(map[string]any)
	cw, _ := in["context_window"].(map[string]any)
	if in["hook_event_name"] != "Status" || in["version"] != "1.2.3" || model["display_name"] != "test-model" ||
		ws["current_dir"] != dir || mine["undo_depth"] != 2.0 || mine["autonomy"] != "ask" || cw["context_window_size"] != 128000.0 {
		t.Errorf("stdin %s", b)
	}

	// One run at a time, then a pause; after it, a run only when what the
	// command is given changed (here the session's id, which the refresh
	// brought during the first run).
	if m.runStatusCommand() != nil {
		t.Error("the command runs again during its pause")
	}
	m = update(m, statusCooledMsg{})
	m = ranStatus(t, m)
	if b, _ := os.ReadFile(filepath.Join(dir, "in.json")); !strings.Contains(string(b), `"session_id":"s-42"`) {
		t.Errorf("after the refresh the command read %s", b)
	}
	m = update(m, statusCooledMsg{})
	if m.sl.running || m.runStatusCommand() != nil {
		t.Error("the command runs again though nothing changed")
	}
	m = update(m, tea.KeyMsg{Type: tea.KeyShiftTab}) // ask → auto-edit
	m = ranStatus(t, m)
	if b, _ := os.ReadFile(filepath.Join(dir, "in.json")); !strings.Contains(string(b), `"autonomy":"auto-edit"`) {
		t.Errorf("after the level changed the command read %s", b)
	}
	m = update(m, tea.KeyMsg{Type: tea.KeyShiftTab})
	if m.sl.running {
		t.Error("a change during the pause ran the command at once")
	}
	m = update(m, statusCooledMsg{})
	if !m.sl.running {
		t.Error("a change during the pause did not run the command after it")
	}
}

// A failing command is told once, and the standard line shows meanwhile.
func TestStatusCommandFails(t *testing.T) {
	dir, command := statusScript(t, `echo "no such thing" >&2; exit 3`)
	m := New(newFake(), Options{Workspace: dir, StatusCommand: command})
	m = update(m, tea.WindowSizeMsg{Width: 100, Height: 24})
	m = ranStatus(t, m)
	m = update(m, statusCooledMsg{})
	m = update(m, statusRefreshMsg{status: agent.Status{Model: "other-model"}, level: approval.Ask})
	m = ranStatus(t, m)
	text := m.tr.text(m.c)
	if n := strings.Count(text, "The status command failed: exit status 3: no such thing."); n != 1 {
		t.Errorf("the failure is told %d times; want once:\n%s", n, text)
	}
	if got := statusRow(m); !strings.Contains(got, "other-model · ask") {
		t.Errorf("status line %q; want the standard one", got)
	}
}

func TestStatusCommandTimesOut(t *testing.T) {
	dir, command := statusScript(t, `sleep 30; echo late`)
	defer func(d time.Duration) { statusCommandLimit = d }(statusCommandLimit)
	statusCommandLimit = 100 * time.Millisecond
	m := New(newFake(), Options{Workspace: dir, StatusCommand: command})
	m = update(m, tea.WindowSizeMsg{Width: 100, Height: 24})
	m = ranStatus(t, m)
	if text := m.tr.text(m.c); !strings.Contains(text, "The status command failed: it ran over 100ms and was stopped") {
		t.Errorf("transcript:\n%s", text)
	}
}

// The agents segment counts the sub-agents running, like the standard
// line does; none running, it takes no room.
func TestStatusSegmentAgentsBesideJobs(t *testing.T) {
	f := newFake()
	m := New(f, Options{Workspace: "/work/project", StatusLine: []string{"model", "agents", "jobs"}})
	m = update(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m = update(m, statusRefreshMsg{status: f.Status(), level: approval.Ask, agents: 2, jobs: 1})
	if got := strings.TrimRight(statusRow(m), " "); got != " test-model · 2 agents · 1 job" {
		t.Errorf("status line %q", got)
	}
	m = update(m, statusRefreshMsg{status: f.Status(), level: approval.Ask})
	if got := strings.TrimRight(statusRow(m), " "); got != " test-model" {
		t.Errorf("status line with none running %q", got)
	}
}
