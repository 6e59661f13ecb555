package agent

import (
	"context"
	"slices"
	"sync"
)

// sharedListing lets calls for the server's models made while one is under
// way wait for its answer rather than ask again: at start, the server check
// and the TUI's list for /model ask at once.
type sharedListing struct {
	mu sync.Mutex
	f  *listingFlight
}

// listingFlight is one request for the models, and those waiting for it.
type listingFlight struct {
	done    chan struct{}
	list    []string
	err     error
	waiters int
	cancel  context.CancelFunc
}

// listModels asks the server for its models, or waits for the request
// under way. That request runs until it ends or every caller has given
// up; a caller whose ctx ends returns at once with ctx's error.
func (a *Agent) listModels(ctx context.Context) ([]string, error) {
	s := &a.listing
	s.mu.Lock()
	f := s.f
	if f == nil {
		// Not the first caller's cancellation: another caller may still
		// wait. Its values are kept.
		fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &listingFlight{done: make(chan struct{}), cancel: cancel}
		s.f = f
		go func() {
			list, err := a.opts.Client.Models(fctx)
			cancel()
			s.mu.Lock()
			f.list, f.err = list, err
			if s.f == f {
				s.f = nil
			}
			s.mu.Unlock()
			close(f.done)
		}()
	}
	f.waiters++
	s.mu.Unlock()
	select {
	case <-f.done:
		return slices.Clone(f.list), f.err
	case <-ctx.Done():
		s.mu.Lock()
		if f.waiters--; f.waiters == 0 {
			// No one is left to use it: the next caller asks anew.
			f.cancel()
			if s.f == f {
				s.f = nil
			}
		}
		s.mu.Unlock()
		return nil, ctx.Err()
	}
}
