package agent

import (
	"encoding/json"
	"hash/maphash"
	"sync"

	"github.com/sashabaranov/go-openai"
)

// The catalog is counted for every request and every refresh of the status
// line, and encoding it was most of their cost: go-openai encodes each tool
// twice over, through a map. A tool's encoded length is kept, keyed by a
// digest of what it encodes, so a catalog is counted by summing.
var toolLens = struct {
	sync.Mutex
	m map[uint64]int
}{m: map[uint64]int{}}

// toolLensMax bounds what is kept: MCP servers that come and go, or change
// their tools, would otherwise add entries forever.
const toolLensMax = 4096

var toolSeed = maphash.MakeSeed()

// catalogLen is the length of catalog encoded as JSON, as the request
// sends it: the tools' lengths, the brackets and the commas.
func catalogLen(catalog []openai.Tool) int {
	if catalog == nil {
		return len("null")
	}
	n := 2 + max(len(catalog)-1, 0)
	for _, t := range catalog {
		n += toolLen(t)
	}
	return n
}

func toolLen(t openai.Tool) int {
	key, ok := toolKey(t)
	if ok {
		toolLens.Lock()
		n, hit := toolLens.m[key]
		toolLens.Unlock()
		if hit {
			return n
		}
	}
	b, _ := json.Marshal(t)
	if ok {
		toolLens.Lock()
		if len(toolLens.m) >= toolLensMax {
			clear(toolLens.m)
		}
		toolLens.m[key] = len(b)
		toolLens.Unlock()
	}
	return len(b)
}

// toolKey digests all that t encodes; false when its parameters are not
// the raw schema the registry gives (nothing is kept for those).
func toolKey(t openai.Tool) (uint64, bool) {
	if len(t.Parameters) > 0 {
		return 0, false
	}
	var h maphash.Hash
	h.SetSeed(toolSeed)
	// Each field length-prefixed, so that no two tools digest the same.
	size := func(n int) {
		var l [8]byte
		for i := range l {
			l[i] = byte(n >> (8 * i))
		}
		_, _ = h.Write(l[:])
	}
	field := func(s string) {
		size(len(s))
		_, _ = h.WriteString(s)
	}
	field(string(t.Type))
	f := t.Function
	if f == nil {
		_ = h.WriteByte(0)
		return h.Sum64(), true
	}
	_ = h.WriteByte(1)
	field(f.Name)
	field(f.Description)
	if f.Strict {
		_ = h.WriteByte(1)
	} else {
		_ = h.WriteByte(0)
	}
	switch p := f.Parameters.(type) {
	case nil:
		_ = h.WriteByte(0)
	case json.RawMessage:
		_ = h.WriteByte(1)
		size(len(p))
		_, _ = h.Write(p)
	default:
		return 0, false
	}
	return h.Sum64(), true
}
