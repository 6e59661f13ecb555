package ui

import (
	"fmt"

	"myclaw/tools"
)

// planMaxLines bounds the checklist above the input: the steps around the
// one in progress are shown, the rest counted.
const planMaxLines = 6

// planView is the model's plan (todo_write) as a checklist above the input.
// It stays while any step is open and goes once every step is done and the
// turn has ended.
func (m Model) planView() []string {
	items := m.plan
	if len(items) == 0 {
		return nil
	}
	st := &m.c.styles
	w := m.c.contentWidth()
	done, current := 0, -1
	for i, it := range items {
		switch it.Status {
		case tools.PlanDone:
			done++
		case tools.PlanInProgress:
			current = i
		}
	}
	if done == len(items) && m.turn == nil {
		return nil
	}
	// A window of steps around the current one (or the first open one).
	if current < 0 {
		current = done
	}
	from := max(0, min(current-1, len(items)-planMaxLines))
	to := min(len(items), from+planMaxLines)
	out := []string{truncate(" "+st.Dim.Render(fmt.Sprintf("plan · %d of %d done", done, len(items))), w)}
	for _, it := range items[from:to] {
		mark, style := "☐ ", st.Dim.Render
		switch it.Status {
		case tools.PlanDone:
			mark, style = "☑ ", st.OK.Render
		case tools.PlanInProgress:
			mark, style = "▶ ", st.Bold.Render
		}
		out = append(out, truncate("   "+style(mark+oneLine(it.Text)), w))
	}
	if rest := len(items) - to + from; rest > 0 {
		out = append(out, truncate("   "+st.Dim.Render(fmt.Sprintf("… %d more", rest)), w))
	}
	return out
}
