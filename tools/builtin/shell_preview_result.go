package builtin

import "myclaw/tools"

// Result is what the previewed command returned (its output), for a
// caller that only looks and discards the layer (explore agents).
func (r *PreviewRun) Result() tools.Result { return r.result }

// Changed counts the changes the command left in the layer.
func (r *PreviewRun) Changed() int { return len(r.changes) }
