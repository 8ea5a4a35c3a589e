package robota

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// Each ModelEvent encodes to the exact document robota_provider_push takes.
func TestModelEventDocuments(t *testing.T) {
	no := false
	for _, tc := range []struct {
		ev   ModelEvent
		want string
	}{
		{TextEvent("Hi"), `{"text":"Hi","type":"text"}`},
		{TextEvent(""), `{"text":"","type":"text"}`},
		{ThinkingEvent("hmm"), `{"text":"hmm","type":"thinking"}`},
		{ToolCallEvent("c1", "lookup", map[string]string{"key": "a"}), `{"arguments":{"key":"a"},"id":"c1","name":"lookup","type":"tool_call"}`},
		{ToolCallEvent("c1", "now", nil), `{"arguments":{},"id":"c1","name":"now","type":"tool_call"}`},
		{ToolCallEvent("c1", "now", json.RawMessage(`{"tz":"UTC"}`)), `{"arguments":{"tz":"UTC"},"id":"c1","name":"now","type":"tool_call"}`},
		{ToolCallStartEvent("c2", "lookup"), `{"id":"c2","name":"lookup","type":"tool_call_start"}`},
		{ToolCallDeltaEvent("c2", `{"key":`), `{"arguments":"{\"key\":","id":"c2","type":"tool_call_delta"}`},
		{ToolCallEndEvent("c2"), `{"id":"c2","type":"tool_call_end"}`},
		{UsageEvent(12, 3), `{"input_tokens":12,"output_tokens":3,"type":"usage"}`},
		{DoneEvent(""), `{"type":"done"}`},
		{DoneEvent(ModelStopMaxTokens), `{"stop_reason":"max_tokens","type":"done"}`},
		{ModelErrorEvent(ClassRateLimit, "slow down"), `{"class":"rate_limit","message":"slow down","type":"error"}`},
		{FailEvent(errors.New("boom")), `{"class":"provider","message":"boom","type":"error"}`},
		{FailEvent(fmt.Errorf("wrapped: %w", &ProviderError{Class: ClassNetwork, Message: "reset", RetryAfter: 1500 * time.Millisecond, Recoverable: &no})),
			`{"class":"network","message":"reset","recoverable":false,"retry_after_ms":1500,"type":"error"}`},
	} {
		b, err := json.Marshal(tc.ev)
		if err != nil || string(b) != tc.want {
			t.Errorf("%+v: %s (%v), want %s", tc.ev, b, err, tc.want)
		}
	}
	if _, err := json.Marshal(ToolCallEvent("c9", "lookup", make(chan int))); err == nil {
		t.Fatal("unencodable arguments encoded")
	} else if want := `tool call "c9" (lookup): the arguments cannot be encoded as JSON: json: unsupported type: chan int`; !containsErr(err, want) {
		t.Fatalf("error %v, want %q", err, want)
	}
}

func containsErr(err error, want string) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if err.Error() == want {
			return true
		}
	}
	return false
}

// The request document decodes into typed messages: parts with base64 images, tool calls,
// tool results, parameters; Raw keeps the document.
func TestModelRequestDecoding(t *testing.T) {
	doc := `{"v":1,"type":"call","provider":"local","model":"m","session_id":null,
	 "messages":[{"role":"system","content":"Be brief."},
	  {"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image","media_type":"image/png","data":"iVBORw=="},{"type":"image","url":"https://example.com/a.png"},{"type":"text","text":"Short."}]},
	  {"role":"assistant","content":"Looking.","tool_calls":[{"id":"c1","name":"lookup","arguments":{"key":"a"}}]},
	  {"role":"tool","tool_call_id":"c1","name":"lookup","content":"no such key","is_error":true}],
	 "tools":[{"name":"lookup","description":"Looks a key up","input_schema":{"type":"object"}}],
	 "tool_choice":{"name":"lookup"},"max_tokens":256,"temperature":0.5,"thinking_budget":null,"attempt":2}`
	req, err := decodeModelRequest(7, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := &ModelRequest{
		CallID: 7, Provider: "local", Model: "m",
		Messages: []ModelMessage{
			{Role: RoleSystem, Content: "Be brief."},
			{Role: RoleUser, Content: "What is this?\nShort.", Parts: []ModelPart{
				{Type: "text", Text: "What is this?"},
				{Type: "image", MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}},
				{Type: "image", URL: "https://example.com/a.png"},
				{Type: "text", Text: "Short."},
			}},
			{Role: RoleAssistant, Content: "Looking.", ToolCalls: []ModelToolCall{{ID: "c1", Name: "lookup", Arguments: json.RawMessage(`{"key":"a"}`)}}},
			{Role: RoleTool, Content: "no such key", ToolCallID: "c1", Name: "lookup", IsError: true},
		},
		Tools:      []ModelTool{{Name: "lookup", Description: "Looks a key up", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		ToolChoice: ToolChoiceTool("lookup"), MaxTokens: Int(256), Temperature: Float(0.5), Attempt: 2,
		Raw: json.RawMessage(doc),
	}
	if !reflect.DeepEqual(req, want) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", req, want)
	}
	if _, err := decodeModelRequest(1, []byte(`{"messages":[{"role":"user","content":[{"type":"image","data":"***"}]}]}`)); err == nil {
		t.Fatal("bad base64 decoded")
	} else if want := "user message: image part: data is not base64: illegal base64 data at input byte 0"; err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
}
