package ui

// Rendered lines take several times the memory of what they show, and a
// long session is mostly off screen. The transcript remembers which blocks
// it rendered; when there are more than warmLimit, the lines of those
// farther than keepNear blocks from the view are dropped, and a block
// renders again, identically, when it comes back on screen. So the lines
// kept are bounded by the view, not by the length of the session.
const (
	keepNear  = 48
	warmLimit = 4 * keepNear
)

// dropper is a block that can forget its rendered lines.
type dropper interface{ dropLines() }

func (lc *lineCache) drop() { *lc = lineCache{} }

func (b *funcBlock) dropLines()    { b.cache.drop() }
func (b *mdBlock) dropLines()      { b.cache.drop() }
func (t *toolCard) dropLines()     { t.cache.drop() }
func (ch *chip) dropLines()        { ch.cache.drop() }
func (w *welcomeBlock) dropLines() { w.cache.drop() }

// The reasoning's wrapped body is rendered lines too.
func (r *reasoningBlock) dropLines() {
	r.cache.drop()
	r.body = reasoningBody{}
}

// lines renders block i and remembers it was rendered.
func (t *transcript) lines(c *common, i int) []string {
	b := t.blocks[i]
	if t.warm == nil {
		t.warm = map[block]struct{}{}
	}
	t.warm[b] = struct{}{}
	return b.lines(c)
}

// evict drops the lines of rendered blocks far from blocks lo..hi, those
// on screen, once more than warmLimit blocks hold lines.
func (t *transcript) evict(lo, hi int) {
	if len(t.warm) <= warmLimit {
		return
	}
	from, to := max(lo-keepNear, 0), min(hi+keepNear+1, len(t.blocks))
	from = min(from, to)
	near := make(map[block]struct{}, to-from)
	for _, b := range t.blocks[from:to] {
		near[b] = struct{}{}
	}
	for b := range t.warm {
		if _, ok := near[b]; ok {
			continue
		}
		if d, ok := b.(dropper); ok {
			d.dropLines()
		}
		delete(t.warm, b)
	}
}
