package robota

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// ModelRequest is one model call the library asks a host provider for: the conversation so
// far, the tools the model may call and the call's parameters.
type ModelRequest struct {
	// CallID is unique per runtime; a retry is a new call with Attempt + 1.
	CallID uint64 `json:"-"`
	// Provider is the name the provider was registered under; Model the session's model id.
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// SessionID is "" for calls outside a session (Runtime.Query's own session has one).
	SessionID string `json:"session_id"`
	// Messages: the system prompt first (if any), then the history, oldest first.
	Messages []ModelMessage `json:"messages"`
	Tools    []ModelTool    `json:"tools"`
	// ToolChoice is auto, none, required or a named tool.
	ToolChoice *ToolChoice `json:"tool_choice"`
	// MaxTokens, Temperature and ThinkingBudget are nil when the session sets none.
	MaxTokens      *int     `json:"max_tokens"`
	Temperature    *float64 `json:"temperature"`
	ThinkingBudget *int     `json:"thinking_budget"`
	// Attempt is 1 for the first call of a model round, 2 for its first retry, ...
	Attempt int `json:"attempt"`
	// Raw is the request document as the library sent it.
	Raw json.RawMessage `json:"-"`
}

// The roles of a ModelMessage.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// ModelMessage is one message of a ModelRequest.
type ModelMessage struct {
	// Role is RoleSystem, RoleUser, RoleAssistant or RoleTool.
	Role string
	// Content is the message's text; for a user message, its text parts joined by "\n".
	Content string
	// Parts are a user message's parts: text and images, in order.
	Parts []ModelPart
	// ToolCalls are the tool calls of an assistant message.
	ToolCalls []ModelToolCall
	// ToolCallID, Name and IsError describe a tool message: the result of that call.
	ToolCallID string
	Name       string
	IsError    bool
}

// ModelPart is a part of a user message: Type "text" (Text) or "image" (MediaType and Data,
// or URL).
type ModelPart struct {
	Type      string
	Text      string
	MediaType string
	Data      []byte
	URL       string
}

// ModelToolCall is a tool call the model made earlier in the conversation.
type ModelToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ModelTool is a tool the model may call.
type ModelTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// UnmarshalJSON reads a message of the request document (content is a string, or a user
// message's array of parts).
func (m *ModelMessage) UnmarshalJSON(b []byte) error {
	var w struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCalls  []ModelToolCall `json:"tool_calls"`
		ToolCallID string          `json:"tool_call_id"`
		Name       string          `json:"name"`
		IsError    bool            `json:"is_error"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = ModelMessage{Role: w.Role, ToolCalls: w.ToolCalls, ToolCallID: w.ToolCallID, Name: w.Name, IsError: w.IsError}
	content := strings.TrimSpace(string(w.Content))
	switch {
	case content == "" || content == "null":
	case strings.HasPrefix(content, "["):
		if err := json.Unmarshal(w.Content, &m.Parts); err != nil {
			return fmt.Errorf("%s message: %w", w.Role, err)
		}
		var texts []string
		for _, p := range m.Parts {
			if p.Type == "text" {
				texts = append(texts, p.Text)
			}
		}
		m.Content = strings.Join(texts, "\n")
	default:
		if err := json.Unmarshal(w.Content, &m.Content); err != nil {
			return fmt.Errorf("%s message: %w", w.Role, err)
		}
	}
	return nil
}

// UnmarshalJSON reads a part; an image's data is base64.
func (p *ModelPart) UnmarshalJSON(b []byte) error {
	var w struct {
		Type      string `json:"type"`
		Text      string `json:"text"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*p = ModelPart{Type: w.Type, Text: w.Text, MediaType: w.MediaType, URL: w.URL}
	if w.Data != "" {
		data, err := base64.StdEncoding.DecodeString(w.Data)
		if err != nil {
			if data, err = base64.RawStdEncoding.DecodeString(w.Data); err != nil {
				return fmt.Errorf("image part: data is not base64: %w", err)
			}
		}
		p.Data = data
	}
	return nil
}

// decodeModelRequest reads a call document.
func decodeModelRequest(callID uint64, raw []byte) (*ModelRequest, error) {
	req := &ModelRequest{CallID: callID, Raw: raw}
	if err := json.Unmarshal(raw, req); err != nil {
		return nil, err
	}
	return req, nil
}
