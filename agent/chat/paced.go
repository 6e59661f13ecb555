package chat

import (
	"io"
	"time"
)

// readGap is the least time between two reads of an answer's body. A
// model streaming a few hundred tokens a second sends each in a packet of
// its own, and reading each as it comes costs a wake-up and two system
// calls per token; waiting up to a display frame after a read lets the
// next few arrive and be read at once. The screen shows the answer at
// most ~30 times a second anyway (the TUI shows what a read brings at
// once when a frame has passed since it last did), and a slower stream is
// not delayed: a read that waited for its data longer than the gap is
// not held back.
const readGap = 33 * time.Millisecond

// paceBelow is the size under which a read was of a trickle: a faster
// stream (a server answering at full speed, a whole completion) comes in
// reads this big or bigger, and is read without pause.
const paceBelow = 4 << 10

// pacedReader reads r at most once every gap while it trickles: a read
// soon after a small one that did not fill its buffer first waits for the
// rest of the gap.
type pacedReader struct {
	r     io.Reader
	gap   time.Duration
	now   func() time.Time
	sleep func(time.Duration)
	last  time.Time // when the last read returned; zero before the first
	lastN int       // what it returned
	full  bool      // and whether that filled the buffer: more may wait
	// before, if set, runs before each read, which may wait.
	before func()
}

func newPacedReader(r io.Reader, gap time.Duration) *pacedReader {
	return &pacedReader{r: r, gap: gap, now: time.Now, sleep: time.Sleep}
}

func (p *pacedReader) Read(b []byte) (int, error) {
	if p.before != nil {
		p.before()
	}
	if !p.last.IsZero() && p.lastN < paceBelow && !p.full {
		if d := p.gap - p.now().Sub(p.last); d > 0 {
			p.sleep(d)
		}
	}
	n, err := p.r.Read(b)
	p.last, p.lastN, p.full = p.now(), n, n == len(b)
	return n, err
}
