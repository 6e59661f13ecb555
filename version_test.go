package main

import (
	"bytes"
	"context"
	"myclaw/app"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-version"}, {"version"}} {
		var out, errb bytes.Buffer
		code := run(context.Background(), args, nil, strings.NewReader(""), &out, &errb)
		got := out.String()
		if code != app.ExitOK || !strings.HasPrefix(got, "myclaw ") || !strings.Contains(got, "\ncommit ") ||
			!strings.Contains(got, runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH) {
			t.Errorf("myclaw %s: code %d, stdout %q, stderr %q; want version, commit and Go version", args[0], code, got, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"version", "extra"}, nil, strings.NewReader(""), &out, &errb); code != app.ExitUsage {
		t.Errorf("myclaw version extra: code %d; want %d", code, app.ExitUsage)
	}
}

func TestVersionFromReleaseBuild(t *testing.T) {
	version, commit = "1.2.3", "abc123"
	t.Cleanup(func() { version, commit = "", "" })
	got := versionText()
	if !strings.HasPrefix(got, "myclaw 1.2.3\ncommit abc123") {
		t.Errorf("versionText() = %q; want the release version and commit", got)
	}
}

func TestCompletionUsage(t *testing.T) {
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, nil, strings.NewReader(""), &out, &errb); code != app.ExitUsage || !strings.Contains(errb.String(), "bash, zsh or fish") {
			t.Errorf("myclaw %q: code %d, stderr %q; want usage error naming the shells", args, code, errb.String())
		}
	}
}

// TestModeFlags guards the reading of -h output that the scripts are
// built from.
func TestModeFlags(t *testing.T) {
	has := func(mode, name string, value bool) {
		t.Helper()
		for _, f := range modeFlags(mode) {
			if f.name == name {
				if f.value != value || f.usage == "" {
					t.Errorf("%s flag %s: value %v, usage %q; want value %v and a usage", mode, name, f.value, f.usage, value)
				}
				return
			}
		}
		t.Errorf("%s flags lack %s: %+v", mode, name, modeFlags(mode))
	}
	has("main", "model", true)
	has("main", "p", true)
	has("main", "autonomy", true)
	has("main", "continue", false)
	has("undo", "force", false)
	has("history", "approvals", false)
	for _, f := range modeFlags("redo") {
		if f.name == "force" || f.name == "p" {
			t.Errorf("redo offers %s, which belongs to another mode", f.name)
		}
	}
}

// TestBashCompletion runs the script in bash as completion would.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	var script bytes.Buffer
	if code := run(context.Background(), []string{"completion", "bash"}, nil, strings.NewReader(""), &script, os.Stderr); code != app.ExitOK {
		t.Fatalf("completion bash: code %d", code)
	}
	tests := []struct{ words, want string }{
		{`myclaw ""`, strings.Join(completionModes, " ") + " --autonomy"},
		{`myclaw --au`, "--autonomy"},
		{`myclaw --autonomy a`, "ask auto-edit"},
		{`myclaw --output ""`, "text json"},
		{`myclaw undo --f`, "--force"},
		{`myclaw redo --f`, ""},
		{`myclaw completion ""`, "bash zsh fish"},
		{`myclaw com`, "completion"},
	}
	for _, tt := range tests {
		cmd := exec.Command(bash, "--norc", "-c", script.String()+`
COMP_WORDS=(`+tt.words+`); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _myclaw; echo "${COMPREPLY[*]}"`)
		out, err := cmd.CombinedOutput()
		got := strings.TrimSpace(string(out))
		if err != nil || !strings.HasPrefix(got, tt.want) || (tt.want == "" && got != "") {
			t.Errorf("completing %s: got %q (%v); want %q", tt.words, got, err, tt.want)
		}
	}
}

func TestZshAndFishCompletion(t *testing.T) {
	for _, shell := range []string{"zsh", "fish"} {
		var out bytes.Buffer
		if code := run(context.Background(), []string{"completion", shell}, nil, strings.NewReader(""), &out, os.Stderr); code != app.ExitOK {
			t.Fatalf("completion %s: code %d", shell, code)
		}
		s := out.String()
		for _, want := range []string{"autonomy", "readonly ask auto-edit full", "approvals", "force", "workspace", strings.Join(completionModes, " ")} {
			if !strings.Contains(s, want) {
				t.Errorf("%s script lacks %q", shell, want)
			}
		}
		if path, err := exec.LookPath(shell); err == nil {
			check := exec.Command(path, "-n")
			check.Stdin = strings.NewReader(s)
			if b, err := check.CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v\n%s", shell, err, b)
			}
		}
	}
}

// A pseudo-version is shortened to its commit: the welcome line keeps room
// for the server's state at 80 columns.
func TestWelcomeVersion(t *testing.T) {
	for _, tc := range []struct{ v, rev, want string }{
		{"v1.4.0", "", "v1.4.0"},
		{"v0.0.0-20261201221003-5311a93cafe0", "", "(devel 5311a93)"},
		{"v1.4.1-0.20261201221003-5311a93cafe0+dirty", "", "(devel 5311a93)"},
		{"v1.5.0-rc.1.0.20261201221003-5311a93cafe0", "", "(devel 5311a93)"},
		{"", "5311a93cafe0aaaa", "(devel 5311a93)"},
		{"", "", "(devel)"},
	} {
		if got := welcomeVersion(tc.v, tc.rev); got != tc.want {
			t.Errorf("welcomeVersion(%q, %q) = %q; want %q", tc.v, tc.rev, got, tc.want)
		}
	}
}
