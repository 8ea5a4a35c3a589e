package robota

// #include "robota.h"
import "C"

import (
	"encoding/json"
	"errors"
	"strconv"
)

// EventKind is a ROBOTA_EVENT_* value (append-only; unknown kinds arrive as UnknownEvent).
type EventKind uint32

// Event kinds of include/robota.h.
const (
	KindTurnStarted       EventKind = C.ROBOTA_EVENT_TURN_STARTED
	KindTextDelta         EventKind = C.ROBOTA_EVENT_TEXT_DELTA
	KindThinkingDelta     EventKind = C.ROBOTA_EVENT_THINKING_DELTA
	KindMessage           EventKind = C.ROBOTA_EVENT_MESSAGE
	KindToolStart         EventKind = C.ROBOTA_EVENT_TOOL_START
	KindToolEnd           EventKind = C.ROBOTA_EVENT_TOOL_END
	KindToolCall          EventKind = C.ROBOTA_EVENT_TOOL_CALL
	KindToolCallCancelled EventKind = C.ROBOTA_EVENT_TOOL_CALL_CANCELLED
	KindPermissionRequest EventKind = C.ROBOTA_EVENT_PERMISSION_REQUEST
	KindHookRequest       EventKind = C.ROBOTA_EVENT_HOOK_REQUEST
	KindContextUpdate     EventKind = C.ROBOTA_EVENT_CONTEXT_UPDATE
	KindCompacted         EventKind = C.ROBOTA_EVENT_COMPACTED
	KindExecution         EventKind = C.ROBOTA_EVENT_EXECUTION
	KindWarning           EventKind = C.ROBOTA_EVENT_WARNING
	KindError             EventKind = C.ROBOTA_EVENT_ERROR
	KindTurnCompleted     EventKind = C.ROBOTA_EVENT_TURN_COMPLETED
	KindSessionClosed     EventKind = C.ROBOTA_EVENT_SESSION_CLOSED
	KindSubagent          EventKind = C.ROBOTA_EVENT_SUBAGENT
	KindHostIO            EventKind = C.ROBOTA_EVENT_HOST_IO
	KindCommandRequest    EventKind = C.ROBOTA_EVENT_COMMAND_REQUEST
	KindRequestCancelled  EventKind = C.ROBOTA_EVENT_REQUEST_CANCELLED
	KindServerTool        EventKind = C.ROBOTA_EVENT_SERVER_TOOL
)

var kindNames = map[EventKind]string{
	KindTurnStarted: "turn_started", KindTextDelta: "text_delta", KindThinkingDelta: "thinking_delta",
	KindMessage: "message", KindToolStart: "tool_start", KindToolEnd: "tool_end",
	KindToolCall: "tool_call", KindToolCallCancelled: "tool_call_cancelled",
	KindPermissionRequest: "permission_request", KindHookRequest: "hook_request",
	KindContextUpdate: "context_update", KindCompacted: "compacted", KindExecution: "execution",
	KindWarning: "warning", KindError: "error", KindTurnCompleted: "turn_completed",
	KindSessionClosed: "session_closed", KindSubagent: "subagent", KindHostIO: "host_io", KindCommandRequest: "command_request",
	KindRequestCancelled: "request_cancelled", KindServerTool: "server_tool",
}

// String is the event's "type" name ("text_delta", …).
func (k EventKind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return "kind(" + strconv.FormatUint(uint64(k), 10) + ")"
}

// Event is one session event. Switch on the concrete type:
//
//	switch e := ev.(type) {
//	case robota.TextDelta:
//		fmt.Print(e.Text)
//	case robota.TurnCompleted:
//		fmt.Println(e.StopReason)
//	}
type Event interface {
	// Kind is the ROBOTA_EVENT_* value.
	Kind() EventKind
	// Turn is the turn the event belongs to (0 = none).
	Turn() uint64
}

// turnRef carries the turn of an event; every event type embeds it.
type turnRef struct {
	// TurnID is the turn the event belongs to (0 = none).
	TurnID uint64 `json:"-"`
}

// Turn implements Event.
func (t turnRef) Turn() uint64 { return t.TurnID }

// TurnStarted opens a turn.
type TurnStarted struct {
	turnRef
	Input Input `json:"input"`
}

// TextDelta is streamed answer text (whole code points).
type TextDelta struct {
	turnRef
	Text string
}

// ThinkingDelta is streamed reasoning text.
type ThinkingDelta struct {
	turnRef
	Text string
}

// MessageEvent reports a message committed to the conversation.
type MessageEvent struct {
	turnRef
	Message
}

// ToolStart reports that a tool began.
type ToolStart struct {
	turnRef
	ToolCallID string          `json:"tool_call_id"`
	ToolName   string          `json:"tool_name"`
	FirstArg   string          `json:"first_arg"`
	Arguments  json.RawMessage `json:"arguments"`
}

// ToolEnd reports a tool's outcome: Result is "success", "error" or "denied". A built-in Edit
// or Write that changed a file also carries the change: DiffFile (the file as the call named
// it) and DiffLines (empty otherwise).
type ToolEnd struct {
	turnRef
	ToolCallID string     `json:"tool_call_id"`
	ToolName   string     `json:"tool_name"`
	Result     string     `json:"result"`
	Output     string     `json:"output"`
	DiffFile   string     `json:"diff_file,omitempty"`
	DiffLines  []DiffLine `json:"diff_lines,omitempty"`
}

// DiffLine is one changed line of a ToolEnd's diff, in file order: Type is "add" or "remove";
// LineNumber counts from 1 in the new file for an add, in the old file for a remove.
type DiffLine struct {
	Type       string `json:"type"`
	Content    string `json:"content"`
	LineNumber int    `json:"lineNumber"`
}

// ToolCallRequest is a host tool call delivered as an event (a tool without handler; the
// binding answers calls of tools registered with RegisterTool itself).
type ToolCallRequest struct {
	turnRef
	CallID    uint64          `json:"call_id"`
	ToolName  string          `json:"tool_name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolCallCancelled reports that a pending host tool call was withdrawn (its handler's
// context is cancelled at the same moment).
type ToolCallCancelled struct {
	turnRef
	CallID uint64 `json:"call_id"`
}

// PermissionRequest asks whether a tool may run.
type PermissionRequest struct {
	turnRef
	RequestID uint64          `json:"request_id"`
	ToolName  string          `json:"tool_name"`
	Arguments json.RawMessage `json:"arguments"`
	Reason    string          `json:"reason"`
	// Sandbox is, for a call of the Bash tool only, the sandbox mode its command runs in:
	// "workspace-write" (the default), "read-only" or "off" (also "off" in a HostIO
	// session). Empty for other tools.
	Sandbox string `json:"sandbox,omitempty"`
}

// HookRequest asks the host to run a "host" hook. Input is the whole Robota hook input.
type HookRequest struct {
	turnRef
	RequestID     uint64          `json:"request_id"`
	HookEventName string          `json:"hook_event_name"`
	SessionID     string          `json:"session_id"`
	ToolName      string          `json:"tool_name,omitempty"`
	ToolInput     json.RawMessage `json:"tool_input,omitempty"`
	Input         json.RawMessage `json:"-"`
}

// ContextUpdate reports the context window use.
type ContextUpdate struct {
	turnRef
	ContextState
}

// Compacted reports a compaction of the conversation.
type Compacted struct {
	turnRef
	Trigger string          `json:"trigger"`
	Summary string          `json:"summary"`
	Data    json.RawMessage `json:"-"`
}

// Execution is a replay boundary event (sessions with ReplayEvents).
type Execution struct {
	turnRef
	Name string          `json:"name"`
	Data json.RawMessage `json:"data"`
}

// Warning is a non-fatal problem.
type Warning struct {
	turnRef
	Message string `json:"message"`
}

// ErrorEvent reports a failure of a turn (taxonomy code, category, recoverable).
type ErrorEvent struct {
	turnRef
	Code        string `json:"code"`
	Category    string `json:"category"`
	Recoverable bool   `json:"recoverable"`
	Message     string `json:"message"`
}

// TurnCompleted closes a turn; it is the last event of every turn.
type TurnCompleted struct {
	Result
}

// Turn implements Event.
func (e TurnCompleted) Turn() uint64 { return e.Result.TurnID }

// SessionClosed is the last event of a session.
type SessionClosed struct{ turnRef }

// CommandRequest asks the host to run one of SessionConfig.Commands; answer it with
// Session.RespondCommand.
type CommandRequest struct {
	turnRef
	RequestID uint64 `json:"request_id"`
	Name      string `json:"name"`
	Args      string `json:"args"`
}

// UnknownEvent is a kind this binding does not know (a newer library); Payload is as sent.
type UnknownEvent struct {
	turnRef
	KindValue EventKind
	Payload   json.RawMessage
}

// Kind implementations.
func (TurnStarted) Kind() EventKind       { return KindTurnStarted }
func (TextDelta) Kind() EventKind         { return KindTextDelta }
func (ThinkingDelta) Kind() EventKind     { return KindThinkingDelta }
func (MessageEvent) Kind() EventKind      { return KindMessage }
func (ToolStart) Kind() EventKind         { return KindToolStart }
func (ToolEnd) Kind() EventKind           { return KindToolEnd }
func (ToolCallRequest) Kind() EventKind   { return KindToolCall }
func (ToolCallCancelled) Kind() EventKind { return KindToolCallCancelled }
func (PermissionRequest) Kind() EventKind { return KindPermissionRequest }
func (HookRequest) Kind() EventKind       { return KindHookRequest }
func (ContextUpdate) Kind() EventKind     { return KindContextUpdate }
func (Compacted) Kind() EventKind         { return KindCompacted }
func (Execution) Kind() EventKind         { return KindExecution }
func (Warning) Kind() EventKind           { return KindWarning }
func (ErrorEvent) Kind() EventKind        { return KindError }
func (TurnCompleted) Kind() EventKind     { return KindTurnCompleted }
func (SessionClosed) Kind() EventKind     { return KindSessionClosed }
func (CommandRequest) Kind() EventKind    { return KindCommandRequest }

// Kind implements Event.
func (u UnknownEvent) Kind() EventKind { return u.KindValue }

// decodeJSONEvent builds the typed event of a JSON payload. A payload that does not decode
// (a library bug) becomes an UnknownEvent rather than being lost.
func decodeJSONEvent(kind EventKind, turn uint64, data []byte) Event {
	if ev, ok := fastEvent(nil, kind, turn, data); ok {
		return ev
	}
	return decodeWithReflection(kind, turn, data)
}

// decodeWithReflection is decodeJSONEvent with encoding/json, for every kind and document.
func decodeWithReflection(kind EventKind, turn uint64, data []byte) Event {
	t := turnRef{TurnID: turn}
	var ev Event
	var err error
	switch kind {
	case KindTurnStarted:
		ev, err = decodeAs(data, &TurnStarted{turnRef: t})
	case KindMessage:
		ev, err = decodeAs(data, &MessageEvent{turnRef: t})
	case KindToolStart:
		ev, err = decodeAs(data, &ToolStart{turnRef: t})
	case KindToolEnd:
		ev, err = decodeAs(data, &ToolEnd{turnRef: t})
	case KindToolCall:
		ev, err = decodeAs(data, &ToolCallRequest{turnRef: t})
	case KindToolCallCancelled:
		ev, err = decodeAs(data, &ToolCallCancelled{turnRef: t})
	case KindPermissionRequest:
		ev, err = decodeAs(data, &PermissionRequest{turnRef: t})
	case KindHookRequest:
		ev, err = decodeAs(data, &HookRequest{turnRef: t, Input: data})
	case KindContextUpdate:
		ev, err = decodeAs(data, &ContextUpdate{turnRef: t})
	case KindCompacted:
		ev, err = decodeAs(data, &Compacted{turnRef: t, Data: data})
	case KindExecution:
		ev, err = decodeAs(data, &Execution{turnRef: t})
	case KindWarning:
		ev, err = decodeAs(data, &Warning{turnRef: t})
	case KindError:
		ev, err = decodeAs(data, &ErrorEvent{turnRef: t})
	case KindTurnCompleted:
		ev, err = decodeAs(data, &TurnCompleted{Result: Result{TurnID: turn}})
	case KindSessionClosed:
		ev = SessionClosed{turnRef: t}
	case KindHostIO:
		ev, err = decodeAs(data, &HostIOEvent{turnRef: t})
	case KindCommandRequest:
		ev, err = decodeAs(data, &CommandRequest{turnRef: t})
	case KindSubagent:
		ev, err = decodeAs(data, &SubagentEvent{turnRef: t})
	case KindRequestCancelled:
		ev, err = decodeAs(data, &RequestCancelled{turnRef: t})
	case KindServerTool:
		ev, err = decodeAs(data, &ServerToolEvent{turnRef: t})
	default:
		err = errUnknownKind
	}
	if err != nil {
		return UnknownEvent{turnRef: t, KindValue: kind, Payload: data}
	}
	return ev
}

var errUnknownKind = errors.New("unknown event kind")

// decodeAs fills *p from data (embedded payload structs decode as their own fields).
func decodeAs[T Event](data []byte, p *T) (Event, error) {
	err := json.Unmarshal(data, p)
	return *p, err
}
