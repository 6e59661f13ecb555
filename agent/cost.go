package agent

import (
	"slices"
	"strings"

	"github.com/sashabaranov/go-openai"

	"myclaw/agent/chat"
	"myclaw/history"
)

// Prices are USD per million tokens, from the config; zero when unknown.
type Prices struct {
	Input, Output float64
}

// What a request to the model was for, as /cost splits them.
const (
	// RequestTurn is a round of a turn: the conversation and the tools.
	RequestTurn = "turn"
	// RequestCompaction asks for the summary that replaces older messages.
	RequestCompaction = "compaction"
	// RequestSampling is an MCP server's request (sampling/createMessage).
	RequestSampling = "sampling"
)

// requestKinds orders the kinds in a report.
var requestKinds = []string{RequestTurn, RequestCompaction, RequestSampling, RequestSubagent}

// Usage sums requests to the model.
type Usage struct {
	Requests         int
	PromptTokens     int
	CompletionTokens int
	// Estimated is set when some counts were estimated (the server sent
	// no usage for them).
	Estimated bool
	// Cost is in USD; CostKnown says whether every request could be
	// priced (by the server's own figure, or by the configured prices).
	// ServerCost says the figure comes, at least in part, from the server.
	Cost       float64
	CostKnown  bool
	ServerCost bool
}

// KindUsage is the usage of one kind of request (RequestTurn …).
type KindUsage struct {
	Kind string
	Usage
}

// CostReport is the session's use of the model: every run of it that
// myclaw recorded, split by kind of request, and this run's part.
type CostReport struct {
	Usage
	Kinds []KindUsage
	// Run is the part of this run (since the session was opened).
	Run Usage
	// Uncounted says the session has answers from before myclaw recorded
	// usage in the transcript: the totals leave those requests out.
	Uncounted bool
	Prices    Prices
}

// usageRecord is the transcript record of one request ("usage"), so that
// a resumed session's cost goes on from its total. Cost is nil when the
// request could not be priced; it is the price at the time of the request.
type usageRecord struct {
	Kind             string   `json:"kind"`
	Model            string   `json:"model,omitempty"`
	PromptTokens     int      `json:"prompt_tokens"`
	CompletionTokens int      `json:"completion_tokens"`
	Estimated        bool     `json:"estimated,omitempty"`
	Cost             *float64 `json:"cost_usd,omitempty"`
	ServerCost       bool     `json:"server_cost,omitempty"`
}

func (u *Usage) add(r usageRecord) {
	first := u.Requests == 0
	u.Requests++
	u.PromptTokens += r.PromptTokens
	u.CompletionTokens += r.CompletionTokens
	u.Estimated = u.Estimated || r.Estimated
	if r.Cost == nil {
		u.CostKnown = false
		return
	}
	u.Cost += *r.Cost
	u.ServerCost = u.ServerCost || r.ServerCost
	u.CostKnown = first || u.CostKnown
}

// sessionUsage is what the session used: loaded from its transcript, plus
// this run's requests.
type sessionUsage struct {
	total, run Usage
	kinds      map[string]Usage
	uncounted  bool
}

func (s *sessionUsage) add(r usageRecord, thisRun bool) {
	s.total.add(r)
	if thisRun {
		s.run.add(r)
	}
	if s.kinds == nil {
		s.kinds = map[string]Usage{}
	}
	k := s.kinds[r.Kind]
	k.add(r)
	s.kinds[r.Kind] = k
}

// loadUsage sums the usage records of a transcript. A fork's copy of its
// parent's records is left out: those requests were the parent's.
func loadUsage(records []history.Record, dec *loaded, info history.SessionInfo) sessionUsage {
	var u sessionUsage
	answered := false
	for i, r := range records {
		if info.Parent != "" && r.Time.Before(info.Created) {
			continue
		}
		switch r.Kind {
		case "usage":
			if rec, ok := dec.usageAt(i); ok {
				u.add(rec, false)
			}
		case "message":
			if m, err := dec.message(i); err == nil && m.Role == openai.ChatMessageRoleAssistant && u.total.Requests == 0 {
				// Every answer is recorded after its usage: this one
				// came from a myclaw that kept none.
				answered = true
			}
		}
	}
	u.uncounted = answered
	return u
}

// usageOf is what a request used: the server's counts, or an estimate of
// the request and the answer when it sent none.
func usageOf(comp chat.Completion, req openai.ChatCompletionRequest) UsageEvent {
	var ev UsageEvent
	if comp.Usage != nil && comp.Usage.TotalTokens > 0 {
		ev.PromptTokens, ev.CompletionTokens, ev.TotalTokens = comp.Usage.PromptTokens, comp.Usage.CompletionTokens, comp.Usage.TotalTokens
	} else {
		ev.PromptTokens = estimateRequest(req)
		ev.CompletionTokens = estimateText(comp.Content) + estimateText(comp.Reasoning)
		for _, c := range comp.ToolCalls {
			ev.CompletionTokens += estimateText(c.Function.Arguments) + 8
		}
		ev.TotalTokens = ev.PromptTokens + ev.CompletionTokens
		ev.Estimated = true
	}
	ev.Cost = comp.Cost
	if comp.CachedTokens != nil && !ev.Estimated {
		n := min(*comp.CachedTokens, ev.PromptTokens)
		ev.CachedTokens = &n
	}
	return ev
}

// count adds one request to the session's usage and records it in the
// transcript.
func (a *Agent) count(ev UsageEvent, model string) {
	rec := usageRecord{Kind: ev.Kind, Model: model, PromptTokens: ev.PromptTokens, CompletionTokens: ev.CompletionTokens, Estimated: ev.Estimated}
	p := a.opts.Prices
	switch {
	case ev.Cost != nil:
		c := *ev.Cost
		rec.Cost, rec.ServerCost = &c, true
	case p.Input > 0 || p.Output > 0:
		c := float64(ev.PromptTokens)*p.Input/1e6 + float64(ev.CompletionTokens)*p.Output/1e6
		rec.Cost = &c
	}
	a.mu.Lock()
	a.usage.add(rec, true)
	s := a.session
	a.mu.Unlock()
	if err := s.Append("usage", rec); err != nil {
		a.opts.Logf("record usage: %v", err)
	}
}

// Cost reports the session's totals.
func (a *Agent) Cost() CostReport {
	_ = a.ready()
	a.mu.Lock()
	defer a.mu.Unlock()
	u := a.usage
	r := CostReport{Usage: u.total, Run: u.run, Uncounted: u.uncounted, Prices: a.opts.Prices}
	for k, v := range u.kinds {
		r.Kinds = append(r.Kinds, KindUsage{Kind: k, Usage: v})
	}
	// The known kinds in their order, then any a newer myclaw recorded.
	rank := func(k string) int {
		if i := slices.Index(requestKinds, k); i >= 0 {
			return i
		}
		return len(requestKinds)
	}
	slices.SortFunc(r.Kinds, func(x, y KindUsage) int {
		if d := rank(x.Kind) - rank(y.Kind); d != 0 {
			return d
		}
		return strings.Compare(x.Kind, y.Kind)
	})
	return r
}
