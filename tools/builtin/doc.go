// Package builtin holds myclaw's builtin tools (files, search, shell, web,
// memory, plan, time) and what they run on: the workspace confinement, the
// file-state engine behind previews and undo, the shell parser and runner,
// the SSRF guard and the HTML reader. Each tool speaks the tools protocol.
package builtin
