package snapshot

import (
	"context"
	"testing"
)

// BenchmarkCapture30k: a capture of an unchanged tree of 30,000 files in
// folders of 100, and its diff with the one before: the cost every shell
// command pays twice.
func BenchmarkCapture30k(b *testing.B) {
	root := benchTree(b, 30000)
	t := New(Options{Root: root, CacheDir: b.TempDir()})
	defer t.Close()
	prev, err := t.Capture(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := t.Capture(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if d := Diff(prev, s); !d.Empty() {
			b.Fatalf("an unchanged tree changed: %+v", d)
		}
		prev = s
	}
}
