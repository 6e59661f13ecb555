package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSeatbeltProfileResolvesSymlinksAndDeniesLast(t *testing.T) {
	resolved := t.TempDir()
	link := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink(resolved, link); err != nil {
		t.Fatal(err)
	}
	realResolved, _ := filepath.EvalSymlinks(resolved)
	p := seatbeltProfile([]string{link}, []string{filepath.Join(link, ".myclaw.toml")}, nil, false)
	for _, want := range []string{
		`(subpath "` + link + `")`,
		`(subpath "` + realResolved + `")`,
		`(subpath "` + filepath.Join(realResolved, ".myclaw.toml") + `")`,
		"(deny network-outbound)",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("profile lacks %s:\n%s", want, p)
		}
	}
	if strings.LastIndex(p, "(allow file-write*") > strings.LastIndex(p, "(deny file-write*") {
		t.Errorf("the protected paths must be denied after the writable ones are allowed:\n%s", p)
	}
	if strings.Contains(seatbeltProfile([]string{resolved}, nil, nil, true), "network") {
		t.Error("a call approved with network must not deny it")
	}
}

// TestSeatbeltHidesCredentialStores: the hidden paths are denied to
// reads (and writes), after everything is allowed.
func TestSeatbeltHidesCredentialStores(t *testing.T) {
	home := t.TempDir()
	p := seatbeltProfile([]string{t.TempDir()}, nil, []string{filepath.Join(home, ".aws")}, false)
	deny := strings.Index(p, "(deny file-read* file-write*\n  (subpath \""+filepath.Join(home, ".aws")+"\")")
	if deny < 0 || deny < strings.Index(p, "(allow default)") {
		t.Errorf("the profile does not deny reading the hidden path:\n%s", p)
	}
}

func TestSeatbeltStringQuotes(t *testing.T) {
	if got := sbString(`/a"b\c`); got != `"/a\"b\\c"` {
		t.Errorf("sbString = %s", got)
	}
}
