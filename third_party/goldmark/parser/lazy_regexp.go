package parser

import (
	"regexp"
	"sync"
)

// lazyRegexp is a pattern compiled on first use rather than at package
// init, so a program that links goldmark but parses no HTML in markdown
// does not pay for compiling these at every start.
type lazyRegexp struct {
	pattern string
	once    sync.Once
	re      *regexp.Regexp
}

func newLazyRegexp(pattern string) *lazyRegexp { return &lazyRegexp{pattern: pattern} }

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.pattern) })
	return l.re
}

func (l *lazyRegexp) Match(b []byte) bool { return l.get().Match(b) }

func (l *lazyRegexp) FindSubmatchIndex(b []byte) []int { return l.get().FindSubmatchIndex(b) }
