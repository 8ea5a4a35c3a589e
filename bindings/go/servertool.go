package robota

import "encoding/json"

// ServerToolEvent reports that the provider's server ran one of its own tools while the model
// answered (Anthropic's native web search): ROBOTA_EVENT_SERVER_TOOL, ABI 1.2.
type ServerToolEvent struct {
	turnRef
	// ToolName is the server tool's name, e.g. "web_search".
	ToolName string `json:"tool_name"`
	// Status is "started": the server runs it; its results come back inside the answer.
	Status string `json:"status"`
	// Query is the input's search query ("" when it has none).
	Query string `json:"query"`
	// Input is the tool's whole input.
	Input json.RawMessage `json:"input"`
}

// Kind implements Event.
func (ServerToolEvent) Kind() EventKind { return KindServerTool }
