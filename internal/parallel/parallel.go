// Package parallel splits work over a few cores.
package parallel

import (
	"runtime"
	"sync"
)

// Ranges runs do over 0..n in a few ranges at once, one a core (at most
// four, and one for fewer than 512 items, where starting goroutines costs
// more than it saves).
func Ranges(n int, do func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), 4, n/512+1)
	if workers <= 1 {
		do(0, n)
		return
	}
	var wg sync.WaitGroup
	step := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += step {
		wg.Go(func() { do(lo, min(lo+step, n)) })
	}
	wg.Wait()
}
