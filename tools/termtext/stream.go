package termtext

import (
	"unicode/utf8"
)

// maxHeld bounds what a Stream keeps back: a control string that never
// ends is let through (the sanitiser then drops its introducer) rather
// than hiding the rest of the text.
const maxHeld = 256

// Stream sanitises text that arrives in pieces, such as a model's answer
// token by token. A model sends an escape sequence as several tokens:
// sanitising each piece on its own would drop the introducer and show the
// rest ("[31m") as text. So a piece that ends inside a sequence, inside a
// character or after a '\r' keeps that end back until the next piece
// completes it; what comes out, Flush included, is what the sanitiser
// gives for the whole text at once.
//
// The zero Stream applies Screen; set Clean to Strip for text that is not
// drawn on a screen. A Stream is not safe for concurrent use.
type Stream struct {
	Clean func(string) string
	held  string
}

func (s *Stream) clean(t string) string {
	if s.Clean == nil {
		return Screen(t)
	}
	return s.Clean(t)
}

// Write returns the sanitised text of piece that is ready to show.
func (s *Stream) Write(piece string) string {
	text := s.held + piece
	i := heldFrom(text)
	text, s.held = text[:i], text[i:]
	return s.clean(text)
}

// Flush returns what is held back, at the end of the text.
func (s *Stream) Flush() string {
	text := s.held
	s.held = ""
	return s.clean(text)
}

// heldFrom returns where the unfinished end of s starts (a sequence the
// next piece may complete, a character cut in two, a '\r' that may be half
// of "\r\n", an invisible character whose neighbour decides how it shows),
// or len(s) when s ends cleanly. It reads at most maxHeld bytes before the
// end: a sequence that began earlier is let through anyway.
func heldFrom(s string) int {
	i := max(len(s)-maxHeld, 0)
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i++ // the window starts inside a character
	}
	// A sequence right before a held one is held too, and so are the
	// sequences right before it.
	chain, chainAt := -1, -1
	hold := func(at int) int {
		if at == chainAt {
			return chain
		}
		return at
	}
	// Where the last character and the current run of tags start.
	prev, tags := -1, -1
	emoji := -1 // where the current run of pictographs and joiners starts
	bad := -1   // where the current run of invalid bytes starts (one U+FFFD)
	for i < len(s) {
		c := s[i]
		end, done, chained := i+1, true, false
		var r rune
		switch {
		case c == 0x1b || isC1Lead(s, i):
			q := scanSeq(s, i)
			// Where a sequence ends can depend on the byte after it (a
			// control string cut short by an ESC, a lone ESC): cut there,
			// the sequence reads differently, so it is held with what
			// follows it.
			end, done, chained = q.end, !q.open, true
		case c == '\r':
			done = i+1 < len(s)
		case c >= utf8.RuneSelf:
			var n int
			r, n = utf8.DecodeRuneInString(s[i:])
			end, done = i+n, utf8.FullRuneInString(s[i:])
			if done && r == utf8.RuneError && n == 1 {
				if bad < 0 {
					bad = hold(i)
				}
				if end == len(s) {
					return hold(bad) // the next piece may go on with the run
				}
				prev, i = bad, end // the run shows as one character
				continue
			}
		}
		tag := IsTag(r)
		if tag && tags < 0 {
			tags = hold(i)
		}
		// How a joiner shows depends on both its neighbours, and a run of
		// tags becomes one note: hold them until they end.
		switch {
		case !done && c >= utf8.RuneSelf && bad >= 0:
			return hold(bad)
		case !done && c >= utf8.RuneSelf && tags >= 0:
			return hold(tags) // a character cut in two may continue the run
		case !done && c >= utf8.RuneSelf && emoji >= 0:
			return hold(emoji)
		case done && end == len(s) && r == '\u200d' && prev >= 0 && emoji < 0:
			return hold(prev)
		case done && end == len(s) && (r == '\u200d' || pictograph(r)):
			if emoji >= 0 {
				return hold(emoji)
			}
			return hold(i)
		case done && end == len(s) && tag:
			return hold(tags)
		}
		if !tag {
			tags = -1
		}
		if done {
			bad = -1
		}
		switch {
		case r == '\u200d' || pictograph(r):
			if emoji < 0 {
				emoji = hold(i)
			}
		default:
			emoji = -1
		}
		start := i
		if i == chainAt {
			start = chain
		}
		if !done {
			return hold(start)
		}
		chain, chainAt = -1, -1
		if chained {
			chain, chainAt = start, end
		}
		prev = start
		i = end
	}
	return len(s)
}
