package builtin

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"
	"unicode/utf16"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
)

// grepWorker is what one searching goroutine keeps from file to file: its
// buffer, and the folder of its last file, open as an os.Root. Files of a
// folder come one after another, so opening the next one is a single
// openat below that folder instead of one per component of its path.
type grepWorker struct {
	ws    *Workspace
	buf   []byte
	dir   string
	root  *os.Root // nil, or dir opened below ws.root
	whole bool     // open by the whole path, from ws.root
}

// open opens the regular file at the workspace path p, without blocking
// on a FIFO that replaced it (as fsOpenRegular does).
func (w *grepWorker) open(p string) (*os.File, fs.FileInfo, bool) {
	if w.whole {
		f, fi, e := fsOpenRegular(w.ws, p, nil)
		return f, fi, e == nil
	}
	root := w.ws.root
	dir, name := path.Split(p)
	if dir != "" {
		if w.root == nil || w.dir != dir {
			w.close()
			r, err := w.ws.root.OpenRoot(dir)
			if err != nil {
				return nil, nil, false
			}
			w.root, w.dir = r, dir
		}
		root = w.root
	}
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, false
	}
	return f, fi, true
}

func (w *grepWorker) close() {
	if w.root != nil {
		w.root.Close()
		w.root = nil
	}
}

// file searches one file. Files that cannot be read as regular files
// (gone, replaced by a FIFO, unreadable) are passed over silently, like
// grep -s; so is the file being read when ctx ends, which the caller
// sees. Like ripgrep, a NUL byte tells binary data: a file with one in its
// first fsSniffBytes is binary and read no further; one with a NUL later
// is searched up to the line that holds it, and the rest is only looked
// at for a match, to say that the file matches there.
func (s *grepRun) file(ctx context.Context, p string, w *grepWorker) grepFile {
	f, fi, ok := w.open(p)
	if !ok {
		return grepFile{}
	}
	defer f.Close()
	size := fi.Size()
	if size > grepMaxFileBytes {
		return grepFile{skipped: grepSkipLarge}
	}
	if int64(cap(w.buf)) < size {
		w.buf = make([]byte, size)
	}
	data := w.buf[:size]
	r := fsCtxReader{ctx, f}
	head := min(len(data), fsSniffBytes)
	n, err := io.ReadFull(r, data[:head])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return grepFile{}
	}
	enc := textEncodingOf(data[:n])
	if enc.utf16 == nil && bytes.IndexByte(data[:n], 0) >= 0 {
		return grepFile{skipped: grepSkipBinary}
	}
	if n == head {
		m, err := io.ReadFull(r, data[head:])
		if err != nil && err != io.ErrUnexpectedEOF {
			return grepFile{}
		}
		n += m // less than size if the file shrank: search what is there
	}
	text := data[enc.bom:n]
	if enc.utf16 != nil {
		if text, err = enc.utf16.NewDecoder().Bytes(text); err != nil {
			return grepFile{}
		}
	}
	g := grepFile{read: true}
	if nul := bytes.IndexByte(text, 0); nul >= 0 {
		if nul < fsSniffBytes {
			return grepFile{skipped: grepSkipBinary}
		}
		cut := bytes.LastIndexByte(text[:nul], '\n') + 1
		s.m.each(text[cut:], func(int, []byte) bool {
			g.tailLine = bytes.Count(text[:cut], []byte{'\n'}) + 1
			g.tailAt = enc.offset(text, nul)
			return false
		})
		text = text[:cut]
	}
	keep := s.offset + s.max
	s.m.each(text, func(no int, line []byte) bool {
		if len(g.lines) < keep {
			at := 0
			if len(line) > grepMaxLineBytes {
				if loc := s.m.re.FindIndex(line); loc != nil {
					at = loc[0]
				}
			}
			g.lines = append(g.lines, grepLine{no, grepCut(line, at)})
		}
		g.count++
		return g.count < grepMaxCount
	})
	return g
}

// textEncoding is how a file's text is stored, told by its byte order
// mark as ripgrep tells it: UTF-16 is transcoded to UTF-8; anything else is
// read as bytes, UTF-8 or not (Latin-1, say), after a UTF-8 mark.
// grep_search and fs_read read files alike.
type textEncoding struct {
	bom   int               // length of the byte order mark
	utf16 encoding.Encoding // nil, or the UTF-16 to transcode from
	name  string            // "UTF-16LE" or "UTF-16BE" for UTF-16
}

func textEncodingOf(head []byte) textEncoding {
	switch {
	case bytes.HasPrefix(head, []byte{0xef, 0xbb, 0xbf}):
		return textEncoding{bom: 3}
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}):
		return textEncoding{2, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "UTF-16LE"}
	case bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		return textEncoding{2, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "UTF-16BE"}
	}
	return textEncoding{}
}

// offset returns where in the file the byte at i of its text lies. A
// transcoded character took 2 bytes of UTF-16, or 4 past U+FFFF (a bad
// code unit, transcoded as U+FFFD, also took 2).
func (e textEncoding) offset(text []byte, i int) int64 {
	if e.utf16 == nil {
		return int64(e.bom + i)
	}
	at := int64(e.bom)
	for _, r := range string(text[:i]) {
		at += int64(utf16.RuneLen(r)) * 2
	}
	return at
}
