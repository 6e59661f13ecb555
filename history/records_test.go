package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Every record reads back as a full decode of its line gives it, whether
// the line has the shape Append writes (read without decoding the data)
// or another (decoded in full), across the chunks read in parallel.
func TestRecordsReadAsAFullDecodeDoes(t *testing.T) {
	s := newTestStore(t)
	sess, err := s.NewSession("/ws", "m")
	if err != nil {
		t.Fatal(err)
	}
	payloads := []any{
		"plain", "quote \" backslash \\ newline \n tab \t <html> & é 世界 \u2028",
		map[string]any{"role": "assistant", "content": "**bold**\n```go\nx := 1\n```", "tool_calls": []any{map[string]any{"id": "c1"}}},
		[]int{1, 2, 3}, 42, true, nil, map[string]any{},
	}
	for i := range 2000 { // enough lines for several chunks
		if err := sess.Append(fmt.Sprint("kind", i%5), payloads[i%len(payloads)]); err != nil {
			t.Fatal(err)
		}
	}
	sess.Close()
	path := filepath.Join(sess.Dir(), transcriptFile)
	written, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Lines of other shapes: fields in another order, spaces, an escape
	// in the kind, a time zone.
	other := []string{
		`{"time":"2026-11-30T10:00:00Z","kind":"reordered","data":{"a":1}}`,
		`{ "kind" : "spaced", "time" : "2026-11-30T10:00:00Z", "data" : [1, 2] }`,
		`{"kind":"esc\u0061ped","time":"2026-11-30T10:00:00Z","data":"x"}`,
		`{"kind":"zoned","time":"2026-11-30T12:00:00+02:00","data":"y"}`,
	}
	for line := range strings.Lines(string(written)) {
		if _, ok := fastLine([]byte(strings.TrimSuffix(line, "\n")), nil); !ok {
			t.Fatalf("a line Append wrote is not read in the written shape: %s", line)
		}
	}
	for _, line := range other[:3] {
		if _, ok := fastLine([]byte(line), nil); ok {
			t.Fatalf("a line of another shape is read in the written shape: %s", line)
		}
	}
	all := string(written) + strings.Join(other, "\n") + "\n"
	if err := os.WriteFile(path, []byte(all), 0o600); err != nil {
		t.Fatal(err)
	}
	again, err := s.OpenSession(sess.Info().ID)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	got, warns, err := again.Records()
	if err != nil || len(warns) > 0 {
		t.Fatalf("Records: %v, warnings %q", err, warns)
	}
	var want []Record
	for line := range strings.Lines(all) {
		var r Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		want = append(want, r)
	}
	if len(got) != len(want) {
		t.Fatalf("%d records; want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Kind != w.Kind || !g.Time.Equal(w.Time) || !bytes.Equal(compact(t, g.Data), compact(t, w.Data)) {
			t.Fatalf("record %d = %s %v %s; want %s %v %s", i, g.Kind, g.Time, g.Data, w.Kind, w.Time, w.Data)
		}
	}
	if got[2].Kind != "kind2" || !reflect.DeepEqual(decodeAny(t, got[2].Data), decodeAny(t, mustJSON(t, payloads[2]))) {
		t.Fatalf("record 2 = %s %s", got[2].Kind, got[2].Data)
	}
}

// A line with the shape Append writes but data that is not JSON is a
// corrupt line, as it was when every line was decoded in full.
func TestRecordsSkipCorruptDataInTheWrittenShape(t *testing.T) {
	s := newTestStore(t)
	sess, err := s.NewSession("/ws", "m")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"one", "two"} {
		if err := sess.Append("message", c); err != nil {
			t.Fatal(err)
		}
	}
	sess.Close()
	path := filepath.Join(sess.Dir(), transcriptFile)
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	ts := time.Now().UTC().Format(time.RFC3339Nano)
	bad := `{"kind":"message","time":"` + ts + `","data":{"role":"user","content":"cut}` + "\n"
	if err := os.WriteFile(path, []byte(lines[0]+bad+lines[1]), 0o600); err != nil {
		t.Fatal(err)
	}
	again, _ := s.OpenSession(sess.Info().ID)
	defer again.Close()
	recs, warns, err := again.Records()
	if err != nil {
		t.Fatal(err)
	}
	if got := contents(t, recs); got != "one two" {
		t.Fatalf("records = %q", got)
	}
	if len(warns) != 1 || !strings.HasPrefix(warns[0], "skipped corrupt line 2 of ") {
		t.Fatalf("warnings = %q", warns)
	}
}

func compact(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return out.Bytes()
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeAny(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// A reader that decodes messages itself gets a message line with broken
// data as it is, to skip; other kinds are still checked.
func TestRecordsDecodingLeavesTheKindsToTheReader(t *testing.T) {
	s := newTestStore(t)
	sess, err := s.NewSession("/ws", "m")
	if err != nil {
		t.Fatal(err)
	}
	sess.Close()
	ts := time.Now().UTC().Format(time.RFC3339Nano)
	lines := `{"kind":"message","time":"` + ts + `","data":{"content":"cut}` + "\n" +
		`{"kind":"note","time":"` + ts + `","data":{"content":"cut}` + "\n"
	if err := os.WriteFile(filepath.Join(sess.Dir(), transcriptFile), []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	again, _ := s.OpenSession(sess.Info().ID)
	defer again.Close()
	recs, warns, err := again.RecordsDecoding("message")
	if err != nil || len(recs) != 1 || recs[0].Kind != "message" || string(recs[0].Data) != `{"content":"cut` {
		t.Fatalf("RecordsDecoding = %+v, %v", recs, err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "corrupt last line (line 2)") {
		t.Fatalf("warnings = %q", warns)
	}
}
