package termtext

import (
	"io"
	"unicode/utf8"
)

// Writer writes everything through Visible: a stream for a terminal or a
// script (stdout and stderr of the shell commands) in which no control
// byte from a file name, an error or a model can act. A character split
// between two writes is held until it is complete; Flush writes what is
// held at the end. A Writer is not safe for concurrent use.
type Writer struct {
	w    io.Writer
	tail []byte
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write implements io.Writer; it reports all of p written when the write
// below succeeds.
func (w *Writer) Write(p []byte) (int, error) {
	buf := append(w.tail, p...)
	cut := len(buf)
	// Keep back the start of a character that the next write may finish.
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				cut = i
			}
			break
		}
	}
	w.tail = append([]byte(nil), buf[cut:]...)
	if cut == 0 {
		return len(p), nil
	}
	if _, err := io.WriteString(w.w, Visible(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held back.
func (w *Writer) Flush() error {
	if len(w.tail) == 0 {
		return nil
	}
	t := w.tail
	w.tail = nil
	_, err := io.WriteString(w.w, Visible(string(t)))
	return err
}
