package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/internal/apptest"
)

// planScript tries a write and a shell write, then submits a plan.
func planScript(first string, round int) (string, []apptest.Call) {
	switch round {
	case 0:
		return "", []apptest.Call{{Name: "fs_write", Args: `{"path":"notes/hello.txt","content":"hello\n"}`},
			{Name: "shell_run", Args: `{"command":"echo hi > made.txt"}`}}
	case 1:
		return "", []apptest.Call{{Name: "plan_submit", Args: `{"rationale":"A note is all it takes.","steps":[{"title":"Write the note","files":["notes/hello.txt"]}]}`}}
	}
	return "This round must not be asked for.", nil
}

// Headless --plan prints the plan and exits 0 without acting: the write
// and the shell write came to nothing, and --output json has the plan.
func TestHeadlessPlanPrintsThePlanAndActsNot(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (runs the binary): left out of the quick -short run")
	}
	e := newEnv(t, planScript)
	out, errOut, code := e.myclaw(nil, "-p", "plan the note", "--model", "test-model", "--plan")
	if code != 0 || !strings.Contains(out, "Plan: A note is all it takes.") || !strings.Contains(out, "1. Write the note\n   files: notes/hello.txt") {
		t.Fatalf("--plan: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, f := range []string{"notes", "made.txt"} {
		if _, err := os.Stat(filepath.Join(e.WS, f)); err == nil {
			t.Errorf("--plan left %s in the workspace", f)
		}
	}
	e.Srv.Mu.Lock()
	n := len(e.Srv.Bodies)
	e.Srv.Mu.Unlock()
	if n != 2 {
		t.Errorf("%d requests; want the task to end with the plan (2)", n)
	}

	out, _, code = e.myclaw(nil, "-p", "plan the note", "--model", "test-model", "--plan", "--output", "json")
	var plan struct {
		Rationale string `json:"rationale"`
		Steps     []struct {
			Title string   `json:"title"`
			Files []string `json:"files"`
		} `json:"steps"`
	}
	found := false
	for l := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q is not JSON: %v", l, err)
		}
		if m["type"] == "plan" && m["steps"] != nil {
			found = json.Unmarshal([]byte(l), &plan) == nil
		}
	}
	if code != 0 || !found || plan.Rationale != "A note is all it takes." || len(plan.Steps) != 1 || plan.Steps[0].Files[0] != "notes/hello.txt" {
		t.Fatalf("--plan --output json: code %d, plan %+v, output:\n%s", code, plan, out)
	}
}

// A model that ends without a plan fails the task: CI sees no plan.
func TestHeadlessPlanWithoutAPlanFails(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (runs the binary): left out of the quick -short run")
	}
	e := newEnv(t, apptest.WriteNote)
	_, errOut, code := e.myclaw(nil, "-p", "say hello", "--model", "test-model", "--plan")
	if code != 1 || !strings.Contains(errOut, "without submitting a plan") {
		t.Fatalf("code %d, stderr %q; want exit 1 naming the missing plan", code, errOut)
	}
}
