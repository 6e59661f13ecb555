package builtin

import "testing"

// A background job of only reading commands is not journaled; anything
// that may write, run other code or reach out is.
func TestReadsOnly(t *testing.T) {
	for line, want := range map[string]bool{
		"sleep 3; echo bye":        true,
		"tail -f log/dev.log":      true,
		"echo hi > out.txt":        false,
		"rm -rf build":             false,
		"npm run dev":              false,
		"sh -c 'echo hi'":          false,
		"find . -name x -delete":   false,
		"sed -i s/a/b/ f":          false,
		"python3 -m http.server":   false,
		"curl https://example.com": false,
		"$CMD":                     false,
		"":                         false,
	} {
		if got := readsOnly(line, "/work"); got != want {
			t.Errorf("readsOnly(%q) = %v; want %v", line, got, want)
		}
	}
}
