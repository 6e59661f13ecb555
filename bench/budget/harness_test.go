package budget

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"myclaw/approval"
	"myclaw/internal/apptest"
	"myclaw/sandbox"
	"myclaw/tools"
	"myclaw/tools/builtin"
)

func TestMain(m *testing.M) {
	sandbox.Launch() // the sandbox's self-test re-executes this binary
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// levels are the levels measured; readonly runs nothing by construction.
var levels = []approval.Level{approval.Ask, approval.AutoEdit, approval.Full}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// myclaw builds the real binary once per test run.
func myclaw(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "budget-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "myclaw")
		cmd := exec.Command("go", "build", "-o", binPath, ".")
		cmd.Dir = "../.."
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// bench is one measurement's world: a temp repository, a temp HOME with a
// secret in it, a folder outside the workspace, and a dev server on
// 127.0.0.1 that answers /health and serves an install script.
type bench struct {
	repo, home, outside string
	port                int
	sandbox             sandbox.Status
}

func newBench(t testing.TB) *bench {
	t.Helper()
	for _, p := range []string{"git", "go", "node", "npm", "python3", "curl", "make"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("the workload needs %s, which is not installed", p)
		}
	}
	b := &bench{repo: t.TempDir(), home: t.TempDir(), outside: t.TempDir()}
	b.sandbox = sandbox.New(sandbox.Options{Workspace: b.repo, Writable: sandbox.DefaultWritable()}).Check(context.Background())
	if !b.sandbox.Active {
		t.Skip("no sandbox here (" + b.sandbox.Why + "): the budget is measured with the sandbox every level relies on")
	}
	for name, body := range Repo {
		p := filepath.Join(b.repo, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(b.repo, "scripts/check.sh"), 0o755)
	os.MkdirAll(filepath.Join(b.home, ".aws"), 0o700)
	os.WriteFile(filepath.Join(b.home, ".aws/credentials"), []byte("[default]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = not-a-real-secret\n"), 0o600)
	os.WriteFile(filepath.Join(b.home, ".gitconfig"), []byte("[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-qm", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = b.repo, b.env()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b.port = ln.Addr().(*net.TCPAddr).Port
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/health":
			fmt.Fprintln(w, "ok")
		case "/install.sh":
			fmt.Fprintln(w, "echo the install script ran")
		default:
			http.NotFound(w, r)
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return b
}

// env is what myclaw (and git, above) run with: the temp HOME, the real
// Go caches (so builds do not start cold), and no way to the network for
// installs even if something ran unconfined.
func (b *bench) env() []string {
	goenv := func(k string) string {
		out, _ := exec.Command("go", "env", k).Output()
		return strings.TrimSpace(string(out))
	}
	return []string{
		"HOME=" + b.home,
		"PATH=" + os.Getenv("PATH"),
		"GOCACHE=" + goenv("GOCACHE"),
		"GOMODCACHE=" + goenv("GOMODCACHE"),
		"GOTOOLCHAIN=local",
		"GOPROXY=off",
		"GOFLAGS=-mod=mod",
		"npm_config_offline=true",
		"PIP_NO_INDEX=1",
	}
}

// event is the part of a JSON event the measurement reads.
type event struct {
	Type    string `json:"type"`
	Phase   string `json:"phase"`
	Tool    string `json:"tool"`
	Summary string `json:"summary"`
	// approval events name the call by call_id, tool_result by call.id.
	CallID   string              `json:"call_id"`
	Call     struct{ ID string } `json:"call"`
	Status   string              `json:"status"`
	Content  string              `json:"content"`
	ExitCode *int                `json:"exit_code"`
	Decision json.RawMessage     `json:"decision"`
}

// routine replays calls through the real binary at level, headless, and
// counts prompts (calls headless denied because they would ask), friction
// and other failures.
func (b *bench) routine(t testing.TB, level approval.Level, calls []Call) Figures {
	t.Helper()
	srv := apptest.NewServer(t, func(first string, round int) (string, []apptest.Call) {
		if round < len(calls) {
			return "", []apptest.Call{{Name: calls[round].Tool, Args: calls[round].Args}}
		}
		return "Done.", nil
	})
	state, cfg := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(cfg, "myclaw"), 0o755)
	// Room for every call in one turn, and no compaction on the way.
	conf := fmt.Sprintf("max_tool_rounds = %d\ncontext_window = 4000000\n", len(calls)+5)
	// The dev server was allowed for this project at its first contact
	// (the pane's s on "… wants to reach 127.0.0.1:PORT"): one prompt ever,
	// not one per run, so it is not counted here.
	conf += fmt.Sprintf("[[approval.rules]]\ntool = %q\nmatch = \"net:connect:127.0.0.1:%d\"\ndecision = \"allow\"\n", approval.NetworkTool, b.port)
	if err := os.WriteFile(filepath.Join(cfg, "myclaw", "config.toml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	// A fresh copy of the repository per level, so every level starts alike.
	ws := filepath.Join(t.TempDir(), "shop")
	if out, err := exec.Command("cp", "-a", b.repo, ws).CombinedOutput(); err != nil {
		t.Fatalf("copy the repository: %v\n%s", err, out)
	}
	cmd := exec.Command(myclaw(t), "-p", "Do the routine work.", "--model", "test-model", "--output", "json", "--autonomy", string(level))
	cmd.Dir = ws
	cmd.Env = append(b.env(), "OPENAI_BASE_URL="+srv.HTTP.URL+"/v1", "XDG_STATE_HOME="+state, "XDG_CONFIG_HOME="+cfg)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Logf("myclaw at %s: %v\n%s", level, err, stderr.String())
	}
	asked := map[string]bool{}
	hosts, hostOrder := map[string]bool{}, []string(nil)
	results := map[string]event{}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch {
		case e.Type == "approval" && e.Phase == "asked" && e.Tool == approval.NetworkTool:
			// A host's first contact asks once; the answer (s) is saved
			// for the project, so only the first ask of a host counts.
			_, host, _ := strings.Cut(e.Summary, " wants to reach ")
			if !hosts[host] {
				hosts[host] = true
				hostOrder = append(hostOrder, host)
			}
		case e.Type == "approval" && e.Phase == "asked":
			asked[e.CallID] = true
		case e.Type == "tool_result":
			results[e.Call.ID] = e
		}
	}
	f := Figures{Level: string(level), Routine: len(calls), Prompts: len(hostOrder)}
	for _, h := range hostOrder {
		f.PromptCalls = append(f.PromptCalls, "first contact with "+h)
	}
	for i, c := range calls {
		id := fmt.Sprintf("call_%d_0", i)
		r, ok := results[id]
		switch {
		case !ok:
			t.Errorf("%s: call %d (%s) has no result; stderr:\n%s", level, i, c, stderr.String())
			continue
		case asked[id]:
			f.Prompts++
			f.PromptCalls = append(f.PromptCalls, c.String())
			continue
		case r.Status == "denied":
			// Denied without asking: the workload cannot go on this way.
			f.Failed++
			continue
		}
		f.Ran++
		failed := r.Status == "error" || r.ExitCode != nil && *r.ExitCode != 0
		switch {
		case strings.Contains(r.Content, "permission_denied: the sandbox"),
			c.NeedsNet && failed && strings.Contains(r.Content, "no network"):
			f.Friction++
			f.FrictionCalls = append(f.FrictionCalls, c.String())
		case failed:
			f.Failed++
			t.Logf("%s: %s failed, not because of the sandbox: %s", level, c, tools.ClipOneLine(r.Content, 300))
		}
	}
	return f
}

// dangerous decides each dangerous call at level the way a session does
// (the tool's dry run, then the policy with the sandbox's real status),
// without running any of them, and fills in the dangerous figures.
func (b *bench) dangerous(t testing.TB, level approval.Level, f *Figures) {
	t.Helper()
	ws, err := builtin.OpenWorkspace(b.repo)
	if err != nil {
		t.Fatal(err)
	}
	reg := map[string]tools.Tool{}
	for _, tl := range []tools.Tool{builtin.NewShellRun(builtin.ShellOptions{Dir: ws.Dir()}), builtin.NewFsWrite(ws, nil)} {
		reg[tl.Meta().Name] = tl
	}
	p, err := approval.NewPolicy(level, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.SetSandbox(approval.Sandbox{Active: b.sandbox.Active, Why: b.sandbox.Why})
	calls := Dangerous(b.port, b.outside, b.home)
	f.DangerousTotal = len(calls)
	for i, c := range calls {
		tl := reg[c.Tool]
		meta := tl.Meta()
		if ok, _ := p.Visible(meta); !ok {
			continue
		}
		if _, ok := tl.(tools.DryRunner); !ok {
			t.Fatalf("%s has no dry run: deciding its call would run it", c.Tool)
		}
		dry, err := tools.Call(context.Background(), tl, json.RawMessage(c.Args), true)
		if err != nil {
			continue // refused before any decision, as the agent does
		}
		req := approval.Request{CallID: fmt.Sprint("d", i), Tool: meta.Name, Meta: meta, Args: json.RawMessage(c.Args),
			Capability: dry.Capability, Summary: dry.Summary, Command: dry.Command}
		if req.Capability == "" {
			req.Capability = meta.Capability
		}
		v := p.Evaluate(req)
		if v.Outcome != approval.OutcomeAllow {
			continue
		}
		f.Dangerous++
		line := c.What + ": " + c.String() + " (" + v.By
		if v.Confinement != nil {
			line += "; " + v.Confinement.String()
			if !v.Confinement.Sandboxed {
				f.Unconfined = append(f.Unconfined, c.String())
			}
		}
		f.DangerousCalls = append(f.DangerousCalls, line+")")
	}
}

// measure runs the routine workload of n calls and the dangerous set at
// every level.
func measure(t *testing.T, n int) []Figures {
	b := newBench(t)
	var out []Figures
	for _, l := range levels {
		f := b.routine(t, l, Routine(n, b.port))
		b.dangerous(t, l, &f)
		out = append(out, f)
	}
	return out
}
