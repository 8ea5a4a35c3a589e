package robota

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ModelEventType names what a ModelEvent carries.
type ModelEventType string

// The events a host provider streams (robota_provider_push's documents).
const (
	ModelEventText          ModelEventType = "text"
	ModelEventThinking      ModelEventType = "thinking"
	ModelEventToolCall      ModelEventType = "tool_call"
	ModelEventToolCallStart ModelEventType = "tool_call_start"
	ModelEventToolCallDelta ModelEventType = "tool_call_delta"
	ModelEventToolCallEnd   ModelEventType = "tool_call_end"
	ModelEventUsage         ModelEventType = "usage"
	ModelEventDone          ModelEventType = "done"
	ModelEventError         ModelEventType = "error"
)

// ModelStop is why a model call ended (DoneEvent).
type ModelStop string

// Stop reasons of a model call; "" lets the library infer it (ModelStopToolUse when tool calls
// were streamed, else ModelStopEndTurn).
const (
	ModelStopEndTurn   ModelStop = "end_turn"
	ModelStopToolUse   ModelStop = "tool_use"
	ModelStopMaxTokens ModelStop = "max_tokens"
	ModelStopRefusal   ModelStop = "refusal"
)

// ErrorClass is the class of a failed model call; it decides whether the library retries it.
type ErrorClass string

// Error classes. ClassProvider, ClassRateLimit and ClassNetwork are retried (a new call,
// ModelRequest.Attempt + 1, up to ProviderCapabilities.MaxRetries) while nothing was streamed
// yet, unless the error says it is not recoverable; the others fail the turn at once.
const (
	ClassProvider          ErrorClass = "provider"
	ClassRateLimit         ErrorClass = "rate_limit"
	ClassAuthentication    ErrorClass = "authentication"
	ClassNetwork           ErrorClass = "network"
	ClassModelNotAvailable ErrorClass = "model_not_available"
	ClassContextLength     ErrorClass = "context_length"
	ClassInvalidRequest    ErrorClass = "invalid_request"
)

// ProviderError is a failed model call with its class. Return it from Provider.Stream or send
// FailEvent(err) to choose the class; any other error fails the call with ClassProvider.
type ProviderError struct {
	Class   ErrorClass
	Message string
	// RetryAfter asks the library to wait that long before the retry (0 = its own backoff).
	RetryAfter time.Duration
	// Recoverable overrides the class's default (nil = the default).
	Recoverable *bool
}

func (e *ProviderError) Error() string { return string(e.Class) + ": " + e.Message }

// ModelEvent is one event of a host provider's stream. Build it with TextEvent, ThinkingEvent,
// ToolCallEvent (or ToolCallStartEvent, ToolCallDeltaEvent, ToolCallEndEvent), UsageEvent,
// DoneEvent, ModelErrorEvent or FailEvent.
type ModelEvent struct {
	Type ModelEventType
	// Text of a text or thinking delta; the arguments fragment of a tool call delta.
	Text string
	// ID and Name of a tool call.
	ID, Name string
	// Arguments of a whole tool call: a JSON object.
	Arguments json.RawMessage
	// InputTokens and OutputTokens of a usage event.
	InputTokens, OutputTokens int
	// StopReason of a done event ("" = inferred).
	StopReason ModelStop
	// Err of an error event (a *ProviderError gives its class, anything else is ClassProvider).
	Err error

	encodeErr error // the tool call's arguments could not be encoded
}

// TextEvent is a text delta.
func TextEvent(text string) ModelEvent { return ModelEvent{Type: ModelEventText, Text: text} }

// ThinkingEvent is a thinking (reasoning) delta.
func ThinkingEvent(text string) ModelEvent { return ModelEvent{Type: ModelEventThinking, Text: text} }

// ToolCallEvent is a whole tool call. args is JSON-encoded and must give a JSON object: a map,
// a struct or a json.RawMessage (JSON text the model wrote; a plain string would be encoded as a
// JSON string, which the library refuses); nil means {}.
func ToolCallEvent(id, name string, args any) ModelEvent {
	ev := ModelEvent{Type: ModelEventToolCall, ID: id, Name: name, Arguments: json.RawMessage("{}")}
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			ev.encodeErr = fmt.Errorf("tool call %q (%s): the arguments cannot be encoded as JSON: %w", id, name, err)
		} else {
			ev.Arguments = b
		}
	}
	return ev
}

// ToolCallStartEvent starts a streamed tool call.
func ToolCallStartEvent(id, name string) ModelEvent {
	return ModelEvent{Type: ModelEventToolCallStart, ID: id, Name: name}
}

// ToolCallDeltaEvent is a fragment of a streamed tool call's arguments (JSON text; the
// fragments concatenated must be a JSON object).
func ToolCallDeltaEvent(id, fragment string) ModelEvent {
	return ModelEvent{Type: ModelEventToolCallDelta, ID: id, Text: fragment}
}

// ToolCallEndEvent ends a streamed tool call.
func ToolCallEndEvent(id string) ModelEvent { return ModelEvent{Type: ModelEventToolCallEnd, ID: id} }

// UsageEvent reports the call's token usage.
func UsageEvent(inputTokens, outputTokens int) ModelEvent {
	return ModelEvent{Type: ModelEventUsage, InputTokens: inputTokens, OutputTokens: outputTokens}
}

// DoneEvent ends the call successfully. Sending it is optional: the binding sends
// DoneEvent("") when the channel closes.
func DoneEvent(stop ModelStop) ModelEvent { return ModelEvent{Type: ModelEventDone, StopReason: stop} }

// ModelErrorEvent ends the call with a failure of the given class. (ErrorEvent is the name of a
// session event.)
func ModelErrorEvent(class ErrorClass, message string) ModelEvent {
	return FailEvent(&ProviderError{Class: class, Message: message})
}

// FailEvent ends the call with err: its class when it is (or wraps) a *ProviderError, else
// ClassProvider.
func FailEvent(err error) ModelEvent { return ModelEvent{Type: ModelEventError, Err: err} }

// ends reports whether the event is the call's last.
func (e ModelEvent) ends() bool { return e.Type == ModelEventDone || e.Type == ModelEventError }

// MarshalJSON gives the event document robota_provider_push takes.
func (e ModelEvent) MarshalJSON() ([]byte, error) {
	if e.encodeErr != nil {
		return nil, e.encodeErr
	}
	doc := map[string]any{"type": e.Type}
	switch e.Type {
	case ModelEventText, ModelEventThinking:
		doc["text"] = e.Text
	case ModelEventToolCall:
		doc["id"], doc["name"], doc["arguments"] = e.ID, e.Name, e.Arguments
	case ModelEventToolCallStart:
		doc["id"], doc["name"] = e.ID, e.Name
	case ModelEventToolCallDelta:
		doc["id"], doc["arguments"] = e.ID, e.Text
	case ModelEventToolCallEnd:
		doc["id"] = e.ID
	case ModelEventUsage:
		doc["input_tokens"], doc["output_tokens"] = e.InputTokens, e.OutputTokens
	case ModelEventDone:
		if e.StopReason != "" {
			doc["stop_reason"] = e.StopReason
		}
	case ModelEventError:
		return json.Marshal(errorDoc(e.Err))
	}
	return json.Marshal(doc)
}

// errorDoc is the error event of err.
func errorDoc(err error) map[string]any {
	if err == nil {
		err = errors.New("the provider failed without an error")
	}
	doc := map[string]any{"type": ModelEventError, "class": ClassProvider, "message": err.Error()}
	var pe *ProviderError
	if errors.As(err, &pe) {
		class := pe.Class
		if class == "" {
			class = ClassProvider
		}
		doc["class"], doc["message"] = class, pe.Message
		if pe.RetryAfter > 0 {
			doc["retry_after_ms"] = pe.RetryAfter.Milliseconds()
		}
		if pe.Recoverable != nil {
			doc["recoverable"] = *pe.Recoverable
		}
	}
	return doc
}

// fatalDoc is a non-recoverable provider failure found by the binding.
func fatalDoc(format string, args ...any) map[string]any {
	return map[string]any{"type": ModelEventError, "class": ClassProvider, "recoverable": false,
		"message": fmt.Sprintf(format, args...)}
}
