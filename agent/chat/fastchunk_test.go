package chat

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// sameAsJSON checks fastChunk against json.Unmarshal on data: when it
// takes data it must make what json.Unmarshal makes (and json.Unmarshal
// must not fail). It reports whether fastChunk took it.
func sameAsJSON(t *testing.T, data []byte) bool {
	t.Helper()
	var fast wireChunk
	if !fastChunk(data, &fast) {
		return false
	}
	var slow wireChunk
	if err := json.Unmarshal(data, &slow); err != nil {
		t.Fatalf("fastChunk took %q, json.Unmarshal fails: %v", data, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("for %q\nfastChunk: %#v\n     json: %#v", data, fast, slow)
	}
	return true
}

// chunkLines is the JSON of every data line of the recorded and
// reconstructed streams, and of the benchmark's stream.
func chunkLines(t *testing.T) [][]byte {
	t.Helper()
	files, _ := filepath.Glob("testdata/streams/*.sse")
	if more, _ := filepath.Glob("/work/shared/streams/*.sse"); len(files) == 0 {
		files = more
	}
	bodies := [][]byte{benchBody()}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	var out [][]byte
	for _, b := range bodies {
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok && d[0] == '{' {
				out = append(out, bytes.Clone(d))
			}
		}
	}
	return out
}

func TestFastChunkDecodesAsJSONDoes(t *testing.T) {
	lines := chunkLines(t)
	for _, c := range []string{
		`{"choices":[{"index":0,"delta":{"content":"caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \b\f\n\r\t"}}]}`,
		` {"object":"chat.completion.chunk","choices":[],"x":[1,-2.5e+3,true,false,null,{"a":[]}]} `,
		`{"choices":null,"object":null}`,
		`{"choices":[{"index":3,"delta":null,"finish_reason":"stop","logprobs":{"content":[]}}]}`,
		`{"choices":[{"delta":{"reasoning":"r","reasoning_content":null,"refusal":"no","role":"assistant"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"漢字"}},{"index":1,"delta":{}}]}`,
		`{"cho\u0069ces":[{"delta":{"content":"escaped key"}}]}`,
		`{}`,
		`{"usage":null,"timings":null,"choices":[]}`,
	} {
		lines = append(lines, []byte(c))
	}
	took := 0
	for _, l := range lines {
		if sameAsJSON(t, l) {
			took++
		}
	}
	if took < len(lines)/2 {
		t.Errorf("fastChunk took %d of %d chunks", took, len(lines))
	}
	// What it must leave to encoding/json.
	for _, c := range []string{
		`{"Choices":[{"delta":{"content":"x"}}]}`,
		`{"choices":[{"delta":{"Content":"x"}}]}`,
		`{"choices":[{"delta":{"content":"x","content":"y"}}]}`,
		`{"choices":[{"delta":{"content":[{"type":"text","text":"x"}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[]}}]}`,
		`{"choices":[{"index":-1,"delta":{}}]}`,
		`{"choices":[{"index":1.0,"delta":{}}]}`,
		`{"choices":[{"index":01,"delta":{}}]}`,
		`{"choices":[{"message":{"content":"x"}}]}`,
		`{"choices":[null]}`,
		`{"usage":{"prompt_tokens":1},"choices":[]}`,
		`{"timings":{"cache_n":1}}`,
		`{"error":null}`,
		"{\"choices\":[{\"delta\":{\"content\":\"\xff\"}}]}",
		`{"choices":[{"delta":{"content":"\ud83d"}}]}`,
		`{"choices":[{"delta":{"content":"x"}}]} x`,
		`{"choices":[{"delta":{"content":"x"}}],}`,
		`{"a":01}`,
	} {
		var ch wireChunk
		if fastChunk([]byte(c), &ch) {
			t.Errorf("fastChunk took %s", c)
		}
	}
}

// TestFastChunkOnMutatedChunks breaks real chunks at random (bytes
// changed, cut, doubled; keys in another case) and checks that whatever
// fastChunk takes, it takes as json.Unmarshal does.
func TestFastChunkOnMutatedChunks(t *testing.T) {
	lines := chunkLines(t)
	rng := rand.New(rand.NewSource(3))
	alphabet := []byte(`{}[]":,\ 0123456789.-+eEnulltrfasC` + "\x00\x1f\xc3\xa9\t\n")
	for range 20000 {
		b := bytes.Clone(lines[rng.Intn(len(lines))])
		for range 1 + rng.Intn(3) {
			i := rng.Intn(len(b))
			switch rng.Intn(4) {
			case 0:
				b[i] = alphabet[rng.Intn(len(alphabet))]
			case 1:
				b = b[:i]
			case 2:
				b = append(b[:i:i], append([]byte{alphabet[rng.Intn(len(alphabet))]}, b[i:]...)...)
			case 3:
				j := i + rng.Intn(len(b)-i)
				b = append(b[:j:j], b[i:]...)
			}
			if len(b) == 0 {
				b = []byte("{")
			}
		}
		sameAsJSON(t, b)
	}
}

func FuzzFastChunk(f *testing.F) {
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}`))
	f.Add([]byte(`{"object":"chat.completion.chunk","choices":[],"n":-0.5e3}`))
	f.Fuzz(func(t *testing.T, data []byte) { sameAsJSON(t, data) })
}
