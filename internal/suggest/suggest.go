// Package suggest finds the name a person or a model most likely meant
// when the one they gave does not exist: a config key, a slash command, a
// tool. It depends on nothing in myclaw, so the config loader, the TUI
// and the tool registry share one measure without depending on each other.
package suggest

// EditDistance is the Levenshtein distance between a and b, counted in
// characters (runes).
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
