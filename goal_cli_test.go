package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/internal/apptest"
)

// goalScript writes calc.txt wrong in the first iteration and right (with
// extra.txt) in the second; with never set, it never writes it right.
func goalScript(never bool) apptest.Script {
	return func(first string, round int) (string, []scriptCall) {
		if !strings.HasPrefix(first, "Goal: ") {
			return "Hello there.", nil
		}
		switch round {
		case 0:
			return "", []scriptCall{{Name: "fs_write", Args: `{"path":"calc.txt","content":"wrong\n"}`}}
		case 2:
			if never {
				return "", []scriptCall{{Name: "fs_write", Args: `{"path":"calc.txt","content":"still wrong\n"}`}}
			}
			return "", []scriptCall{{Name: "fs_write", Args: `{"path":"calc.txt","content":"right\n"}`}, {Name: "fs_write", Args: `{"path":"extra.txt","content":"x\n"}`}}
		case 4:
			return "", []scriptCall{{Name: "fs_write", Args: `{"path":"calc.txt","content":"wrong again\n"}`}}
		}
		return "I changed it.", nil
	}
}

// Headless --goal: iteration 1 fails the check, iteration 2 passes, exit
// 0 with the goal events; one `myclaw undo` takes iteration 2 back whole.
func TestHeadlessGoalPassesAndUndoTakesBackAnIteration(t *testing.T) {
	e := newEnv(t, goalScript(false))
	out, errOut, code := e.myclaw(nil, "--goal", "make calc right", "--check", "grep -q right calc.txt", "--model", "test-model", "--autonomy", "auto-edit", "--output", "json")
	if code != 0 {
		t.Fatalf("code %d, stderr %q, stdout %q", code, errOut, out)
	}
	var iterations []map[string]any
	var result map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		switch m["type"] {
		case "goal_iteration":
			iterations = append(iterations, m)
		case "goal_result":
			result = m
		}
	}
	if len(iterations) != 2 || iterations[0]["passed"] != false || iterations[1]["passed"] != true {
		t.Fatalf("goal_iteration events %v", iterations)
	}
	if result == nil || result["passed"] != true || result["reason"] != "passed" {
		t.Fatalf("goal_result %v", result)
	}
	hist, _, _ := e.myclaw(nil, "history")
	if !strings.Contains(hist, "[goal iteration 1] Create calc.txt") || !strings.Contains(hist, "[goal iteration 2] Create extra.txt") {
		t.Fatalf("history does not name the iterations:\n%s", hist)
	}
	out, _, code = e.myclaw(nil, "undo")
	if code != 0 {
		t.Fatalf("undo: code %d, %q", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(e.WS, "calc.txt")); string(b) != "wrong\n" {
		t.Fatalf("after one undo calc.txt holds %q; want iteration 1's\n%s", b, out)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "extra.txt")); err == nil {
		t.Fatalf("one undo left extra.txt:\n%s", out)
	}
}

// A run that never passes stops at --max-iterations with exit 1 and names
// its best state.
func TestHeadlessGoalBudgetExitsOne(t *testing.T) {
	e := newEnv(t, goalScript(true))
	_, errOut, code := e.myclaw(nil, "--goal", "make calc right", "--check", "grep -q right calc.txt", "--max-iterations", "2", "--model", "test-model", "--autonomy", "auto-edit")
	if code != 1 {
		t.Fatalf("code %d; want 1\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "goal: iteration 2: the check failed (exit 1, 1 failure)") ||
		!strings.Contains(errOut, "goal: The goal is not met after 2 iterations (the limit). Best: iteration 2, 1 failure (exit 1); the workspace is as it left it.") {
		t.Fatalf("stderr:\n%s", errOut)
	}
}

func TestGoalUsageErrors(t *testing.T) {
	e := newEnv(t, writeNote)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--goal", "x"}, "--goal needs --check"},
		{[]string{"--check", "true"}, "--check needs --goal"},
		{[]string{"--goal", "x", "--check", "true", "-p", "y"}, "use -p or --goal"},
		{[]string{"--max-iterations", "3", "-p", "y"}, "go with --goal"},
		{[]string{"--goal", "x", "--check", "true", "--max-iterations", "-1"}, "must be a positive number"},
		{[]string{"--goal", "x", "--check", "true", "--max-iterations", "0"}, "invalid value \"0\" for flag -max-iterations: must be a positive number"},
		{[]string{"--goal", "x", "--check", "true", "--token-budget", "0"}, "-token-budget: must be a positive number"},
		{[]string{"--goal", "x", "--check", "true", "--time-budget", "0s"}, "-time-budget: must be a positive duration"},
		{[]string{"--goal", "x", "--check", "true", "--time-budget", "soon"}, "time-budget"},
	} {
		_, errOut, code := e.myclaw(nil, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: code %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}
