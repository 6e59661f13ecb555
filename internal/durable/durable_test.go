package durable

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := WriteFile(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("two"), 0o640); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if err != nil || string(b) != "two" || fi.Mode().Perm() != 0o640 {
		t.Fatalf("got %q (%v), mode %v; want \"two\", 0640", b, err, fi.Mode().Perm())
	}
	// A failed write leaves the old file and no temp file behind.
	if err := WriteFile(filepath.Join(dir, "missing", "x"), []byte("x"), 0o600); err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries; want only state.json", len(entries))
	}
}

func TestLockFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	// tryLock asks for a lock without waiting: Lock itself would block.
	tryLock := func(f *os.File, exclusive bool) bool { return tryLockFile(t, f, exclusive) }
	a, b := open(), open()

	if err := Lock(a, true); err != nil {
		t.Fatal(err)
	}
	if tryLock(b, false) {
		t.Errorf("got a shared lock beside an exclusive one; want it refused")
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	if !tryLock(b, true) {
		t.Errorf("got the exclusive lock refused after Unlock; want it free")
	}

	if err := Lock(a, false); err != nil {
		t.Fatal(err)
	}
	if !tryLock(b, false) {
		t.Errorf("got a second shared lock refused; want shared locks to coexist")
	}
	if tryLock(b, true) {
		t.Errorf("got an exclusive lock beside a shared one; want it refused")
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}

	// The lock leaves the data readable and writable through other opens.
	if err := Lock(a, true); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WriteAt([]byte("data"), 0); err != nil {
		t.Errorf("writing through another open beside the lock: %v", err)
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}

	a.Close()
	if err := Lock(a, true); err == nil || !strings.Contains(err.Error(), "lock "+path) {
		t.Errorf("Lock on a closed file = %v; want an error naming %s", err, path)
	}
}

func TestTryLockFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	a, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := TryLock(a); !ok || err != nil {
		t.Fatalf("free lock: %v, %v", ok, err)
	}
	if ok, err := TryLock(b); ok || err != nil {
		t.Fatalf("held lock: got %v, %v; want false without waiting", ok, err)
	}
	// Closing the holder (as a process's death does) frees it.
	a.Close()
	if ok, err := TryLock(b); !ok || err != nil {
		t.Fatalf("after the holder closed: %v, %v", ok, err)
	}
	b.Close()
}
