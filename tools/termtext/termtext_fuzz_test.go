package termtext

import "testing"

// FuzzSanitise: whatever the input, every function's result is inert,
// Strip and Screen change nothing the second time, Editable comes back
// byte for byte, and a Stream cut anywhere gives what the whole text gives.
func FuzzSanitise(f *testing.F) {
	for _, s := range streamCases {
		f.Add(s, len(s)/2)
	}
	f.Add("bad \xff\xfe bytes \u009b and \U000E0041", 5)
	f.Fuzz(func(t *testing.T, s string, cut int) {
		for name, clean := range map[string]func(string) string{
			"Strip": Strip, "Screen": Screen, "Visible": Visible, "Editable": Editable,
			"OneLine": func(s string) string { return OneLine(s, 20) },
		} {
			if got := clean(s); !IsInert(got) {
				t.Fatalf("%s(%q) = %q is not inert", name, s, got)
			}
		}
		if got := Strip(s); Strip(got) != got {
			t.Fatalf("Strip(%q) = %q changes again", s, got)
		}
		if got := Screen(s); Screen(got) != got {
			t.Fatalf("Screen(%q) = %q changes again", s, got)
		}
		if got := ParseEditable(Editable(s)); got != s {
			t.Fatalf("ParseEditable(Editable(%q)) = %q", s, got)
		}
		// Past maxHeld a Stream lets an unfinished sequence through on
		// purpose, so only shorter texts must match exactly.
		if len(s) > maxHeld {
			return
		}
		cut = min(max(cut, 0), len(s))
		for _, clean := range []func(string) string{Screen, Strip} {
			st := Stream{Clean: clean}
			if got, want := st.Write(s[:cut])+st.Write(s[cut:])+st.Flush(), clean(s); got != want {
				t.Fatalf("%q cut at %d: got %q; want %q", s, cut, got, want)
			}
		}
	})
}
