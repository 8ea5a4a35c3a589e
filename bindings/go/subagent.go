package robota

import "encoding/json"

// SubagentEvent is an event of a subagent the Agent tool (or an "agent" hook) started
// (ROBOTA_EVENT_SUBAGENT). Event is the child's event in pull form ({"kind","type",…}). The
// child's tool calls, permission, hook and host I/O requests are not wrapped: they arrive as
// their usual events and are answered as usual.
type SubagentEvent struct {
	turnRef
	AgentID          string          `json:"agent_id"`
	AgentType        string          `json:"agent_type"`
	ParentToolCallID *string         `json:"parent_tool_call_id"`
	Event            json.RawMessage `json:"event"`
}

// Kind implements Event.
func (SubagentEvent) Kind() EventKind { return KindSubagent }
