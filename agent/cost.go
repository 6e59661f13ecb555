package agent

// Prices are USD per million tokens, from the config; zero when unknown.
type Prices struct {
	Input, Output float64
}

// CostReport is the session's use of the model so far.
type CostReport struct {
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
	Prices     Prices
}

// addUsage adds one request's usage to the session's totals; a.mu is held.
func (a *Agent) addUsage(ev UsageEvent) {
	t := &a.totals
	first := t.Requests == 0
	t.Requests++
	t.PromptTokens += ev.PromptTokens
	t.CompletionTokens += ev.CompletionTokens
	t.Estimated = t.Estimated || ev.Estimated
	p := a.opts.Prices
	switch {
	case ev.Cost != nil:
		t.Cost += *ev.Cost
		t.ServerCost = true
		t.CostKnown = first || t.CostKnown
	case p.Input > 0 || p.Output > 0:
		t.Cost += float64(ev.PromptTokens)*p.Input/1e6 + float64(ev.CompletionTokens)*p.Output/1e6
		t.CostKnown = first || t.CostKnown
	default:
		t.CostKnown = false
	}
}

// Cost reports the session's totals (since myclaw started).
func (a *Agent) Cost() CostReport {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := a.totals
	r.Prices = a.opts.Prices
	return r
}
