package layer

import (
	"bytes"
	"slices"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// hunk replaces base lines [start, end) with lines.
type hunk struct {
	start, end int
	lines      []string
}

// splitLines splits text after each newline; a last line without one
// is a line too.
func splitLines(text []byte) []string {
	var out []string
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, string(text))
			break
		}
		out = append(out, string(text[:i+1]))
		text = text[i+1:]
	}
	return out
}

func hunks(base, other []string) []hunk {
	var out []hunk
	for _, d := range lcs.DiffLines(base, other) {
		out = append(out, hunk{start: d.Start, end: d.End, lines: other[d.ReplStart:d.ReplEnd]})
	}
	return out
}

// merged is the outcome of a three-way merge of text.
type merged struct {
	text []byte
	// conflicts counts the regions both sides changed differently; text
	// then holds them between conflict markers.
	conflicts int
	// at are the base lines (1-based) where each conflict starts.
	at []int
}

// merge3 merges the changes from base to ours and from base to theirs,
// line by line. Changes to different lines merge; changes that overlap,
// or touch at the same place, are a conflict unless both sides made the
// same one.
func merge3(base, ours, theirs []byte) merged {
	b := splitLines(base)
	o, t := hunks(b, splitLines(ours)), hunks(b, splitLines(theirs))
	var out bytes.Buffer
	var m merged
	pos, i, j := 0, 0, 0
	for i < len(o) || j < len(t) {
		// The next region starts at the first hunk of either side and
		// takes in every hunk of both that overlaps or touches it.
		start := 0
		switch {
		case j >= len(t) || i < len(o) && o[i].start <= t[j].start:
			start = o[i].start
		default:
			start = t[j].start
		}
		end := start
		oi, tj := i, j
		for {
			grew := false
			for i < len(o) && (o[i].start < end || o[i].start == start || o[i].start == end && end == start) {
				end = max(end, o[i].end)
				i++
				grew = true
			}
			for j < len(t) && (t[j].start < end || t[j].start == start || t[j].start == end && end == start) {
				end = max(end, t[j].end)
				j++
				grew = true
			}
			if !grew {
				break
			}
		}
		for _, l := range b[pos:start] {
			out.WriteString(l)
		}
		ov, tv := apply(b, start, end, o[oi:i]), apply(b, start, end, t[tj:j])
		switch {
		case i == oi:
			writeAll(&out, tv)
		case j == tj:
			writeAll(&out, ov)
		case slices.Equal(ov, tv):
			writeAll(&out, ov)
		default:
			m.conflicts++
			m.at = append(m.at, start+1)
			out.WriteString("<<<<<<< edit agent\n")
			writeAll(&out, ov)
			endLine(&out)
			out.WriteString("||||||| when the agent started\n")
			writeAll(&out, b[start:end])
			endLine(&out)
			out.WriteString("=======\n")
			writeAll(&out, tv)
			endLine(&out)
			out.WriteString(">>>>>>> workspace\n")
		}
		pos = end
	}
	for _, l := range b[pos:] {
		out.WriteString(l)
	}
	m.text = out.Bytes()
	return m
}

// apply is base lines [start, end) with one side's hunks in that range
// applied.
func apply(b []string, start, end int, hs []hunk) []string {
	var out []string
	pos := start
	for _, h := range hs {
		out = append(out, b[pos:h.start]...)
		out = append(out, h.lines...)
		pos = h.end
	}
	return append(out, b[pos:end]...)
}

func writeAll(w *bytes.Buffer, lines []string) {
	for _, l := range lines {
		w.WriteString(l)
	}
}

// endLine ends a last line without a newline before a marker.
func endLine(w *bytes.Buffer) {
	if w.Len() > 0 && w.Bytes()[w.Len()-1] != '\n' {
		w.WriteByte('\n')
	}
}
