package approval

import "context"

// HeadlessReason is the denial reason Headless gives; the model reads it as
// the hint of its permission_denied error.
const HeadlessReason = "This session runs headless, without a person to approve calls, and the " +
	"autonomy level and rules ask for approval of this one, so it was denied. Carry on without " +
	"it if you can (read-only tools still work), or finish and tell the user which call needs " +
	"approval: they can allow it with an [[approval.rules]] entry in the config or a higher --autonomy level."

// Headless never waits for a person: it denies every call that would have
// asked, telling the model the session runs without a person to approve.
// What the level and rules allow never reaches it.
type Headless struct{}

// Approve implements Approver. It returns at once: a denial by "headless"
// whose Reason is HeadlessReason followed by req.Why when there is one, or
// ctx.Err() if ctx has already ended.
func (Headless) Approve(ctx context.Context, req Request) (Decision, error) {
	if err := ctx.Err(); err != nil {
		return Decision{}, err
	}
	reason := HeadlessReason
	if req.Why != "" {
		reason += " (It asked because " + req.Why + ".)"
	}
	return Decision{Choice: Deny, Reason: reason, By: "headless"}, nil
}
