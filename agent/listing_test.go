package agent

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"myclaw/approval"
)

// modelsServer answers /v1/models once released, counting the requests.
type modelsServer struct {
	*fakeServer
	asked   atomic.Int32
	arrived chan struct{}
	release chan struct{}
	gone    chan struct{} // a request whose client went away
}

func newModelsServer(t *testing.T) *modelsServer {
	s := &modelsServer{fakeServer: &fakeServer{t: t}, arrived: make(chan struct{}, 8), release: make(chan struct{}), gone: make(chan struct{}, 8)}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		s.asked.Add(1)
		s.arrived <- struct{}{}
		select {
		case <-s.release:
			io.WriteString(w, `{"object":"list","data":[{"id":"test-model","object":"model"}]}`)
		case <-r.Context().Done():
			s.gone <- struct{}{}
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// waiters is how many calls wait for the listing under way.
func waiters(a *Agent) int {
	a.listing.mu.Lock()
	defer a.listing.mu.Unlock()
	if a.listing.f == nil {
		return 0
	}
	return a.listing.f.waiters
}

// until polls cond (no timing is asserted: the limit only ends a hung test).
func until(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("gave up waiting")
		}
	}
}

// At start the server check and the TUI's list for /model ask for the
// models at once: one request answers both. A call after it asks anew.
func TestTheServerCheckAndTheModelListShareOneRequest(t *testing.T) {
	s := newModelsServer(t)
	h := newHarness(t, approval.Ask, s.fakeServer, func(o *Options) { o.ContextWindow = 32768 })
	ctx := context.Background()
	checked := make(chan error, 1)
	go func() { checked <- h.agent.CheckServer(ctx) }()
	<-s.arrived
	listed := make(chan []string, 1)
	go func() {
		list, err := h.agent.Models(ctx)
		if err != nil {
			t.Error(err)
		}
		listed <- list
	}()
	until(t, func() bool { return waiters(h.agent) == 2 })
	close(s.release)
	if err := <-checked; err != nil {
		t.Fatalf("check: %v", err)
	}
	if list := <-listed; len(list) != 1 || list[0] != "test-model" {
		t.Fatalf("listed %q", list)
	}
	if n := s.asked.Load(); n != 1 {
		t.Fatalf("%d requests for the models; want one for both", n)
	}
	if list, err := h.agent.Models(ctx); err != nil || len(list) != 1 {
		t.Fatalf("a later call: %q, %v", list, err)
	}
	if n := s.asked.Load(); n != 2 {
		t.Fatalf("%d requests after a later call; want it to ask anew", n)
	}
}

// A caller that gives up returns at once and leaves the request to those
// still waiting; when all have given up, the request is cancelled.
func TestAListingWaitsOnlyForThoseWhoWait(t *testing.T) {
	s := newModelsServer(t)
	h := newHarness(t, approval.Ask, s.fakeServer)
	first, cancelFirst := context.WithCancel(context.Background())
	firstDone := make(chan error, 1)
	go func() {
		_, err := h.agent.Models(first)
		firstDone <- err
	}()
	<-s.arrived
	secondDone := make(chan error, 1)
	go func() {
		list, err := h.agent.Models(context.Background())
		if err == nil && len(list) != 1 {
			t.Errorf("listed %q", list)
		}
		secondDone <- err
	}()
	until(t, func() bool { return waiters(h.agent) == 2 })
	cancelFirst()
	if err := <-firstDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("the caller that gave up got %v", err)
	}
	close(s.release)
	if err := <-secondDone; err != nil {
		t.Fatalf("the caller still waiting got %v; want the list", err)
	}

	s = newModelsServer(t)
	h = newHarness(t, approval.Ask, s.fakeServer)
	alone, cancelAlone := context.WithCancel(context.Background())
	aloneDone := make(chan error, 1)
	go func() {
		_, err := h.agent.Models(alone)
		aloneDone <- err
	}()
	<-s.arrived
	cancelAlone()
	if err := <-aloneDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("the caller that gave up got %v", err)
	}
	<-s.gone // cancelled, with no one left waiting
	if waiters(h.agent) != 0 {
		t.Fatal("the abandoned listing is still offered to the next caller")
	}
}
