package ui

// Expand is the prompt of the command run with args, for a front end other
// than the TUI (an editor's slash command): $ARGUMENTS and $1…$9 filled in.
func (c CustomCommand) Expand(args string) string { return c.expand(args) }
