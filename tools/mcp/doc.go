// Package mcp connects myclaw to MCP servers and keeps their tools in the
// catalog.
//
// A Manager starts the configured servers in the background (stdio children
// or streamable HTTP endpoints), lists their tools and registers each one in a
// tools.Registry under the display name "SERVER/tool". A server that fails to
// start, dies or stops answering is marked failed: its tools are withdrawn from
// the registry, calls in flight get an error result telling the model the
// server is down, and the rest of myclaw carries on. Restart brings a server
// back; Close stops them all and leaves no child process behind.
//
// Concurrency: every Manager method is safe for concurrent use. Each running
// server has one goroutine that owns its session; state changes are reported
// to the onChange callback, in order, from a single goroutine of the Manager.
package mcp
