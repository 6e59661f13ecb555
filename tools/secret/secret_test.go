package secret

import (
	"strings"
	"testing"
)

func TestRedactRegisteredValues(t *testing.T) {
	const key, longer = "provider-key-7d1e0b", "provider-key-7d1e0b-and-more"
	Add(key+"\n", longer, "short", "")
	for in, want := range map[string]string{
		"LLM_AUTH=" + key + "\n":  "LLM_AUTH=" + Mark + "\n",
		"x" + longer + "x":        "x" + Mark + "x",
		"a short word, no secret": "a short word, no secret",
		key + key:                 Mark + Mark,
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q; want %q", in, got, want)
		}
	}
	if !Is(key) || !Is(" "+key+"\n") || Is("short") || Is(key[:10]) {
		t.Error("Is: want exact registered values only, white space aside, never short ones")
	}
}

func TestPending(t *testing.T) {
	const key = "stream-secret-91aa0c"
	Add(key)
	for s, want := range map[string]int{
		"output ends with stream-sec": len("stream-sec"),
		"output ends with " + key:     0,
		"nothing to hold":             0,
		"s":                           1,
	} {
		if got := Pending(s); got != want {
			t.Errorf("Pending(%q) = %d; want %d", s, got, want)
		}
	}
	if strings.Contains(Redact("x "+key), key) {
		t.Error("key not redacted")
	}
}
