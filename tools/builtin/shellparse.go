package builtin

import (
	"myclaw/tools"
	"myclaw/tools/shell"
)

// ParseCommandLine parses a bash command line with the one table of shell
// knowledge (tools/shell); workspace (absolute) is where writes stay in.
func ParseCommandLine(src, workspace string) (tools.CommandLine, error) {
	return shell.Parse(src, workspace)
}
