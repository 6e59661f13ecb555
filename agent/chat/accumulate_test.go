package chat

import (
	"encoding/json"
	"fmt"
	"testing"
)

// accumulateDeltas feeds each JSON tool_calls array as one delta.
func accumulateDeltas(t *testing.T, deltas []string, partial bool) ([]wantToolCall, bool) {
	t.Helper()
	var a callAccumulator
	for _, d := range deltas {
		var calls []wireToolCall
		if err := json.Unmarshal([]byte(d), &calls); err != nil {
			t.Fatalf("bad delta %s: %v", d, err)
		}
		for i := range calls {
			a.add(&calls[i])
		}
	}
	calls, truncated := a.finish(partial)
	var got []wantToolCall
	for _, c := range calls {
		got = append(got, wantToolCall{c.ID, c.Function.Name, c.Function.Arguments})
	}
	return got, truncated
}

func TestCallAccumulator(t *testing.T) {
	tests := []struct {
		name      string
		deltas    []string
		partial   bool
		want      []wantToolCall
		truncated bool
	}{
		{
			name: "index with fragments",
			deltas: []string{
				`[{"index":0,"id":"a","function":{"name":"read_file","arguments":""}}]`,
				`[{"index":0,"function":{"arguments":"{\"path\":"}}]`,
				`[{"index":0,"function":{"arguments":"\"x\"}"}}]`,
			},
			want: []wantToolCall{{"a", "read_file", `{"path":"x"}`}},
		},
		{
			name: "id repeated on every delta",
			deltas: []string{
				`[{"index":0,"id":"a","function":{"name":"read_file","arguments":"{"}}]`,
				`[{"index":0,"id":"a","function":{"arguments":"}"}}]`,
			},
			want: []wantToolCall{{"a", "read_file", `{}`}},
		},
		{
			name: "new id under index 0 starts a call",
			deltas: []string{
				`[{"index":0,"id":"a","function":{"name":"read_file","arguments":"{\"path\":\"x\"}"}}]`,
				`[{"index":0,"id":"b","function":{"name":"list_dir","arguments":"{\"path\":\".\"}"}}]`,
			},
			want: []wantToolCall{{"a", "read_file", `{"path":"x"}`}, {"b", "list_dir", `{"path":"."}`}},
		},
		{
			name: "empty id and name never overwrite",
			deltas: []string{
				`[{"index":0,"id":"a","function":{"name":"read_file"}}]`,
				`[{"index":0,"id":"","function":{"name":"","arguments":"{}"}}]`,
			},
			want: []wantToolCall{{"a", "read_file", `{}`}},
		},
		{
			name: "same name again is not appended",
			deltas: []string{
				`[{"index":0,"id":"a","function":{"name":"read_file"}}]`,
				`[{"index":0,"function":{"name":"read_file","arguments":"{}"}}]`,
			},
			want: []wantToolCall{{"a", "read_file", `{}`}},
		},
		{
			name: "name streamed in fragments",
			deltas: []string{
				`[{"index":0,"id":"a","function":{"name":"read"}}]`,
				`[{"index":0,"function":{"name":"_file","arguments":"{}"}}]`,
			},
			want: []wantToolCall{{"a", "read_file", `{}`}},
		},
		{
			name: "no index: header starts, fragments continue",
			deltas: []string{
				`[{"id":"a","function":{"name":"read_file","arguments":"{\"path\":"}}]`,
				`[{"function":{"arguments":"\"x\"}"}}]`,
				`[{"id":"b","function":{"name":"list_dir","arguments":"{}"}}]`,
			},
			want: []wantToolCall{{"a", "read_file", `{"path":"x"}`}, {"b", "list_dir", `{}`}},
		},
		{
			name: "no index: same tool twice without ids",
			deltas: []string{
				`[{"function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}},{"function":{"name":"read_file","arguments":"{\"path\":\"b\"}"}}]`,
			},
			want: []wantToolCall{{"call_1", "read_file", `{"path":"a"}`}, {"call_2", "read_file", `{"path":"b"}`}},
		},
		{
			name: "no index: id repeated continues",
			deltas: []string{
				`[{"id":"a","function":{"name":"read_file","arguments":"{"}}]`,
				`[{"id":"a","function":{"arguments":"}"}}]`,
			},
			want: []wantToolCall{{"a", "read_file", `{}`}},
		},
		{
			name: "arguments sent as an object",
			deltas: []string{
				`[{"index":0,"id":"a","function":{"name":"read_file","arguments":{"path": "x"}}}]`,
			},
			want: []wantToolCall{{"a", "read_file", `{"path":"x"}`}},
		},
		{
			name: "partial answer: cut arguments are dropped",
			deltas: []string{
				`[{"index":0,"id":"a","function":{"name":"read_file","arguments":"{\"path\":\"x\"}"}}]`,
				`[{"index":1,"id":"b","function":{"name":"read_file","arguments":"{\"path\":\"y"}}]`,
			},
			partial:   true,
			want:      []wantToolCall{{"a", "read_file", `{"path":"x"}`}},
			truncated: true,
		},
		{
			name: "partial answer: missing closing brace is cut",
			deltas: []string{
				`[{"index":0,"id":"a","function":{"name":"read_file","arguments":"{\"path\": \"x\""}}]`,
			},
			partial:   true,
			truncated: true,
		},
		{
			name: "finished answer: missing closing brace goes back to the model",
			deltas: []string{
				`[{"index":0,"id":"a","function":{"name":"read_file","arguments":"{\"path\": \"x\""}}]`,
			},
			want: []wantToolCall{{"a", "read_file", `{"path": "x"`}},
		},
		{
			name: "malformed but complete arguments are kept",
			deltas: []string{
				`[{"index":0,"id":"a","function":{"name":"read_file","arguments":"{path: x}"}}]`,
			},
			want: []wantToolCall{{"a", "read_file", `{path: x}`}},
		},
		{
			name:    "partial answer drops a last call without arguments",
			deltas:  []string{`[{"index":0,"id":"a","function":{"name":"time_now"}}]`},
			partial: true,
			want:    nil, truncated: true,
		},
		{
			name:   "finished answer: no arguments means {}",
			deltas: []string{`[{"index":0,"id":"a","function":{"name":"time_now"}}]`},
			want:   []wantToolCall{{"a", "time_now", `{}`}},
		},
		{
			name:   "an empty delta is not a call",
			deltas: []string{`[{"index":0}]`, `[{"index":0,"function":{}}]`},
		},
		{
			name: "generated ids avoid taken ones",
			deltas: []string{
				`[{"index":0,"function":{"name":"a","arguments":"{}"}}]`,
				`[{"index":1,"id":"call_1","function":{"name":"b","arguments":"{}"}}]`,
			},
			want: []wantToolCall{{"call_2", "a", `{}`}, {"call_1", "b", `{}`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, truncated := accumulateDeltas(t, tt.deltas, tt.partial)
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
				t.Errorf("calls = %q; want %q", got, tt.want)
			}
			if truncated != tt.truncated {
				t.Errorf("truncated = %v; want %v", truncated, tt.truncated)
			}
		})
	}
}

func TestJSONCutShort(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{"path":"RE`, true},
		{`{"path": "x"`, true},
		{`{"a": tru`, true},
		{`{"a": [1, 2`, true},
		{`{`, true},
		{`{path: x}`, false},
		{`{"a":1}}`, false},
		{`{'a': 1}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := jsonCutShort(tt.in); got != tt.want {
				t.Errorf("jsonCutShort(%q) = %v; want %v", tt.in, got, tt.want)
			}
		})
	}
}
