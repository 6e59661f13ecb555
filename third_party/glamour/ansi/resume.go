package ansi

import (
	"errors"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/glamour/internal/lexers"
)

// A code block being streamed is highlighted again at every frame, one
// line longer or a few words longer each time. Lexing it whole each time
// costs time in the square of its length; here the lexer is taken up
// again from the start of the last line lexed before, where it stood
// with nothing pending, and the tokens before that line are kept.
//
// Chroma does not let a lexer start anywhere but at the start, so the
// loop of chroma's LexerState.Iterator (v2.20.0, MIT) is copied below,
// run over the lexer's own compiled rules, with a point to start from
// and the points it could be taken up from noted at line starts.
//
// What this gives up: a rule whose match starts on a kept line and
// depends on text that came later (a Go raw string, a shell heredoc, an
// HTML style element: each matched whole by one pattern once its end
// arrives) is not matched again until the block is lexed whole, every
// wholeEvery tokenisations and once the block is finished. Lexers whose
// lines carry state on their stack (a docstring, a template literal)
// lose nothing: the stack is part of where the lexer stood.
type lexCache struct {
	mu      sync.Mutex
	lexers  map[*chroma.RegexLexer]*resumable
	lexer   *resumable
	source  string
	raw     []chroma.Token // uncoalesced tokens of source
	marks   []lexMark
	resumed int // tokenisations taken up from a mark, for tests
	// sinceWhole counts the tokenisations taken up since source was
	// last lexed whole.
	sinceWhole int
}

// wholeEvery is how often a block being streamed is lexed whole all the
// same: what a later line changes on the lines kept (see below) shows
// within that many frames, a quarter of a second at thirty a second.
const wholeEvery = 8

// lexMark is a point the lexer may be taken up from: a line's start, the
// lexer's stack there, the tokens before it, and its byte offset.
type lexMark struct {
	pos    int // in runes
	stack  []string
	tokens int
	offset int
}

var streamLex lexCache

// tokenise returns l's tokens of source as chroma.Coalesce(l) would.
func tokenise(l chroma.Lexer, source string) (chroma.Iterator, error) {
	if rl, ok := l.(*chroma.RegexLexer); ok && !strings.ContainsRune(source, '\r') {
		if raw, ok := streamLex.tokens(rl, source); ok {
			return coalesced(raw), nil
		}
	}
	return chroma.Coalesce(l).Tokenise(nil, source)
}

// tokens lexes source, from where the cache can take it up if source
// extends the text lexed last; false if l cannot be lexed here.
func (c *lexCache) tokens(l *chroma.RegexLexer, source string) ([]chroma.Token, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lexers == nil {
		c.lexers = map[*chroma.RegexLexer]*resumable{}
	}
	r, seen := c.lexers[l]
	if !seen {
		r = newResumable(l)
		c.lexers[l] = r
	}
	if r == nil {
		return nil, false
	}
	if c.lexer == r && source == c.source {
		return c.raw, true
	}
	from := -1
	// A code block's text ends with a line break, its last line's or
	// one added to a line being written.
	old := strings.TrimSuffix(c.source, "\n")
	if c.lexer == r && strings.HasPrefix(source, old) && c.sinceWhole < wholeEvery-1 {
		// The last line lexed before may have ended mid-word, and the
		// lexer saw the end of the text there: it is lexed again.
		lastLine := strings.LastIndexByte(old, '\n') + 1
		for i := len(c.marks) - 1; i >= 0 && from < 0; i-- {
			if c.marks[i].offset <= lastLine {
				from = i
			}
		}
	}
	var raw []chroma.Token
	var marks []lexMark
	start := lexMark{stack: []string{"root"}}
	since := 0
	if from >= 0 {
		start = c.marks[from]
		raw = append(raw, c.raw[:start.tokens]...)
		marks = append(marks, c.marks[:from]...)
		c.resumed++
		since = c.sinceWhole + 1
	}
	raw, marks, err := r.lex(source, start, raw, marks)
	if err != nil {
		c.lexer, c.source, c.raw, c.marks = nil, "", nil, nil
		return nil, false
	}
	c.lexer, c.source, c.raw, c.marks, c.sinceWhole = r, source, raw, marks, since
	return raw, true
}

// resumable is a lexer with its compiled rules at hand.
type resumable struct {
	lexer    *chroma.RegexLexer
	rules    chroma.CompiledRules
	registry *chroma.LexerRegistry
	ensureNL bool
}

// newResumable makes a copy of l whose emitters note the lexer's state
// when first called, lexes a line with it to learn its compiled rules,
// and returns it; nil if that fails.
func newResumable(l *chroma.RegexLexer) *resumable {
	rules, err := l.Rules()
	if err != nil {
		return nil
	}
	var state *chroma.LexerState
	spied := chroma.Rules{}
	for name, rs := range rules {
		out := make([]chroma.Rule, len(rs))
		for i, rule := range rs {
			if rule.Type != nil {
				rule.Type = stateSpy{rule.Type, &state}
			}
			out[i] = rule
		}
		spied[name] = out
	}
	lexer, err := chroma.NewLexer(l.Config(), func() chroma.Rules { return spied })
	if err != nil {
		return nil
	}
	lexer.SetRegistry(lexers.Registry()) // for rules that lex a part with another lexer
	it, err := lexer.Tokenise(nil, "x = 1\n")
	if err != nil {
		return nil
	}
	for tok := it(); tok != chroma.EOF; tok = it() {
	}
	if state == nil || state.Rules == nil {
		return nil
	}
	return &resumable{lexer: lexer, rules: state.Rules, registry: state.Registry, ensureNL: l.Config().EnsureNL}
}

// stateSpy is an emitter that notes the lexer state it is first given.
type stateSpy struct {
	chroma.Emitter
	state **chroma.LexerState
}

func (s stateSpy) Emit(groups []string, state *chroma.LexerState) chroma.Iterator {
	if *s.state == nil {
		*s.state = state
	}
	return s.Emitter.Emit(groups, state)
}

var errLexer = errors.New("lexer failed")

// lex appends source's tokens from start to raw, and the points it may
// be taken up from to marks. It is chroma's LexerState.Iterator with
// TokeniseOptions{State: "root", EnsureLF: true}, run to the end.
func (r *resumable) lex(source string, start lexMark, raw []chroma.Token, marks []lexMark) (_ []chroma.Token, _ []lexMark, err error) {
	defer func() {
		// Chroma panics on a broken rule or mutator; the caller then
		// lexes as chroma does.
		if recover() != nil {
			err = errLexer
		}
	}()
	text, added := source, false
	if r.ensureNL && !strings.HasSuffix(text, "\n") {
		text, added = text+"\n", true
	}
	l := &chroma.LexerState{
		Lexer:          r.lexer,
		Registry:       r.registry,
		Text:           []rune(text),
		Pos:            start.pos,
		Rules:          r.rules,
		Stack:          append([]string(nil), start.stack...),
		MutatorContext: map[any]any{},
	}
	end := len(l.Text)
	if added {
		end--
	}
	covered, offset := start.pos, start.offset // what the tokens so far hold
	var pending []chroma.Iterator
	take := func() {
		for len(pending) > 0 {
			n := len(pending) - 1
			t := pending[n]()
			switch {
			case t == chroma.EOF:
				pending = pending[:n]
			case t.Type != chroma.Ignore:
				raw = append(raw, t)
				covered += utf8.RuneCountInString(t.Value)
				offset += len(t.Value)
			}
		}
	}
	for l.Pos < end && len(l.Stack) > 0 {
		take()
		if (l.Pos == 0 || l.Text[l.Pos-1] == '\n') && covered == l.Pos && len(l.MutatorContext) == 0 {
			marks = append(marks, lexMark{pos: l.Pos, stack: append([]string(nil), l.Stack...), tokens: len(raw), offset: offset})
		}
		l.State = l.Stack[len(l.Stack)-1]
		selected, ok := l.Rules[l.State]
		if !ok {
			return nil, nil, errLexer
		}
		index, rule, groups, named := matchRules(l.Text, l.Pos, selected)
		if groups == nil {
			if l.Text[l.Pos] == '\n' && l.State != "root" {
				l.Stack = []string{"root"}
				continue
			}
			l.Pos++
			pending = append(pending, chroma.Literator(chroma.Token{Type: chroma.Error, Value: string(l.Text[l.Pos-1 : l.Pos])}))
			continue
		}
		l.Rule, l.Groups, l.NamedGroups = index, groups, named
		l.Pos += utf8.RuneCountInString(groups[0])
		if rule.Mutator != nil {
			if err := rule.Mutator.Mutate(l); err != nil {
				return nil, nil, err
			}
		}
		if rule.Type != nil {
			pending = append(pending, rule.Type.Emit(l.Groups, l))
		}
	}
	take()
	if l.Pos != len(l.Text) && len(l.Stack) == 0 {
		raw = append(raw, chroma.Token{Type: chroma.Error, Value: string(l.Text[l.Pos:])})
	}
	return raw, marks, nil
}

// matchRules is chroma's: the first rule matching at pos.
func matchRules(text []rune, pos int, rules []*chroma.CompiledRule) (int, *chroma.CompiledRule, []string, map[string]string) {
	for i, rule := range rules {
		match, err := rule.Regexp.FindRunesMatchStartingAt(text, pos)
		if match != nil && err == nil && match.Index == pos {
			groups := []string{}
			named := make(map[string]string)
			for _, g := range match.Groups() {
				named[g.Name] = g.String()
				groups = append(groups, g.String())
			}
			return i, rule, groups, named
		}
	}
	return 0, &chroma.CompiledRule{}, nil, nil
}

// coalesced is chroma.Coalesce over raw: empty tokens dropped, runs of
// one type joined while shorter than 8 KiB.
func coalesced(raw []chroma.Token) chroma.Iterator {
	i := 0
	return func() chroma.Token {
		var prev chroma.Token
		for ; i < len(raw); i++ {
			tok := raw[i]
			if tok.Value == "" {
				continue
			}
			if prev == chroma.EOF {
				prev = tok
			} else if prev.Type == tok.Type && len(prev.Value) < 8192 {
				prev.Value += tok.Value
			} else {
				return prev
			}
		}
		return prev
	}
}
