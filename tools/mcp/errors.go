package mcp

import "errors"

// ErrSamplingDeclined is what Options.Sample returns when the person
// declined the request.
var ErrSamplingDeclined = errors.New("the user declined the sampling request")

// errLoginNeeded is what a request gets when the server wants a login that
// only a person can give.
var errLoginNeeded = errors.New("the server needs a login")

// errServerDown cancels calls in flight when their server's run ends.
var errServerDown = errors.New("the MCP server went down")

// errStartTimeout is the cause of a start-up that took longer than Timeout.
var errStartTimeout = errors.New("start-up timed out")
