package tools

// CommandLine is a shell command line parsed without running it: what it
// would run, where it would write, and what looks dangerous. It is the one
// parse of the line: the approval pane shows it and the rules judge it.
type CommandLine struct {
	// Commands lists every simple command as written, including those in
	// pipelines, lists, subshells and command substitutions, e.g.
	// ["git status --short", "rm -rf build"].
	Commands []string
	// Redirects lists the files that output redirections write to.
	Redirects []string
	// Warnings names risky constructs, one sentence each.
	Warnings []string
	// Calls holds, for each of Commands in order, what rules judge.
	Calls []ShellCall
	// Uncovered says why allow rules cannot vouch for the line even when
	// each command matches one ("it sets shell variables"), or is "" when
	// the commands tell the whole story. Constructs whose evaluation the
	// parser cannot prove inert (indirection, arithmetic on values,
	// extglob, arguments that make a reader write or run code) set it.
	Uncovered string
	// Risk rates what the commands do: low for reading, building, testing
	// and committing; medium for changes in the workspace that the journal
	// can undo (sed -i, mv, rm -r build); high where something cannot be
	// undone or leaves the workspace (paths outside it, credential stores,
	// other processes, git that destroys history, pipes into a shell,
	// instruction files). RiskWhy says why it is not low, in one sentence.
	Risk    Risk
	RiskWhy string
	// Changes lists the paths the commands create, change, move or delete,
	// as written (globs included), for the checks that need them: whether
	// undo can capture them, whether one is an instruction file.
	Changes []string
	// NotUndoable says why the journal could not restore what the line
	// changes (a file over its size bound, a folder it leaves out); set by
	// the tool, which knows the journal's bounds, and by the parse for git
	// that destroys or sends away what the journal leaves out. "" when it
	// could.
	NotUndoable string
}

// ShellCall is one simple command as the rules see it.
type ShellCall struct {
	// Judged is what allow rules must match: quotes removed from literal
	// words, wrappers that only run their arguments (env, nice, timeout,
	// xargs, command, builtin, exec, nohup, setsid, ...) peeled off, and
	// /usr/bin/ls read as ls. A command fed extra arguments (xargs) ends in
	// " …", so only a pattern ending in "*" covers it.
	Judged string
	// Forms are every reading deny and ask rules are tried on: as written,
	// each command a wrapper runs, git without its global options.
	Forms []string
	// Opaque says why what this command runs cannot be read from the line
	// (its name is built at run time, or it hands code to an interpreter),
	// so no deny rule can be checked against it; "" when it can.
	Opaque string
	// Exact says the command's first word tells little of what runs (a
	// wrapper, an interpreter), so a session grant is the exact command.
	Exact bool
}
