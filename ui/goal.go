package ui

import (
	"context"
	"time"

	"myclaw/agent"
	"myclaw/approval"
)

// GoalRequest is what /goal asks for.
type GoalRequest struct {
	Text          string
	Check         string
	MaxIterations int
	TokenBudget   int
	TimeBudget    time.Duration
	Network       bool
	RollbackWorse bool
}

// GoalRunner is a backend that runs goals (/goal): it works toward the
// goal in iterations until the check passes, emitting the turns' events
// and the goal's, as Backend.Run does.
type GoalRunner interface {
	RunGoal(ctx context.Context, g GoalRequest, emit func(agent.Event), approver approval.Approver) error
}
