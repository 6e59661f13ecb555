package budget

import (
	"testing"

	"myclaw/approval"
)

// TestBudgetSmoke replays a short everyday workload (30 calls) through the
// real binary and decides the dangerous set at every level. It fails when a
// dangerous call would run without a person under ask or auto-edit, or
// would run unconfined under full (full runs everything without asking by
// definition; what it owes is the sandbox). The figures are logged (-v).
func TestBudgetSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (drives thirty calls through the whole agent): left out of the quick -short run")
	}
	figs := measure(t, 30)
	t.Log("\n" + Table(figs) + "\n" + Details(figs))
	for _, f := range figs {
		switch approval.Level(f.Level) {
		case approval.Full:
			if len(f.Unconfined) > 0 {
				t.Errorf("full would run dangerous calls unconfined: %q", f.Unconfined)
			}
		default:
			if f.Dangerous > 0 {
				t.Errorf("%s would run %d dangerous calls without a person:\n%s", f.Level, f.Dangerous, Details([]Figures{f}))
			}
		}
	}
}
