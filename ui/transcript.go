package ui

import "slices"

// transcript is the scrollable list of blocks.
//
// A frame only looks at the blocks on screen: when following the bottom it
// walks back from the last block until the screen is full; when scrolled
// up, the view is anchored at (top, off), a block index and a line within
// it, and walks forward. So a frame's cost does not grow with the length
// of the conversation, and blocks that never come on screen are never
// rendered.
type transcript struct {
	blocks []block
	follow bool
	top    int
	off    int
	// unseen is set when output arrives while the view is scrolled up.
	unseen bool
	// warm are the blocks holding rendered lines (evict.go); lo and hi
	// are the blocks the last view showed.
	warm   map[block]struct{}
	lo, hi int
}

func newTranscript() *transcript { return &transcript{follow: true} }

func (t *transcript) add(b ...block) {
	t.blocks = append(t.blocks, b...)
	t.unseen = t.unseen || !t.follow
}

// insertBeforeLast adds blocks just before the last one (the live block
// of a streaming answer). A view anchored in the last block stays on it.
func (t *transcript) insertBeforeLast(bs ...block) {
	n := len(t.blocks)
	if n == 0 {
		t.add(bs...)
		return
	}
	last := t.blocks[n-1]
	t.blocks = append(append(t.blocks[:n-1], bs...), last)
	t.unseen = t.unseen || !t.follow
	if !t.follow && t.top == n-1 {
		t.top += len(bs)
	}
}

// remove drops b if it is present; used for the live tail when its
// answer ends.
func (t *transcript) remove(b block) {
	for i := len(t.blocks) - 1; i >= 0; i-- {
		if t.blocks[i] == b {
			t.blocks = append(t.blocks[:i], t.blocks[i+1:]...)
			if !t.follow && t.top > i {
				t.top--
			} else if !t.follow && t.top == i {
				t.off = 0
			}
			return
		}
	}
}

// replace puts bs where the first of old stands and drops the rest of
// old; bs are added at the end when none of old is present. A view
// anchored in a dropped block moves to what now stands there.
func (t *transcript) replace(old []block, bs ...block) {
	out := make([]block, 0, len(t.blocks)+len(bs))
	top, off := t.top, t.off
	placed := false
	for i, b := range t.blocks {
		if i == t.top {
			top = len(out)
		}
		if !slices.Contains(old, b) {
			out = append(out, b)
			continue
		}
		if i == t.top {
			off = 0
		}
		if !placed {
			out = append(out, bs...)
			placed = true
		}
	}
	if !placed {
		out = append(out, bs...)
	}
	t.blocks = out
	if !t.follow {
		t.top, t.off = min(top, max(len(out)-1, 0)), off
	}
	t.unseen = t.unseen || !t.follow
}

func (t *transcript) clear() {
	t.blocks, t.warm = nil, nil
	t.follow, t.top, t.off, t.unseen = true, 0, 0, false
}

// view returns exactly h lines: the visible part of the transcript, with
// blank lines below when it is shorter than the screen.
func (t *transcript) view(c *common, h int) []string {
	if h <= 0 {
		return nil
	}
	var out []string
	if !t.follow {
		out = t.forward(c, t.top, t.off, h)
		if len(out) < h {
			// The end came into view (the content shrank): show the bottom.
			out = nil
		}
	}
	if out == nil {
		out = t.bottom(c, h)
	}
	for len(out) < h {
		out = append(out, "")
	}
	t.evict(t.lo, t.hi)
	return out
}

// forward collects up to h lines starting at line off of block i.
func (t *transcript) forward(c *common, i, off, h int) []string {
	out := make([]string, 0, h)
	t.lo, t.hi = i, i
	for ; i < len(t.blocks) && len(out) < h; i++ {
		t.hi = i
		ls := t.lines(c, i)
		if off < len(ls) {
			out = append(out, ls[off:min(len(ls), off+h-len(out))]...)
		}
		off = 0
	}
	return out
}

// bottom returns the last h lines (fewer if the transcript is shorter).
func (t *transcript) bottom(c *common, h int) []string {
	var parts [][]string
	n := 0
	t.lo, t.hi = len(t.blocks)-1, len(t.blocks)-1
	for i := len(t.blocks) - 1; i >= 0 && n < h; i-- {
		t.lo = i
		ls := t.lines(c, i)
		if len(ls) > 0 {
			parts = append(parts, ls)
			n += len(ls)
		}
	}
	return bottomLines(parts, n, h)
}

// bottomLines is the last h of the n lines parts hold, parts being gathered
// from the bottom up (the last part first).
func bottomLines(parts [][]string, n, h int) []string {
	out := make([]string, 0, min(n, h))
	skip := max(n-h, 0)
	for i := len(parts) - 1; i >= 0; i-- {
		ls := parts[i]
		if skip >= len(ls) {
			skip -= len(ls)
			continue
		}
		out = append(out, ls[skip:]...)
		skip = 0
	}
	return out
}

// bottomAnchor is the (block, line) at the top of the bottom view; ok is
// false when everything fits on one screen.
func (t *transcript) bottomAnchor(c *common, h int) (top, off int, ok bool) {
	remaining := h
	for i := len(t.blocks) - 1; i >= 0; i-- {
		l := len(t.lines(c, i))
		if l >= remaining {
			return i, l - remaining, true
		}
		remaining -= l
	}
	return 0, 0, false
}

// scroll moves the view n lines (negative: up). Scrolling down to the end
// resumes following new output.
func (t *transcript) scroll(c *common, h, n int) {
	if n == 0 {
		return
	}
	if t.follow {
		if n > 0 {
			return
		}
		top, off, ok := t.bottomAnchor(c, h)
		if !ok {
			return
		}
		t.follow, t.top, t.off = false, top, off
	}
	t.top = min(t.top, len(t.blocks)-1)
	if t.top < 0 {
		t.toBottom()
		return
	}
	t.off = min(t.off, max(len(t.lines(c, t.top))-1, 0))
	if n < 0 {
		t.off += n
		for t.off < 0 && t.top > 0 {
			t.top--
			t.off += len(t.lines(c, t.top))
		}
		t.off = max(t.off, 0)
		return
	}
	t.off += n
	for t.top < len(t.blocks) && t.off >= len(t.lines(c, t.top)) {
		t.off -= len(t.lines(c, t.top))
		t.top++
	}
	if t.top >= len(t.blocks) || len(t.forward(c, t.top, t.off, h+1)) <= h {
		t.toBottom()
	}
}

func (t *transcript) toTop(c *common, h int) {
	if _, _, ok := t.bottomAnchor(c, h); !ok {
		return
	}
	t.follow, t.top, t.off = false, 0, 0
}

func (t *transcript) toBottom() { t.follow, t.top, t.off, t.unseen = true, 0, 0, false }
