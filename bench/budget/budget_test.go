//go:build budget

package budget

import (
	"os"
	"testing"
)

// TestBudget is the whole measurement: 216 routine calls per level through
// the real binary, and the dangerous set. Run it with
//
//	go test -tags budget -run TestBudget -v ./bench/budget/
//
// BUDGET_OUT=FILE also writes the table there.
func TestBudget(t *testing.T) {
	figs := measure(t, 216)
	table := Table(figs)
	t.Log("\n" + table + "\n" + Details(figs))
	if out := os.Getenv("BUDGET_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(table+"\n"+Details(figs)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
