package history

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestBlobsPutGet(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"text", []byte("hello\n")},
		{"empty", []byte{}},
		{"binary", []byte{0, 1, 2, 0xff, '\n', 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBlobs(filepath.Join(t.TempDir(), "state", "blobs"))
			sum, err := b.Put(tt.data)
			if err != nil {
				t.Fatalf("Put: %v", err)
			}
			h := sha256.Sum256(tt.data)
			if want := hex.EncodeToString(h[:]); sum != want {
				t.Fatalf("Put = %s; want %s", sum, want)
			}
			path := filepath.Join(b.Dir(), sum[:2], sum)
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatalf("blob file: %v", err)
			}
			if perm := fi.Mode().Perm(); perm != 0o600 {
				t.Errorf("blob mode = %v; want 0600", perm)
			}
			di, err := os.Stat(filepath.Dir(path))
			if err != nil {
				t.Fatal(err)
			}
			if perm := di.Mode().Perm(); perm != 0o700 {
				t.Errorf("shard dir mode = %v; want 0700", perm)
			}
			got, err := b.Get(sum)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			if string(got) != string(tt.data) {
				t.Fatalf("Get = %q; want %q", got, tt.data)
			}
			again, err := b.Put(tt.data)
			if err != nil || again != sum {
				t.Fatalf("Put again = %s, %v; want %s", again, err, sum)
			}
			des, err := os.ReadDir(filepath.Dir(path))
			if err != nil {
				t.Fatal(err)
			}
			if len(des) != 1 {
				t.Fatalf("shard holds %d files; want 1 (no temp files left)", len(des))
			}
		})
	}
}

func TestBlobsGetErrors(t *testing.T) {
	b := NewBlobs(t.TempDir())
	sum, err := b.Put([]byte("original"))
	if err != nil {
		t.Fatal(err)
	}
	missing := strings.Repeat("ab", 32)
	tests := []struct {
		name   string
		sum    string
		is     error
		substr string
	}{
		{"empty", "", nil, "not a hex SHA-256"},
		{"short", "abc", nil, "not a hex SHA-256"},
		{"upper case", strings.ToUpper(sum), nil, "not a hex SHA-256"},
		{"path in it", "../" + sum[3:], nil, "not a hex SHA-256"},
		{"missing", missing, fs.ErrNotExist, "blob " + missing + " is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := b.Get(tt.sum)
			if err == nil || !strings.Contains(err.Error(), tt.substr) {
				t.Fatalf("Get(%q) error = %v; want one containing %q", tt.sum, err, tt.substr)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Fatalf("Get(%q) error = %v; want it to wrap %v", tt.sum, err, tt.is)
			}
		})
	}
}

func TestBlobsCorrupt(t *testing.T) {
	b := NewBlobs(t.TempDir())
	data := []byte("what the file held")
	sum, err := b.Put(data)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(b.Dir(), sum[:2], sum)
	if err := os.WriteFile(path, []byte("what the file hel"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(sum); !errors.Is(err, ErrCorruptBlob) || !strings.Contains(err.Error(), sum) {
		t.Fatalf("Get of a corrupt blob: got %v; want ErrCorruptBlob naming %s", err, sum)
	}
	// Storing the content again repairs the blob.
	if _, err := b.Put(data); err != nil {
		t.Fatal(err)
	}
	got, err := b.Get(sum)
	if err != nil || string(got) != string(data) {
		t.Fatalf("Get after repair = %q, %v; want %q", got, err, data)
	}
}

func TestBlobsConcurrentPut(t *testing.T) {
	b := NewBlobs(t.TempDir())
	var wg sync.WaitGroup
	sums := make([]string, 8)
	for i := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			data := []byte("same content")
			if i%2 == 1 {
				data = []byte("other content")
			}
			sum, err := b.Put(data)
			if err != nil {
				t.Error(err)
			}
			sums[i] = sum
		}()
	}
	wg.Wait()
	for i, sum := range sums {
		if sum != sums[i%2] {
			t.Fatalf("sum %d = %s; want %s", i, sum, sums[i%2])
		}
		if _, err := b.Get(sum); err != nil {
			t.Fatalf("Get(%s): %v", sum, err)
		}
	}
}
