package history

// Listed is the sessions of list worth offering to continue: those with
// something in them, as Latest (which --continue follows) passes over the
// empty ones (a run opened and quit at once, or one that only opened
// another session), and keep, the session in use, even while it is empty.
// keep "" keeps none of the empty ones.
func Listed(list []SessionInfo, keep string) []SessionInfo {
	out := make([]SessionInfo, 0, len(list))
	for _, s := range list {
		if !s.Empty || (keep != "" && s.ID == keep) {
			out = append(out, s)
		}
	}
	return out
}
