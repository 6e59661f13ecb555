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
