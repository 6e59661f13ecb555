package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStrip(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text unchanged", "hello, world\n\tindented", "hello, world\n\tindented"},
		{"non-ASCII unchanged", "naïve 日本語 🙂 e\u0301", "naïve 日本語 🙂 e\u0301"},
		{"SGR colours", "\x1b[31mred\x1b[0m plain", "red plain"},
		{"SGR with many parameters", "\x1b[38;2;255;0;0mx\x1b[m", "x"},
		{"private mode CSI", "\x1b[?1049h\x1b[?25lscreen", "screen"},
		{"clear screen and home", "\x1b[2J\x1b[Hok", "ok"},
		{"CSI with intermediate byte", "a\x1b[1 qb", "ab"},
		{"8-bit CSI", "\u009b31mred\u009b0m", "red"},
		{"truncated CSI at end", "text\x1b[12", "text"},
		{"malformed CSI ends at first byte that does not fit", "a\x1b[12\u00e9b", "a\u00e9b"},
		{"OSC title with BEL", "\x1b]0;pwned title\x07after", "after"},
		{"OSC title with ST", "\x1b]2;title\x1b\\after", "after"},
		{"OSC 8 hyperlink keeps its text", "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\ here", "click here"},
		{"OSC 52 clipboard write", "a\x1b]52;c;cm0gLXJmIH4K\x07b", "ab"},
		{"8-bit OSC with 8-bit ST", "a\u009d0;t\u009cb", "ab"},
		{"DCS", "a\x1bPq#0;2;0;0;0#0~~\x1b\\b", "ab"},
		{"8-bit DCS", "a\u0090payload\u009cb", "ab"},
		{"SOS", "a\x1bXhidden\x1b\\b", "ab"},
		{"PM", "a\x1b^hidden\x1b\\b", "ab"},
		{"APC", "a\x1b_Gf=100;AAAA\x1b\\b", "ab"},
		{"8-bit APC", "a\u009fhidden\u009cb", "ab"},
		{"CAN cancels a control string", "a\x1b]0;title\x18b", "ab"},
		{"SUB cancels a control string", "a\x1bPdata\x1ab", "ab"},
		{"ESC inside a string starts a new sequence", "a\x1b]0;t\x1b[31mb", "ab"},
		{"unterminated OSC loses only its introducer", "a\x1b]0;no end here", "a0;no end here"},
		{"charset designation", "\x1b(Bx\x1b)0y", "xy"},
		{"save and restore cursor", "\x1b7x\x1b8", "x"},
		{"reset", "\x1bcx", "x"},
		{"DEC line attribute", "\x1b#8x", "x"},
		{"lone ESC at end", "abc\x1b", "abc"},
		{"ESC before a non-ASCII character", "a\x1b\u00e9", "a\u00e9"},
		{"C0 controls removed", "a\x00b\x07c\x08d\x0be\x0cf\x7fg", "abcdefg"},
		{"CRLF becomes LF", "a\r\nb\r\n", "a\nb\n"},
		{"lone CR becomes LF", "50%\r100%", "50%\n100%"},
		{"CR CR LF", "a\r\r\nb", "a\n\nb"},
		{"C1 controls removed", "a\u0085b\u0080c\u009cd", "abcd"},
		{"invalid UTF-8 becomes one U+FFFD per run", "a\xff\xfeb\xc0c", "a\uFFFDb\uFFFDc"},
		{"encoded surrogate is invalid", "a\xed\xa0\x80b", "a\uFFFDb"},
		{"invalid byte then control then invalid byte", "\xff\x1b[m\xff", "\uFFFD\uFFFD"},
		{"raw 8-bit CSI byte is invalid UTF-8", "a\x9b31mb", "a\uFFFD31mb"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Strip(tt.in)
			if got != tt.want {
				t.Errorf("Strip(%q) = %q; want %q", tt.in, got, tt.want)
			}
			if again := Strip(got); again != got {
				t.Errorf("Strip is not idempotent: %q then %q", got, again)
			}
			checkNoControls(t, got)
		})
	}
}

func checkNoControls(t *testing.T, s string) {
	t.Helper()
	if !IsInert(s) {
		t.Errorf("%q holds a control character or invalid UTF-8", s)
	}
}

func TestScreen(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text unchanged", "ls -la\n", "ls -la\n"},
		{"controls stripped too", "\x1b]0;t\x07a\x1b[1mb", "ab"},
		{"right-to-left override made visible", "invoice_\u202Efdp.exe", "invoice_⟨U+202E⟩fdp.exe"},
		{"bidi isolates", "a\u2066b\u2069e", "a⟨U+2066⟩b⟨U+2069⟩e"},
		{"zero-width space", "./bu\u200bild", "./bu⟨U+200B⟩ild"},
		{"soft hyphen", "pass\u00ADword", "pass⟨U+00AD⟩word"},
		{"Hangul filler", "a\u3164b", "a⟨U+3164⟩b"},
		{"tag characters become one note", "ok\U000E0001\U000E0069\U000E007F.", "ok" + TagNote + "."},
		{"line and paragraph separators", "a\u2028b\u2029c", "a\nb\nc"},
		{"combining accents kept", "e\u0301 a\u0308", "e\u0301 a\u0308"},
		{"emoji joined by ZWJ kept", "👨\u200D👩", "👨\u200D👩"},
		{"lone ZWJ shown", "a\u200Db", "a⟨U+200D⟩b"},
		{"CJK kept", "日本語", "日本語"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Screen(tt.in); got != tt.want {
				t.Errorf("Screen(%q) = %q; want %q", tt.in, got, tt.want)
			}
			checkNoControls(t, Screen(tt.in))
		})
	}
}

// What a person decides on shows every byte: an OSC string keeps its
// payload, a zero-width space shows where it is.
func TestVisible(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "rm -rf ./build", "rm -rf ./build"},
		{"OSC with its payload", "rm -rf ./build \x1b] ./victim \x07", `rm -rf ./build \e] ./victim \a`},
		{"zero-width space in a path", "rm -rf ./bu\u200bild", "rm -rf ./bu⟨U+200B⟩ild"},
		{"bidi override", "a\u202eb", "a⟨U+202E⟩b"},
		{"C0 names", "\b\f\v\r\x00\x7f", `\b\f\v\r\x00\x7f`},
		{"newline and tab stay", "a\n\tb", "a\n\tb"},
		{"C1 control", "a\u009b31m", "a⟨U+009B⟩31m"},
		{"invalid byte", "a\xffb", `a\xffb`},
		{"tag character", "a\U000E0041", "a⟨U+E0041⟩"},
		{"line separator", "a\u2028b", "a⟨U+2028⟩b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Visible(tt.in)
			if got != tt.want {
				t.Errorf("Visible(%q) = %q; want %q", tt.in, got, tt.want)
			}
			checkNoControls(t, got)
			if HasHidden(tt.in) != (got != tt.in) {
				t.Errorf("HasHidden(%q) = %v; want %v", tt.in, HasHidden(tt.in), got != tt.in)
			}
		})
	}
}

func TestOneLine(t *testing.T) {
	tests := []struct {
		name string
		s    string
		n    int
		want string
	}{
		{"fits", "git status", 20, "git status"},
		{"white space collapsed", "  go\ttest\n\n./...  ", 20, "go test ./..."},
		{"cut in characters", "ééééé", 3, "éé…"},
		{"exactly n characters", "ééé", 3, "ééé"},
		{"no limit", "abc", 0, "abc"},
		{"escape sequences shown", "a\x1b[31mred b", 20, `a\e[31mred b`},
		{"bidi override shown", "abc\u202edef", 20, "abc⟨U+202E⟩def"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := OneLine(tt.s, tt.n); got != tt.want {
				t.Errorf("OneLine(%q, %d) = %q; want %q", tt.s, tt.n, got, tt.want)
			}
		})
	}
}

func TestEditableRoundTrip(t *testing.T) {
	for _, s := range []string{
		"rm -rf ./build \x1b] ./victim \x07",
		"rm -rf ./bu\u200bild",
		"a\tb\nc\r\n",
		"literal ⟨U+200B⟩ and ⟨0xFF⟩ typed",
		"bad \xff\xfe bytes \u009b and \U000E0041",
		"echo -e '\\e[31m'",
	} {
		e := Editable(s)
		checkNoControls(t, e)
		if strings.ContainsAny(e, "\t\r") {
			t.Errorf("Editable(%q) = %q keeps a tab or CR", s, e)
		}
		if got := ParseEditable(e); got != s {
			t.Errorf("ParseEditable(Editable(%q)) = %q via %q", s, got, e)
		}
	}
	if got := ParseEditable("a ⟨U+0041⟩ ⟨U+ZZ⟩ ⟨0x41⟩ ⟨"); got != "a A ⟨U+ZZ⟩ A ⟨" {
		t.Errorf("ParseEditable of typed escapes = %q", got)
	}
}

// streamCases are texts cut every way by the stream tests and the fuzz
// target.
var streamCases = []string{
	"hello \x1b[31mred\x1b[0m and more",
	"before\x1b]0;title\x07after",
	"before\x1b]0;title\x1b\\after",
	"a\x1b]0;ti\x1b[1mb",
	"a\x1b]x\x1b]y\x1bPz\x1b[1mb",
	"x\u009b31my \u009d0;t\u009cz",
	"\x1b(Bq\x1b\x1bw",
	"one\r\ntwo\rthree\r",
	"日本語 \u202eevil\u202c テキスト",
	"text \x1b]0;never ends",
	"text \x1b",
	"tags \U000E0069\U000E0067\U000E006E done",
	"family 👨\u200D👩\u200D👧 and a\u200Db",
}

// Text sanitised piece by piece is what sanitising it whole gives, however
// it is cut.
func TestStreamAcrossPieces(t *testing.T) {
	for _, in := range streamCases {
		for _, clean := range []func(string) string{nil, Strip} {
			want := Screen(in)
			if clean != nil {
				want = clean(in)
			}
			for i := 0; i <= len(in); i++ {
				st := Stream{Clean: clean}
				if got := st.Write(in[:i]) + st.Write(in[i:]) + st.Flush(); got != want {
					t.Fatalf("%q cut at %d: got %q; want %q", in, i, got, want)
				}
			}
			st := Stream{Clean: clean}
			var b strings.Builder
			for i := range len(in) {
				b.WriteString(st.Write(in[i : i+1]))
			}
			b.WriteString(st.Flush())
			if got := b.String(); got != want {
				t.Errorf("%q byte by byte: got %q; want %q", in, got, want)
			}
		}
	}
}

// A control string that never ends is let through after maxHeld bytes: it
// cannot hide the rest of the answer.
func TestStreamHoldsBoundedly(t *testing.T) {
	var st Stream
	out := st.Write("a\x1b]0;")
	out += st.Write(strings.Repeat("x", maxHeld))
	if len(st.held) > maxHeld {
		t.Errorf("got %d bytes held; want at most %d", len(st.held), maxHeld)
	}
	if !strings.HasPrefix(out, "a0;xxx") {
		t.Errorf("got %q; want the text let through without the introducer", out)
	}
}

// The fast scan for text Strip leaves as it is agrees with a plain one.
func TestCleanPrefix(t *testing.T) {
	ref := func(s string) int {
		for i, r := range s {
			_, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 || r < ' ' && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f {
				return i
			}
		}
		return len(s)
	}
	for _, s := range []string{
		"", "plain ascii text, long enough to fill words\n\t",
		"\x1b[31mred\x1b[0m", "日本語 naïve \u00a0\u00ad", "\xff\xfe\xed\xa0\x80\xe0\x80\x80\xf4\x90\x80\x80\xc0\xaf",
		"a\r\nb\rc\x00\x7f\u0085", "12345678\x01abcdefgh\u0080", "1234567\u00e9\u0085", "abcdefgh\x7f",
		"abcdefghijklmnop\xc2", "abcdefgh\xe2\x80", "abcdefgh\xf0\x9f\x98", "abcdefgh\xf0\x9f\x98\x80x",
	} {
		if got, want := cleanPrefix(s), ref(s); got != want {
			t.Errorf("cleanPrefix(%q) = %d; want %d", s, got, want)
		}
	}
}

func TestWriter(t *testing.T) {
	var b strings.Builder
	w := NewWriter(&b)
	in := "file \x1b]0;title\x07.txt é\u200b\n"
	for i := range len(in) {
		if _, err := w.Write([]byte(in[i : i+1])); err != nil {
			t.Fatal(err)
		}
	}
	w.Write([]byte("\xe2\x80")) // an unfinished character at the end
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := Visible(in) + `\xe2\x80`; b.String() != want {
		t.Errorf("got %q; want %q", b.String(), want)
	}
}

func TestStripTags(t *testing.T) {
	hidden := "\U000E0069\U000E0067\U000E006E\U000E006F\U000E0072\U000E0065" // "ignore"
	if got := StripTags("a" + hidden + " b" + hidden); got != "a"+TagNote+" b"+TagNote {
		t.Errorf("StripTags = %q", got)
	}
	if got := StripTags("plain"); got != "plain" {
		t.Errorf("StripTags(plain) = %q", got)
	}
}
