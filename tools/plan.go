package tools

// PlanItem is one step of the model's plan.
type PlanItem struct {
	Text   string `json:"text"`
	Status string `json:"status"` // pending, in_progress, done
}

// Plan statuses.
const (
	PlanPending    = "pending"
	PlanInProgress = "in_progress"
	PlanDone       = "done"
)
