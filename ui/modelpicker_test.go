package ui

import (
	"errors"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

func modelPickerModel(t *testing.T, w, h int) (Model, *fakeBackend) {
	f := newFake()
	f.models = []string{"llama3.1:8b", "qwen2.5-coder:7b", "test-model", "qwen2.5-coder:14b", "mistral-nemo:12b", "deepseek-r1:14b"}
	m := update(newTestModel(t, f), sizeMsg(w, h))
	return runLine(t, m, "/model"), f
}

// /model alone is a picker of the server's models: the one in use is
// selected, arrows move, typing filters, enter switches.
func TestModelPicker(t *testing.T) {
	for _, size := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"120x40", 120, 40}} {
		t.Run(size.name, func(t *testing.T) {
			m, f := modelPickerModel(t, size.w, size.h)
			if m.picker == nil {
				t.Fatalf("/model opened no picker:\n%s", screen(m))
			}
			golden.RequireEqual(t, []byte(screen(m)))

			m = typeText(m, "coder")
			m = update(m, keyMsg("down"))
			t.Run("filtered", func(t *testing.T) { golden.RequireEqual(t, []byte(screen(m))) })
			m, cmd := updateCmd(m, keyMsg("enter"))
			m = runCmd(t, m, cmd)
			if f.Model() != "qwen2.5-coder:14b" || m.picker != nil {
				t.Fatalf("model %s after picking the second coder; want qwen2.5-coder:14b and the picker closed", f.Model())
			}
			if got := lastBlock(m); !strings.Contains(got, "model set to qwen2.5-coder:14b") {
				t.Errorf("after the pick: %q", got)
			}
		})
	}
}

// Esc leaves the model as it was; letters that move other lists (j, k)
// filter this one; backspace widens it again; a filter nothing holds says
// so and enter then does nothing.
func TestModelPickerFilterAndCancel(t *testing.T) {
	m, f := modelPickerModel(t, 80, 24)
	m = typeText(m, "jk")
	if got := strings.Join(m.bottomView(), "\n"); !strings.Contains(got, `nothing holds "jk"`) {
		t.Fatalf("filter jk:\n%s", got)
	}
	if m, cmd := updateCmd(m, keyMsg("enter")); cmd != nil || m.picker == nil {
		t.Fatal("enter on an empty list picked something or closed the picker")
	}
	m = update(update(m, keyMsg("backspace")), keyMsg("backspace"))
	m = typeText(m, "DEEP")
	if items := m.picker.shown(); len(items) != 1 || items[0].value != "deepseek-r1:14b" {
		t.Fatalf("filter DEEP shows %v; want deepseek-r1:14b alone (case does not matter)", items)
	}
	m = update(m, keyMsg("esc"))
	if m.picker != nil || f.Model() != "test-model" {
		t.Fatalf("esc: picker %v, model %s; want it closed and the model kept", m.picker != nil, f.Model())
	}
}

// Without a list from the server, /model says which model is in use and
// why there is nothing to pick from.
func TestModelPickerWithoutAList(t *testing.T) {
	f := newFake()
	f.modelsErr = errors.New("404 page not found")
	m := runLine(t, newTestModel(t, f), "/model")
	if got := lastBlock(m); m.picker != nil || !strings.Contains(got, "model: test-model") || !strings.Contains(got, "404 page not found") {
		t.Errorf("/model without a list: %q", got)
	}
}
