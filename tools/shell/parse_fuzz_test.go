package shell

import (
	"testing"

	"myclaw/tools"
)

// FuzzParse: any line either parses or errors, without panicking, and a
// parse keeps one rules' view per command and a risk.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"go test ./...", "rm -rf build", `awk 'BEGIN{system("touch X")}'`, "bash -c 'bash -c \"ls\"'",
		"find . -{delete,print}", "timeout --signal KILL 5 rm -rf x", ":(){ :|:& };:", "echo ${!x} $((a[$(id)]))",
		"git -C x reset --hard", "sudo -u a env B=1 xargs -n1 rm", "cat <<EOF\nx\nEOF", "echo {1..100000}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		cl, err := Parse(src, "/ws")
		if err != nil {
			return
		}
		if len(cl.Calls) != len(cl.Commands) {
			t.Fatalf("%q: %d calls for %d commands", src, len(cl.Calls), len(cl.Commands))
		}
		switch cl.Risk {
		case tools.RiskLow, tools.RiskMedium, tools.RiskHigh:
		default:
			t.Fatalf("%q: risk %q", src, cl.Risk)
		}
		if cl.Risk != tools.RiskLow && cl.RiskWhy == "" {
			t.Fatalf("%q: risk %s without a reason", src, cl.Risk)
		}
	})
}
