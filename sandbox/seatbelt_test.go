package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSeatbeltProfileResolvesSymlinksAndDeniesLast(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	realResolved, _ := filepath.EvalSymlinks(real)
	p := seatbeltProfile([]string{link}, []string{filepath.Join(link, ".myclaw.toml")}, false)
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
	if strings.Contains(seatbeltProfile([]string{real}, nil, true), "network") {
		t.Error("a call approved with network must not deny it")
	}
}

func TestSeatbeltStringQuotes(t *testing.T) {
	if got := sbString(`/a"b\c`); got != `"/a\"b\\c"` {
		t.Errorf("sbString = %s", got)
	}
}
