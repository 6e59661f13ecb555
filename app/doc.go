// Package app wires myclaw together for one run: it loads the config,
// opens the workspace and the session, builds the tool registry, the
// approval policy, the sandbox and the agent, and then hands them to the
// TUI (RunTUI), to a headless run of one prompt (RunHeadless), or to one of
// the subcommands (RunJournal, RunSessions, RunSandboxCheck). main parses
// the command line into Options and maps the error returned to an exit code.
package app
