package agent

// Reasons a goal run ends (GoalResultEvent.Reason).
const (
	GoalPassed        = "passed"
	GoalMaxIterations = "max_iterations"
	GoalTokenBudget   = "token_budget"
	GoalTimeBudget    = "time_budget"
	GoalRepeated      = "repeated"
	GoalCancelled     = "cancelled"
	GoalError         = "error"
)

// Steps of an iteration (GoalStepEvent.Step).
const (
	GoalStepTurn  = "turn"
	GoalStepCheck = "check"
)

// GoalBudget is what a goal run has used of its budgets so far.
type GoalBudget struct {
	Iteration     int `json:"iteration"`
	MaxIterations int `json:"max_iterations"`
	TokensUsed    int `json:"tokens_used"`
	// TokenBudget and TimeBudgetMS are 0 when there is no such budget.
	TokenBudget  int   `json:"token_budget,omitempty"`
	ElapsedMS    int64 `json:"elapsed_ms"`
	TimeBudgetMS int64 `json:"time_budget_ms,omitempty"`
}

// GoalStepEvent says what a goal run does now: the model's turn of an
// iteration, or the check after it.
type GoalStepEvent struct {
	Step   string     `json:"step"`
	Check  string     `json:"check"`
	Budget GoalBudget `json:"budget"`
}

// GoalCheck is what one run of the check said.
type GoalCheck struct {
	Passed   bool `json:"passed"`
	ExitCode int  `json:"exit_code"`
	// Failures counts the failures the output names (see CountFailures);
	// 0 when the check passed.
	Failures int `json:"failures"`
}

// GoalIterationEvent is the check's verdict on one iteration.
type GoalIterationEvent struct {
	Iteration int    `json:"iteration"`
	Check     string `json:"check"`
	GoalCheck
	// Changed says the workspace's files differ from what the previous
	// check (or the start of the run) saw.
	Changed bool `json:"changed"`
	// Output is the end of the check's output, for people (raw: sanitise
	// before showing).
	Output string `json:"output"`
	// RolledBack says the iteration's changes were undone because the
	// check got worse; RollbackNote says why one could not be.
	RolledBack   bool       `json:"rolled_back,omitempty"`
	RollbackNote string     `json:"rollback_note,omitempty"`
	Budget       GoalBudget `json:"budget"`
}

// GoalBest is the best state a goal run reached.
type GoalBest struct {
	Iteration int `json:"iteration"`
	GoalCheck
	// UndoSteps is how many /undo steps take the workspace back to the
	// state that iteration left (0: it is in that state).
	UndoSteps int `json:"undo_steps"`
}

// GoalResultEvent ends a goal run.
type GoalResultEvent struct {
	Passed     bool   `json:"passed"`
	Reason     string `json:"reason"`
	Iterations int    `json:"iterations"`
	// Best is the last passing iteration, else the one with the fewest
	// failures; nil when no check ran.
	Best    *GoalBest  `json:"best,omitempty"`
	Message string     `json:"message"`
	Budget  GoalBudget `json:"budget"`
}

// Type implements Event.
func (GoalStepEvent) Type() string { return "goal_step" }

// Type implements Event.
func (GoalIterationEvent) Type() string { return "goal_iteration" }

// Type implements Event.
func (GoalResultEvent) Type() string { return "goal_result" }
