package ui

import (
	"strings"
	"testing"
)

func TestModelCommand(t *testing.T) {
	f := newFake()
	f.models = []string{"qwen2.5-coder:7b", "qwen2.5-coder:14b", "llama3.1:latest"}
	m := runLine(t, newTestModel(t, f), "/model")
	if got := strings.Join(m.bottomView(), "\n"); m.picker == nil || !strings.Contains(got, "qwen2.5-coder:14b") || !strings.Contains(got, "llama3.1:latest") {
		t.Fatalf("/model offers %q", got)
	}
	m = update(m, keyMsg("esc"))
	m = runLine(t, m, "/model gpt-9")
	if got := lastBlock(m); !strings.Contains(got, `no model "gpt-9"`) || f.Model() != "test-model" {
		t.Fatalf("/model gpt-9: %q, model %s; want it refused and the old one kept", got, f.Model())
	}
	m = runLine(t, m, "/model llama3.1")
	if f.Model() != "llama3.1" {
		t.Fatalf("model %s after /model llama3.1; want it set (:latest may be left out)", f.Model())
	}
	// Tab completes a name from the server's list.
	m = update(m, modelsMsg{list: f.models})
	m = typeText(m, "/model ll")
	m = update(m, keyMsg("tab"))
	if got := m.input.ta.value(); got != "/model llama3.1:latest" {
		t.Fatalf("completed to %q", got)
	}
	m.input.setValue("/model qw")
	m = update(m, keyMsg("tab"))
	if got := m.input.ta.value(); got != "/model qwen2.5-coder:" {
		t.Fatalf("completed to %q; want the shared prefix", got)
	}
}

type saverFake struct {
	*fakeBackend
	saved []string
}

func (s *saverFake) SaveModel(name string) (string, error) {
	s.saved = append(s.saved, name)
	return `model = "` + name + `" in /cfg/config.toml`, nil
}

func TestModelSave(t *testing.T) {
	f := &saverFake{fakeBackend: newFake()}
	f.models = []string{"qwen2.5-coder:7b", "llama3.1:8b"}
	m := runLine(t, newTestModel(t, f), "/model nope --save")
	if len(f.saved) != 0 || !strings.Contains(lastBlock(m), "has no model \"nope\"") {
		t.Fatalf("a refused model was saved (%v): %q", f.saved, lastBlock(m))
	}
	m = runLine(t, m, "/model llama3.1:8b --save")
	if len(f.saved) != 1 || f.saved[0] != "llama3.1:8b" || f.Model() != "llama3.1:8b" {
		t.Fatalf("saved %v, model %s", f.saved, f.Model())
	}
	found := false
	for _, b := range m.tr.blocks {
		found = found || strings.Contains(strings.Join(strings.Fields(strings.Join(b.lines(m.c), " ")), " "), `saved as the default: model = "llama3.1:8b" in /cfg/config.toml`)
	}
	if !found {
		t.Fatalf("no line says where the model was saved:\n%s", screen(m))
	}
	m = runLine(t, m, "/model qwen2.5-coder:7b")
	if len(f.saved) != 1 || !strings.Contains(strings.Join(strings.Fields(screen(m)), " "), "--save makes it the default") {
		t.Fatalf("a plain switch saved (%v) or did not say how to keep it:\n%s", f.saved, screen(m))
	}
}

// Tab completes /model to names that can be typed as themselves: a name
// the server lists with a control or hidden character or a blank is left
// to the picker, and the completion does not fall back to another.
func TestModelCompletionLeavesOutNamesThatCannotBeTyped(t *testing.T) {
	list := []string{"qwen\x1b[31m-evil", "qwen\u202e-rtl", "qwen two", "llama3"}
	if got, ok := completeModel(list, "qw"); ok || got != "" {
		t.Errorf("completeModel(qw) = %q, %v; want nothing", got, ok)
	}
	if got, ok := completeModel(append(list, "qwen2.5-coder"), "qw"); !ok || got != "qwen2.5-coder" {
		t.Errorf("completeModel(qw) = %q, %v; want qwen2.5-coder", got, ok)
	}
}
