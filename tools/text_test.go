package tools

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutUTF8(t *testing.T) {
	tests := []struct {
		name string
		s    string
		n    int
		want string
	}{
		{"shorter than n", "abc", 10, "abc"},
		{"exactly n", "abc", 3, "abc"},
		{"ASCII cut", "abcdef", 4, "abcd"},
		{"zero", "abc", 0, ""},
		{"negative", "abc", -1, ""},
		{"before a two-byte character", "aé", 1, "a"},
		{"inside a two-byte character", "aéb", 2, "a"},
		{"after a two-byte character", "aéb", 3, "aé"},
		{"inside a three-byte character", "a€", 3, "a"},
		{"inside a four-byte character", "a😀", 4, "a"},
		{"after a four-byte character", "a😀b", 5, "a😀"},
		{"stray continuation bytes are kept", "a\x80\x80\x80\x80b", 5, "a\x80\x80\x80\x80"},
		{"invalid lead byte at the cut", "ab\xffc", 3, "ab\xff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := CutUTF8(tt.s, tt.n); got != tt.want {
				t.Errorf("CutUTF8(%q, %d) = %q; want %q", tt.s, tt.n, got, tt.want)
			}
			if got := CutUTF8([]byte(tt.s), tt.n); string(got) != tt.want {
				t.Errorf("CutUTF8([]byte(%q), %d) = %q; want %q", tt.s, tt.n, got, tt.want)
			}
		})
	}
}

func TestCutUTF8KeepsValidTextValid(t *testing.T) {
	s := strings.Repeat("aé€😀", 50)
	for n := 0; n <= len(s); n++ {
		got := CutUTF8(s, n)
		if !utf8.ValidString(got) || len(got) > n || len(got) < n-utf8.UTFMax+1 {
			t.Fatalf("CutUTF8(s, %d) = %d bytes, valid %v; want valid and within %d-%d bytes", n, len(got), utf8.ValidString(got), n-utf8.UTFMax+1, n)
		}
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"a longer text", 8, "a longer…"},
		{"héllo", 2, "h…"},
		{"line one\nline two", 10, "line one\nl…"},
	}
	for _, tt := range tests {
		if got := Clip(tt.s, tt.n); got != tt.want {
			t.Errorf("Clip(%q, %d) = %q; want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

// ClipOneLine is termtext.OneLine (tested there), except that a limit of
// zero leaves nothing.
func TestClipOneLine(t *testing.T) {
	if got := ClipOneLine("a\x1b[31mb  c", 20); got != `a\e[31mb c` {
		t.Errorf("ClipOneLine = %q; want the escape shown and the space collapsed", got)
	}
	if got := ClipOneLine("abc", 0); got != "" {
		t.Errorf("ClipOneLine(abc, 0) = %q; want nothing", got)
	}
}

func TestFirstAndLastLines(t *testing.T) {
	tests := []struct {
		name string
		s    string
		n    int
		want string
	}{
		{"one line", "bad value", 100, "bad value"},
		{"two lines", "compiling failed\n  at /a: bad\n", 100, "compiling failed at /a: bad"},
		{"many lines", "first\nsecond\n\nthird\n- at /x: the rule", 100, "first … - at /x: the rule"},
		{"clipped", "first\nlast line", 8, "first l…"},
		{"blank", "\n \n", 10, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := FirstAndLastLines(tt.s, tt.n); got != tt.want {
				t.Errorf("FirstAndLastLines(%q, %d) = %q; want %q", tt.s, tt.n, got, tt.want)
			}
		})
	}
}

func TestHumanSize(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{812, "812 B"},
		{1023, "1023 B"},
		{1024, "1.0 KB"},
		{1229, "1.2 KB"},
		{15 << 10, "15.0 KB"},
		{5<<20 + 200<<10, "5.2 MB"},
		{3 << 30, "3.0 GB"},
	}
	for _, tt := range tests {
		if got := HumanSize(tt.n); got != tt.want {
			t.Errorf("HumanSize(%d) = %q; want %q", tt.n, got, tt.want)
		}
	}
}

func TestPrettyJSON(t *testing.T) {
	tests := []struct {
		raw, want string
	}{
		{`{"a":1,"b":[true]}`, "{\n  \"a\": 1,\n  \"b\": [\n    true\n  ]\n}"},
		{`{}`, `{}`},
		{`not json`, `not json`},
	}
	for _, tt := range tests {
		if got := PrettyJSON([]byte(tt.raw)); got != tt.want {
			t.Errorf("PrettyJSON(%q) = %q; want %q", tt.raw, got, tt.want)
		}
	}
}

func TestIsSHA256Hex(t *testing.T) {
	sum := strings.Repeat("0123456789abcdef", 4)
	tests := []struct {
		s    string
		want bool
	}{
		{sum, true},
		{strings.ToUpper(sum), false},
		{sum[:63], false},
		{sum + "0", false},
		{sum[:63] + "g", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsSHA256Hex(tt.s); got != tt.want {
			t.Errorf("IsSHA256Hex(%q) = %v; want %v", tt.s, got, tt.want)
		}
	}
}

func TestIsASCIIAlnum(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := strings.ContainsRune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", rune(c)) && c < utf8.RuneSelf
		if got := IsASCIIAlnum(byte(c)); got != want {
			t.Errorf("IsASCIIAlnum(%#x) = %v; want %v", c, got, want)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 tools", 1: "1 tool", 2: "2 tools"} {
		if got := Count(n, "tool"); got != want {
			t.Errorf("Count(%d) = %q; want %q", n, got, want)
		}
	}
}
