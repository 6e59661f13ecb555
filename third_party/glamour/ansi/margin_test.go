package ansi

import (
	"bytes"
	"io"
	"math/rand"
	"testing"

	"github.com/muesli/reflow/indent"
	"github.com/muesli/reflow/padding"
)

// reflowMargin is upstream's margin writer: reflow's indent writer over
// its padding writer.
func reflowMargin(w io.Writer, ind, width uint, indentS, padS string) io.Writer {
	pw := padding.NewWriterPipe(w, width, func(io.Writer) { _, _ = io.WriteString(w, padS) })
	return indent.NewWriterPipe(pw, ind, func(io.Writer) { _, _ = io.WriteString(w, indentS) })
}

// TestMarginWriterWritesWhatReflowWrites writes random text, with colour
// sequences, resets, other escapes, line breaks, wide and invalid
// characters, in random pieces to both writers.
func TestMarginWriterWritesWhatReflowWrites(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"word", " ", "  ", "\n", "\n\n", "é", "漢字", "\t", "\x1b[0m", "\x1b[38;5;252m",
		"\x1b[1;38;5;111m", "\x1b[m", "\x1b[3", "8;5;1m", "\x1b]8;;http://x\x1b\\", "\x1b@", "@", "[0m",
		"\xff", "a\x1b[0mb", "\x1b[38;5;252m \x1b[0m", "x-y", "[", "m", "\x1b", "A"}
	for round := range 3000 {
		var src bytes.Buffer
		for range rng.Intn(40) {
			src.WriteString(pieces[rng.Intn(len(pieces))])
		}
		ind, width := uint(rng.Intn(4)), uint(rng.Intn(30))
		indentS, padS := []string{" ", "\x1b[38;5;252m \x1b[0m", "", "│"}[rng.Intn(4)], []string{" ", "\x1b[38;5;252m \x1b[0m"}[rng.Intn(2)]
		var want, got bytes.Buffer
		rw := reflowMargin(&want, ind, width, indentS, padS)
		mw := newMarginWriter(&got, ind, width, func() string { return indentS }, func() string { return padS })
		b := src.Bytes()
		for len(b) > 0 {
			n := min(len(b), 1+rng.Intn(12))
			_, _ = rw.Write(b[:n])
			_, _ = mw.Write(b[:n])
			b = b[n:]
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("round %d, indent %d, width %d, input %q:\n got %q\nwant %q", round, ind, width, src.Bytes(), got.Bytes(), want.Bytes())
		}
	}
}

// TestIndentWriterWritesWhatReflowWrites compares the indent writer code
// blocks use with reflow's, on random input in random pieces.
func TestIndentWriterWritesWhatReflowWrites(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	pieces := []string{"word", " ", "  ", "\n", "\n\n", "é", "漢字", "\t", "\x1b[0m", "\x1b[38;5;252m",
		"\x1b[1;38;5;111m", "\x1b[m", "\x1b[3", "8;5;1m", "\x1b]8;;http://x\x1b\\", "\x1b@", "@", "[0m",
		"\xff", "a\x1b[0mb", "\x1b[38;5;252m \x1b[0m", "x-y", "[", "m", "\x1b", "A"}
	for round := range 3000 {
		var src bytes.Buffer
		for range rng.Intn(40) {
			src.WriteString(pieces[rng.Intn(len(pieces))])
		}
		ind := uint(rng.Intn(4))
		indentS := []string{" ", "\x1b[38;5;252m \x1b[0m", "", "│"}[rng.Intn(4)]
		var want, got bytes.Buffer
		rw := indent.NewWriterPipe(&want, ind, func(io.Writer) { _, _ = io.WriteString(&want, indentS) })
		iw := newIndentWriter(&got, ind, func() string { return indentS })
		b := src.Bytes()
		for len(b) > 0 {
			n := min(len(b), 1+rng.Intn(12))
			_, _ = rw.Write(b[:n])
			_, _ = iw.Write(b[:n])
			b = b[n:]
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("round %d, indent %d, input %q:\n got %q\nwant %q", round, ind, src.Bytes(), got.Bytes(), want.Bytes())
		}
	}
}
