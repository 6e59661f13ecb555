// Package tools is myclaw's Tool protocol: what a tool declares (Meta), how
// it is called (Execute, and DryRun for those that can preview), the one
// envelope every result reaches the model in ({"ok":true,...} or
// {"ok":false,"error":{...}}), the fence around untrusted output, and the
// Registry that validates arguments against each tool's JSON Schema before
// dispatch. It speaks no wire format and holds no tool: the builtins live in
// tools/builtin, process containment in tools/proc, MCP and command tools
// in their own packages.
package tools
