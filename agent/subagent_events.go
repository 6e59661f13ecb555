package agent

import (
	"encoding/json"
	"time"
)

// SubagentStartEvent reports a sub-agent that began its work.
type SubagentStartEvent struct {
	ID          string `json:"agent_id"`
	CallID      string `json:"call_id"`
	Description string `json:"description"`
	Mode        string `json:"mode"`
	AgentType   string `json:"agent_type,omitempty"`
	Model       string `json:"model"`
}

// SubagentResultEvent reports how a sub-agent ended: its report, or why it
// stopped.
type SubagentResultEvent struct {
	ID     string `json:"agent_id"`
	CallID string `json:"call_id"`
	// Status is "done", "stopped" (a budget ran out), "cancelled" or
	// "error".
	Status  string        `json:"status"`
	Report  string        `json:"report,omitempty"`
	Message string        `json:"message,omitempty"`
	Calls   int           `json:"tool_calls"`
	Tokens  int           `json:"tokens"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// Untrusted names what untrusted content the sub-agent read, when it
	// read any: its report then reaches the caller fenced.
	Untrusted []string `json:"untrusted,omitempty"`
}

// SubagentEvent is an event of a sub-agent's own turn, tagged with its id:
// `--output json` prints it as the inner event with "agent_id" added.
type SubagentEvent struct {
	AgentID string
	Event   Event
}

// Type implements Event.
func (SubagentStartEvent) Type() string { return "agent_start" }

// Type implements Event.
func (SubagentResultEvent) Type() string { return "agent_result" }

// Type implements Event: the inner event's.
func (e SubagentEvent) Type() string { return e.Event.Type() }

// MarshalJSON is the inner event's object with "agent_id" first.
func (e SubagentEvent) MarshalJSON() ([]byte, error) {
	inner, err := json.Marshal(e.Event)
	if err != nil {
		return nil, err
	}
	id, _ := json.Marshal(e.AgentID)
	out := append([]byte(`{"agent_id":`), id...)
	if len(inner) > 2 {
		out = append(out, ',')
	}
	return append(out, inner[1:]...), nil
}
