package history

import (
	"slices"
	"testing"
)

func TestListed(t *testing.T) {
	list := []SessionInfo{{ID: "a"}, {ID: "b", Empty: true}, {ID: "c"}, {ID: "d", Empty: true}}
	tests := []struct {
		name, keep string
		want       []string
	}{
		{"the empty ones left out", "", []string{"a", "c"}},
		{"the one in use kept though empty", "d", []string{"a", "c", "d"}},
		{"keep of a full one changes nothing", "a", []string{"a", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, s := range Listed(list, tt.keep) {
				got = append(got, s.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Listed(keep %q) = %v; want %v", tt.keep, got, tt.want)
			}
		})
	}
}
