package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"myclaw/history"
	"myclaw/tools"
)

// Undo reverts the newest n reversible calls and tells the model, with the
// next message, what was reverted.
// A compaction is a step of the same history: when it is newer than the
// newest revertible call, that step uncompacts.
func (a *Agent) Undo(ctx context.Context, n int, force bool) (string, error) {
	if err := a.whole(); err != nil {
		return "", err
	}
	var lines []string
	for ; n > 0; n-- {
		a.mu.Lock()
		first := a.compactionIsNewest() && !a.running
		a.mu.Unlock()
		if !first {
			break
		}
		msg, err := a.Uncompact()
		if err != nil {
			return strings.Join(lines, "\n"), err
		}
		lines = append(lines, msg)
	}
	if n == 0 {
		return strings.Join(lines, "\n"), nil
	}
	out, err := a.walk("undo", n, func(j *history.Journal) ([]history.Outcome, error) {
		return j.Undo(ctx, n, force, a.resolver())
	})
	if len(lines) > 0 && out == "Nothing to undo." {
		out = ""
	}
	if out == "Nothing to undo." {
		if parent := a.Session().Info().Parent; parent != "" {
			out += " This session was forked from " + parent + ": its calls are undone there (/resume " + parent + ")."
		}
	}
	return strings.TrimSpace(strings.Join(append(lines, out), "\n")), err
}

// Redo re-applies the newest n undone calls.
func (a *Agent) Redo(ctx context.Context, n int) (string, error) {
	if err := a.whole(); err != nil {
		return "", err
	}
	return a.walk("redo", n, func(j *history.Journal) ([]history.Outcome, error) {
		return j.Redo(ctx, n, a.resolver())
	})
}

func (a *Agent) walk(op string, asked int, run func(*history.Journal) ([]history.Outcome, error)) (string, error) {
	a.mu.Lock()
	if a.running {
		a.mu.Unlock()
		return "", ErrBusy
	}
	j, s := a.journal, a.session
	a.mu.Unlock()
	outcomes, err := run(j)
	lines, note, err := DescribeWalk(op, outcomes, err)
	if short := Short(op, asked, outcomes); short != "" {
		lines = append(lines, short)
	}
	if note != "" {
		a.mu.Lock()
		a.notes = append(a.notes, note)
		a.mu.Unlock()
		if perr := s.Append("note", note); perr != nil {
			a.opts.Logf("persist note: %v", perr)
		}
	}
	return strings.Join(lines, "\n"), err
}

// Short says, when fewer calls than asked were walked back, that there was
// nothing more: "Nothing more to undo (1 of 5 asked)."; "" otherwise.
func Short(op string, asked int, outcomes []history.Outcome) string {
	// The calls of one group (a goal's iteration) are one step.
	done, group := 0, ""
	for _, o := range outcomes {
		if o.Done && (o.Entry.Group == "" || o.Entry.Group != group) {
			done++
		}
		if o.Done {
			group = o.Entry.Group
		}
	}
	if done == 0 || done >= asked {
		return ""
	}
	return fmt.Sprintf("Nothing more to %s (%d of %d asked).", op, done, asked)
}

// DescribeWalk turns what an undo or redo (op "undo" or "redo") did into
// lines for people and the note the model is given with the next message
// (empty when nothing was reverted). Having nothing to walk back is said,
// not returned as an error.
func DescribeWalk(op string, outcomes []history.Outcome, err error) (lines []string, note string, _ error) {
	if errors.Is(err, history.ErrNothingToUndo) || errors.Is(err, history.ErrNothingToRedo) {
		err = nil
	}
	var done []string
	skippedOnly := len(outcomes) > 0
	for _, o := range outcomes {
		lines = append(lines, o.Message)
		var c *tools.Conflict
		if errors.As(o.Err, &c) && c.Diff != "" {
			// What changed since, so the person can judge a forced undo.
			lines = append(lines, "What changed since the call:")
			for l := range strings.SplitSeq(c.Diff, "\n") {
				lines = append(lines, "    "+l)
			}
		}
		if o.Done {
			done = append(done, fmt.Sprintf("%s (%s)", o.Entry.Tool, o.Entry.Summary))
		}
		skippedOnly = skippedOnly && o.Skipped
	}
	if (len(lines) == 0 || skippedOnly) && err == nil {
		lines = append(lines, "Nothing to "+op+".")
	}
	if len(done) > 0 {
		if op == "redo" {
			note = fmt.Sprintf("The user redid these tool calls that had been undone; their changes are back in place: %s.", strings.Join(done, "; "))
		} else {
			note = fmt.Sprintf("The user undid these earlier tool calls; the files are as they were before them: %s.", strings.Join(done, "; "))
		}
	}
	return lines, note, err
}

// resolver finds the Reverter of a registered tool.
func (a *Agent) resolver() history.Resolver {
	return history.RegistryResolver(a.opts.Registry)
}
