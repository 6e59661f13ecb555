package proc

import (
	"bytes"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

func TestTailBuffer(t *testing.T) {
	tests := []struct {
		name     string
		max      int
		writes   []string
		want     string
		wantText string
	}{
		{"nothing written", 8, nil, "", ""},
		{"fits", 8, []string{"abc", "de"}, "abcde", "abcde"},
		{"one big write", 4, []string{"abcdefgh"}, "efgh", "efgh"},
		{"many small writes", 4, []string{"ab", "cd", "ef", "gh", "i"}, "fghi", "fghi"},
		{"a write of exactly max", 3, []string{"xy", "abc"}, "abc", "abc"},
		{"cut first line dropped", 14, []string{"line one\nline two\nline three\n"}, "wo\nline three\n", "line three"},
		{"only line kept although cut", 6, []string{"a very long line"}, "g line", "g line"},
		{"controls stripped", 32, []string{"\x1b[31mfatal\x1b[0m: no\n"}, "\x1b[31mfatal\x1b[0m: no\n", "fatal: no"},
		{"zero max keeps nothing", 0, []string{"abc"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := &TailBuffer{Max: tt.max}
			total := 0
			for _, w := range tt.writes {
				if n, err := tb.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
				}
				total += len(w)
			}
			if got := string(tb.Bytes()); got != tt.want {
				t.Errorf("Bytes() = %q; want %q", got, tt.want)
			}
			if got := tb.Text(); got != tt.wantText {
				t.Errorf("Text() = %q; want %q", got, tt.wantText)
			}
			if got := tb.Total(); got != int64(total) {
				t.Errorf("Total() = %d; want %d", got, total)
			}
		})
	}
}

func TestTailBufferMatchesWholeStream(t *testing.T) {
	// Writes of every size against the end of the whole stream.
	var all bytes.Buffer
	tb := &TailBuffer{Max: 100}
	for i := 0; i < 400; i++ {
		w := bytes.Repeat([]byte{byte('a' + i%26)}, i%137)
		all.Write(w)
		tb.Write(w)
		want := all.Bytes()[max(0, all.Len()-100):]
		if got := tb.Bytes(); !bytes.Equal(got, want) {
			t.Fatalf("after write %d: Bytes() = %q; want %q", i, got, want)
		}
	}
}

func TestTailBufferConcurrentWrites(t *testing.T) {
	tb := &TailBuffer{Max: 64}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 1000 {
				tb.Write([]byte("0123456789"))
			}
		})
	}
	wg.Wait()
	if got := tb.Total(); got != 40000 {
		t.Errorf("Total() = %d; want 40000", got)
	}
	if got := tb.Bytes(); len(got) != 64 || !strings.HasSuffix(string(got), "0123456789") {
		t.Errorf("Bytes() = %q; want the last 64 bytes of the stream", got)
	}
}

func TestExitDescription(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   string
	}{
		{"success", "exit 0", "exit status 0"},
		{"failure", "exit 3", "exit status 3"},
		{"signal", "kill -TERM $$", "killed by signal terminated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", tt.script)
			_ = cmd.Run()
			if got := ExitDescription(cmd.ProcessState); got != tt.want {
				t.Errorf("ExitDescription = %q; want %q", got, tt.want)
			}
		})
	}
	if got := ExitDescription(nil); got != "" {
		t.Errorf("ExitDescription(nil) = %q; want \"\"", got)
	}
}
