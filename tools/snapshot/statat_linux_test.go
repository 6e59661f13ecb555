package snapshot

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// statAt agrees with os.Lstat on what a capture compares.
func TestStatAtMatchesLstat(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o640)
	os.WriteFile(filepath.Join(dir, "x"), []byte("#!/bin/sh\n"), 0o4755)
	os.Symlink("f", filepath.Join(dir, "l"))
	syscall.Mkfifo(filepath.Join(dir, "p"), 0o600)
	os.Mkdir(filepath.Join(dir, "d"), 0o1750)
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		got, err := statAt(d, e.Name())
		if err != nil {
			t.Fatal(err)
		}
		info, err := os.Lstat(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		st := info.Sys().(*syscall.Stat_t)
		want := File{Size: info.Size(), ModTime: info.ModTime().UnixNano(), Mode: info.Mode(), Ino: st.Ino, Dev: st.Dev, Ctime: st.Ctim.Nano()}
		if got != want {
			t.Errorf("%s: statAt %+v; Lstat %+v", e.Name(), got, want)
		}
	}
}
