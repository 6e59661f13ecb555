// Package tools defines the Tool protocol of myclaw and the builtin catalog.
//
// A Tool declares what it is (Meta), does its work in Execute and says what it
// would do in DryRun. Every result that reaches the model goes through one
// envelope ({"ok":true,...} or {"ok":false,"error":{...}}), and output of tools
// that return untrusted content is fenced so that it cannot pose as
// instructions. The Registry validates arguments against each tool's JSON
// Schema before dispatch. This package imports none of myclaw's others.
package tools
