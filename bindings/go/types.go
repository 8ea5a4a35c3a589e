package robota

import "encoding/json"

// Input is a prompt as submitted (the TurnStarted event echoes it).
type Input struct {
	// Text is what the model receives.
	Text string `json:"text"`
	// DisplayInput, when set, is what the history shows instead of Text.
	DisplayInput string `json:"display_input,omitempty"`
	// RawInput is kept for hooks (e.g. the unexpanded slash command).
	RawInput string `json:"raw_input,omitempty"`
	// ToolChoice, when set, is this turn's tool choice (wins over the session's).
	ToolChoice *ToolChoice `json:"tool_choice,omitempty"`
	// OutputSchema, when set, is the JSON Schema this turn's answer must match (wins over
	// SessionConfig.OutputSchema); the validated answer is Result.Output.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Images are sent after Text (PNG, JPEG, GIF or WebP; at most 20, each at most 5 MiB):
	// build them with ImageData, ImageFile or ImageURL.
	Images []Image `json:"images,omitempty"`
}

// Image is one image of a prompt. A bad image (a missing file, an unknown media type, a
// media type the bytes do not match, over 5 MiB) fails the submit with StatusInvalidConfig
// naming it (images[i]).
type Image struct {
	// Path is a file the library reads at submit (relative to the session's Cwd).
	Path string `json:"path,omitempty"`
	// Data is the image's bytes (sent as base64), with MediaType.
	Data []byte `json:"data,omitempty"`
	// MediaType is "image/png", "image/jpeg", "image/gif" or "image/webp".
	MediaType string `json:"media_type,omitempty"`
	// URL is an http(s) address the model's vendor fetches.
	URL string `json:"url,omitempty"`
}

// ImageData is an image from its bytes and media type ("image/png", …).
func ImageData(data []byte, mediaType string) Image {
	return Image{Data: data, MediaType: mediaType}
}

// ImageFile is an image read from a file at submit; its type is told by its bytes.
func ImageFile(path string) Image { return Image{Path: path} }

// ImageURL is an image by http(s) URL.
func ImageURL(url string) Image { return Image{URL: url} }

// Message is a message of the conversation (the Robota universal message).
type Message struct {
	ID         string        `json:"id"`
	Role       string        `json:"role"` // "user", "assistant", "system" or "tool"
	Content    string        `json:"content"`
	State      string        `json:"state"` // "complete" or "interrupted"
	ToolCalls  []MessageCall `json:"toolCalls,omitempty"`
	ToolCallID string        `json:"toolCallId,omitempty"`
	Name       string        `json:"name,omitempty"`
	// Parts, when set, is the content in parts: the text, then the images
	// ({"type":"image_inline","mimeType","data"} or {"type":"image_uri","uri","mimeType"?}).
	Parts     json.RawMessage `json:"parts,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	Timestamp string          `json:"timestamp"`
}

// MessageCall is a tool call an assistant message asked for.
type MessageCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"` // JSON text as the model wrote it
	} `json:"function"`
}

// HistoryEntry is one entry of the full UI timeline (Session.History): Category "chat"
// (Type = role, Data = the message) or "event" (Type "tool-start", "tool-end",
// "tool-summary", …).
type HistoryEntry struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Category  string          `json:"category"`
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data"`
}

// StopReason says why a turn ended.
type StopReason string

// Stop reasons of TurnCompleted (newer libraries may add more).
const (
	StopComplete     StopReason = "complete"
	StopAborted      StopReason = "aborted"
	StopError        StopReason = "error"
	StopMaxRounds    StopReason = "max_rounds"
	StopContextLimit StopReason = "context_limit"
	StopBudget       StopReason = "budget"
	// StopSchemaError: the answer did not match the output schema, also after one repair
	// round (the turn's error is an *Error with Code "SCHEMA_ERROR").
	StopSchemaError StopReason = "schema_error"
)

// Result is the outcome of one turn (the TurnCompleted payload).
type Result struct {
	TurnID        uint64        `json:"turn_id"`
	StopReason    StopReason    `json:"stop_reason"`
	Response      string        `json:"response"`
	ToolSummaries []ToolSummary `json:"tool_summaries"`
	ContextState  ContextState  `json:"context_state"`
	Usage         *Usage        `json:"usage"`
	// Error is the failure message when StopReason is "error".
	Error string `json:"error,omitempty"`
	// Output is the answer validated against the turn's output schema (Input.OutputSchema
	// or SessionConfig.OutputSchema); nil without one. Decode it with DecodeOutput.
	Output json.RawMessage `json:"output,omitempty"`
}

// DecodeOutput unmarshals the turn's structured output into v (a pointer); an error when the
// turn has none (no output schema, or it failed).
func (r Result) DecodeOutput(v any) error {
	return decodeOutput(r.Output, v)
}

// ToolSummary names a tool the turn called and its arguments.
type ToolSummary struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// Usage counts tokens.
type Usage struct {
	InputTokens  uint64 `json:"input_tokens"`
	OutputTokens uint64 `json:"output_tokens"`
	TotalTokens  uint64 `json:"total_tokens"`
}

// ContextState is the context window use.
type ContextState struct {
	UsedTokens          uint64  `json:"used_tokens"`
	MaxTokens           uint64  `json:"max_tokens"`
	UsedPercentage      float64 `json:"used_percentage"`
	RemainingPercentage float64 `json:"remaining_percentage"`
}

// ToolState is a running or recently finished tool (State.ActiveTools).
type ToolState struct {
	ToolName  string `json:"toolName"`
	FirstArg  string `json:"firstArg"`
	IsRunning bool   `json:"isRunning"`
	Result    string `json:"result,omitempty"`
}

// State is a snapshot of a session's state.
type State struct {
	SessionID           string       `json:"session_id"`
	Name                string       `json:"name"`
	Executing           bool         `json:"executing"`
	Closed              bool         `json:"closed"`
	CurrentTurn         uint64       `json:"current_turn"`
	QueuedTurn          uint64       `json:"queued_turn"`
	PendingPrompt       string       `json:"pending_prompt"`
	StreamingText       string       `json:"streaming_text"`
	ActiveTools         []ToolState  `json:"active_tools"`
	ContextState        ContextState `json:"context_state"`
	MessageCount        int          `json:"message_count"`
	Model               string       `json:"model"`
	Provider            string       `json:"provider"`
	Delivery            string       `json:"delivery"`
	PermissionMode      string       `json:"permission_mode"`
	SessionAllowedTools []string     `json:"session_allowed_tools"`
	// MCPServers is the state of each MCP server of the session.
	MCPServers []MCPServerState `json:"mcp_servers"`
}

// MCPServerState is one MCP server as robota_session_state shows it.
type MCPServerState struct {
	Name      string `json:"name"`
	Transport string `json:"transport"` // "stdio" or "http"
	State     string `json:"state"`     // "connected" or "failed"
	Tools     int    `json:"tools"`
	Reason    string `json:"reason,omitempty"`
}

// CommandResult is the answer of Session.Command.
type CommandResult struct {
	Message string          `json:"message"`
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Snapshot is a saved session (Session.Save): an opaque, versioned JSON document to store
// and hand to Runtime.Resume. It never contains API keys.
type Snapshot []byte

// MarshalJSON embeds the snapshot document as is.
func (s Snapshot) MarshalJSON() ([]byte, error) {
	if len(s) == 0 {
		return []byte("null"), nil
	}
	return s, nil
}

// UnmarshalJSON keeps the document as is.
func (s *Snapshot) UnmarshalJSON(b []byte) error {
	*s = append((*s)[:0], b...)
	return nil
}
