package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"myclaw/approval"
)

// A merge in conflict names its files to the pane; once the person has
// resolved one in the workspace, Repropose merges again against the
// workspace as it is now, and the pane is asked about the new merge,
// which then applies. Nothing is applied before that.
func TestSubagentMergeProposedAgainAfterResolving(t *testing.T) {
	var h *harness
	var layers []*fakeLayer
	o := editOptions(t, &h, &layers)
	h, _ = subHarness(t, approval.Ask, editRoute, o)
	var merges []approval.Request
	approver := approverFunc(func(_ context.Context, req approval.Request) (approval.Decision, error) {
		if !req.Previewed {
			// The sub-agent's own write: meanwhile the user writes the
			// same file, so the merge will conflict.
			if err := os.WriteFile(filepath.Join(h.ws, "new.txt"), []byte("the user's\n"), 0o644); err != nil {
				t.Error(err)
			}
			return approval.Decision{Choice: approval.ApproveOnce}, nil
		}
		merges = append(merges, req)
		if len(merges) == 1 {
			// The person resolves it: the workspace's file takes the
			// agent's lines.
			if err := os.WriteFile(filepath.Join(h.ws, "new.txt"), []byte("from the agent\n"), 0o644); err != nil {
				t.Error(err)
			}
			return approval.Decision{Choice: approval.Repropose}, nil
		}
		return approval.Decision{Choice: approval.ApproveOnce}, nil
	})
	if err := h.run(context.Background(), "go", approver); err != nil {
		t.Fatal(err)
	}
	if len(merges) != 2 {
		t.Fatalf("the merge was asked about %d times; want twice (in conflict, then resolved)", len(merges))
	}
	// The layer's summary words the conflicts (tools/layer's tests hold
	// its wording); the request names them.
	if !slices.Equal(merges[0].Conflicts, []string{"new.txt"}) {
		t.Errorf("the first merge names conflicts %v, summary %q; want new.txt", merges[0].Conflicts, merges[0].Summary)
	}
	if len(merges[1].Conflicts) != 0 {
		t.Errorf("the merge proposed again still has conflicts %v (%q)", merges[1].Conflicts, merges[1].Summary)
	}
	res := h.ofType("tool_result")
	if len(res) != 1 || res[0].(ToolResultEvent).Status != StatusOK {
		t.Fatalf("results %+v; want the merge applied", res)
	}
	if b, err := os.ReadFile(filepath.Join(h.ws, "new.txt")); err != nil || string(b) != "from the agent\n" {
		t.Errorf("after the merge new.txt = %q, %v", b, err)
	}
	if len(layers) != 1 || !layers[0].wasDiscarded() {
		t.Error("the layer was not dropped after the merge")
	}
}

// Repropose on a request without conflicts is no decision: the call is
// denied, nothing applies.
func TestSubagentReproposeWithoutConflictIsDenied(t *testing.T) {
	var h *harness
	var layers []*fakeLayer
	o := editOptions(t, &h, &layers)
	h, _ = subHarness(t, approval.Ask, editRoute, o)
	approver := approverFunc(func(_ context.Context, req approval.Request) (approval.Decision, error) {
		if req.Previewed {
			return approval.Decision{Choice: approval.Repropose}, nil
		}
		return approval.Decision{Choice: approval.ApproveOnce}, nil
	})
	if err := h.run(context.Background(), "go", approver); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("the merge applied on a repropose without conflicts (%v)", err)
	}
	res := h.ofType("tool_result")
	if len(res) != 1 || res[0].(ToolResultEvent).Status != StatusDenied {
		t.Errorf("results %+v; want the agent call denied", res)
	}
}
