// Package command turns the [[tools]] entries of the config (source =
// "command") into catalog tools.
//
// Each entry runs a program directly (an argv, no shell) in the workspace,
// with the call's arguments as JSON on stdin, a scrubbed environment and a
// timeout after which its whole process tree is killed. Its stdout is the
// result: a JSON object becomes structured output, anything else text. The
// entry's capability fields follow the seed's ToolCapability and decide the
// tool's metadata (read-only, risk, idempotency).
package command
