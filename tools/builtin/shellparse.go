package builtin

import (
	"strings"

	"myclaw/tools"
	"myclaw/tools/shell"
)

// ParseCommandLine parses a bash command line with the one table of shell
// knowledge (tools/shell); workspace (absolute) is where writes stay in.
func ParseCommandLine(src, workspace string) (tools.CommandLine, error) {
	return shell.Parse(src, workspace)
}

// readsOnly reports whether the command line plainly changes nothing: every
// command one the table knows only reads (echo, sleep, tail), run as
// written, with no redirection to a file. A background job running such a
// line is not journaled, so /undo says nothing of it.
func readsOnly(line, workspace string) bool {
	cl, err := ParseCommandLine(line, workspace)
	if err != nil || len(cl.Calls) == 0 || len(cl.Changes) > 0 || len(cl.Redirects) > 0 || cl.Uncovered != "" || cl.NotUndoable != "" {
		return false
	}
	for _, c := range cl.Calls {
		name, _, _ := strings.Cut(c.Judged, " ")
		k, ok := shell.Lookup(name)
		if c.Opaque != "" || !ok || k.Effect != shell.Reads || k.Runs || k.Interpreter || k.Network || k.Line != "" {
			return false
		}
	}
	return true
}
