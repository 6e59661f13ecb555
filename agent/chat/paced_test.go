package chat

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// TestPacedReaderWaitsOutTheGap reads a body a byte at a time on a fake
// clock: the first read does not wait, a read soon after the last waits
// for the rest of the gap, one after a long wait for data does not, and
// every byte comes through.
func TestPacedReaderWaitsOutTheGap(t *testing.T) {
	now := time.Unix(0, 0)
	var slept []time.Duration
	p := newPacedReader(iotest.OneByteReader(strings.NewReader("abcd")), 16*time.Millisecond)
	p.now = func() time.Time { return now }
	p.sleep = func(d time.Duration) { slept = append(slept, d); now = now.Add(d) }
	b := make([]byte, 8)
	read := func(after time.Duration) string {
		now = now.Add(after)
		n, _ := p.Read(b)
		return string(b[:n])
	}
	got := read(0) + read(5*time.Millisecond) + read(40*time.Millisecond) + read(0)
	if got != "abcd" {
		t.Errorf("read %q, want abcd", got)
	}
	want := []time.Duration{11 * time.Millisecond, 16 * time.Millisecond}
	if len(slept) != len(want) || slept[0] != want[0] || slept[1] != want[1] {
		t.Errorf("slept %v, want %v", slept, want)
	}
	if n, err := p.Read(b); n != 0 || !errors.Is(err, io.EOF) {
		t.Errorf("at the end: %d, %v", n, err)
	}
}

// TestPacedReaderDoesNotHoldBackAFastStream reads a body whose reads fill
// the buffer, as from a server answering at full speed: no read waits.
func TestPacedReaderDoesNotHoldBackAFastStream(t *testing.T) {
	now := time.Unix(0, 0)
	slept := 0
	body := strings.Repeat("x", 5*paceBelow)
	p := newPacedReader(strings.NewReader(body), 16*time.Millisecond)
	p.now = func() time.Time { return now }
	p.sleep = func(time.Duration) { slept++ }
	got, err := io.ReadAll(p)
	if err != nil || string(got) != body {
		t.Fatalf("read %d bytes, %v", len(got), err)
	}
	if slept > 1 { // before the end, after the last, partial, read
		t.Errorf("slept %d times", slept)
	}
}
