package builtin

import "testing"

func TestWsStoredName(t *testing.T) {
	entries := []string{"README.md", "Src", "cafe\u0301", "other"}
	sameAll := func(string) bool { return true }
	sameNone := func(string) bool { return false }
	tests := []struct {
		name string
		same func(string) bool
		want string
	}{
		{"README.md", sameNone, "README.md"}, // listed as asked
		{"readme.MD", sameAll, "README.md"},  // another case of the same file
		{"src", sameAll, "Src"},              //
		{"caf\u00e9", sameAll, "cafe\u0301"}, // NFC asked, NFD stored
		{"CAF\u00c9", sameAll, "cafe\u0301"}, // and another case
		{"readme.md", sameNone, "readme.md"}, // a case-sensitive volume: a different file
		{"missing", sameAll, "missing"},      // nothing alike
		{"othe", sameAll, "othe"},            // a prefix is not a match
	}
	for _, tt := range tests {
		if got := wsStoredName(tt.name, entries, tt.same); got != tt.want {
			t.Errorf("wsStoredName(%q) = %q; want %q", tt.name, got, tt.want)
		}
	}
}

func TestWsPathWithinFolded(t *testing.T) {
	tests := []struct {
		rel, dir string
		want     bool
	}{
		{".local/state/myclaw", ".local/state/myclaw", true},
		{".LOCAL/State/MyClaw/sessions/x", ".local/state/myclaw", true},
		{"cafe\u0301/x", "caf\u00e9", true},
		{"\u212Aey/x", "key", true}, // KELVIN SIGN folds to k
		{".local/state/myclawx", ".local/state/myclaw", false},
		{".local/state", ".local/state/myclaw", false},
		{"other/.local/state/myclaw", ".local/state/myclaw", false},
	}
	for _, tt := range tests {
		if got := wsPathWithinFolded(tt.rel, tt.dir); got != tt.want {
			t.Errorf("wsPathWithinFolded(%q, %q) = %v; want %v", tt.rel, tt.dir, got, tt.want)
		}
	}
}
