// Package secret is the one registry of the credential values myclaw holds:
// provider and supra_llm keys, MCP header and env values, MCP OAuth tokens,
// keys inside configured URLs. Two questions are answered from it, whatever
// variable a value came from: which values no child process may inherit
// (proc.ScrubEnv drops or masks them) and which must not show in an output
// that reaches the model, the screen, the transcript or a log (Redact).
//
// Values are process-wide, like the environment most of them came from,
// and are never forgotten: a token replaced by a refresh may still sit in a
// file or a scrollback a command prints.
package secret

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// MinLen is the shortest value registered. Shorter ones ("dev", "1234",
// "admin") are too likely to be ordinary words or numbers: redacting them
// by value would blank unrelated output and scrubbing them would strip
// unrelated variables. Such values are still kept from children by their
// variable's name where the name gives them away.
const MinLen = 8

// Mark replaces a secret value.
const Mark = "[redacted]"

var (
	mu   sync.Mutex
	list []string // longest first, so a secret that contains another goes whole
	// state is swapped whole on every Add, so readers need no lock.
	state atomic.Pointer[registry]
)

type registry struct {
	replacer *strings.Replacer
	values   map[string]bool
}

// Add registers credential values. Surrounding white space is ignored (a
// key read from a file keeps its newline), and values shorter than MinLen
// are not registered. It may be called at any time, from any goroutine;
// values accumulate.
func Add(values ...string) {
	mu.Lock()
	defer mu.Unlock()
	added := false
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) >= MinLen && !slices.Contains(list, v) {
			list = append(list, v)
			added = true
		}
	}
	if !added {
		return
	}
	slices.SortStableFunc(list, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(list))
	r := &registry{values: make(map[string]bool, len(list))}
	for _, v := range list {
		pairs = append(pairs, v, Mark)
		r.values[v] = true
	}
	r.replacer = strings.NewReplacer(pairs...)
	state.Store(r)
}

// Redact returns s with every registered value replaced by Mark. It sees
// values only as they are: one encoded (base64, URL escapes) or split by
// the program that prints it goes through.
func Redact(s string) string {
	r := state.Load()
	if r == nil || len(s) < MinLen {
		return s
	}
	return r.replacer.Replace(s)
}

// Is reports whether v, without surrounding white space, is a registered
// value.
func Is(v string) bool {
	r := state.Load()
	return r != nil && r.values[strings.TrimSpace(v)]
}

// Pending returns how many bytes at the end of s could be the beginning of
// a registered value: a stream that redacts piece by piece holds them back
// until the next piece shows whether the value follows.
func Pending(s string) int {
	r := state.Load()
	if r == nil {
		return 0
	}
	longest := 0
	for v := range r.values {
		// The longest proper prefix of v that s ends with.
		n := min(len(v)-1, len(s))
		for ; n > longest; n-- {
			if strings.HasSuffix(s, v[:n]) {
				longest = n
				break
			}
		}
	}
	return longest
}
