package robota

import (
	"reflect"
	"strings"
)

// fastEvent decodes the payload of the event kinds every turn carries with jsonReader; false
// when it cannot (another kind, or a document it does not read exactly as encoding/json
// would), and decodeJSONEvent then uses encoding/json. data must never change afterwards.
// The values of the commonest kinds live in blocks of a (nil: each its own allocation).
func fastEvent(a *payloadArena, kind EventKind, turn uint64, data []byte) (Event, bool) {
	r := &jsonReader{b: data, arena: a}
	t := turnRef{TurnID: turn}
	var ev Event
	switch kind {
	case KindTurnStarted:
		e := TurnStarted{turnRef: t}
		r.object(func(k string) bool {
			if k == "input" {
				r.input(&e.Input)
				return true
			}
			return false
		}, fieldNames.turnStarted)
		ev = boxEvent(a, turnsStartedTail, arenaEventsBlock, e, turnStartedEvent)
	case KindMessage:
		e := MessageEvent{turnRef: t}
		r.message(&e.Message)
		ev = boxEvent(a, messagesTail, arenaEventsBlock, e, messageEvent)
	case KindToolStart:
		e := ToolStart{turnRef: t}
		r.object(func(k string) bool {
			switch k {
			case "tool_call_id":
				e.ToolCallID = r.str()
			case "tool_name":
				e.ToolName = r.str()
			case "first_arg":
				e.FirstArg = r.str()
			case "arguments":
				e.Arguments = r.raw()
			default:
				return false
			}
			return true
		}, fieldNames.toolStart)
		ev = boxEvent(a, toolStartsTail, arenaEventsBlock, e, toolStartEvent)
	case KindToolEnd:
		e := ToolEnd{turnRef: t}
		r.object(func(k string) bool {
			switch k {
			case "tool_call_id":
				e.ToolCallID = r.str()
			case "tool_name":
				e.ToolName = r.str()
			case "result":
				e.Result = r.str()
			case "output":
				e.Output = r.str()
			case "diff_file":
				e.DiffFile = r.str()
			default:
				return false
			}
			return true
		}, fieldNames.toolEnd)
		ev = boxEvent(a, toolEndsTail, arenaEventsBlock, e, toolEndEvent)
	case KindToolCall:
		e := ToolCallRequest{turnRef: t}
		r.object(func(k string) bool {
			switch k {
			case "call_id":
				e.CallID = r.uint()
			case "tool_name":
				e.ToolName = r.str()
			case "arguments":
				e.Arguments = r.raw()
			default:
				return false
			}
			return true
		}, fieldNames.toolCall)
		ev = e
	case KindContextUpdate:
		e := ContextUpdate{turnRef: t}
		r.contextState(&e.ContextState)
		ev = boxEvent(a, contextUpdatesTail, arenaEventsBlock, e, contextUpdateEvent)
	case KindError:
		e := ErrorEvent{turnRef: t}
		r.object(func(k string) bool {
			switch k {
			case "code":
				e.Code = r.str()
			case "category":
				e.Category = r.str()
			case "recoverable":
				e.Recoverable = r.bool()
			case "message":
				e.Message = r.str()
			default:
				return false
			}
			return true
		}, fieldNames.errorEvent)
		ev = e
	case KindWarning:
		e := Warning{turnRef: t}
		r.object(func(k string) bool {
			if k == "message" {
				e.Message = r.str()
				return true
			}
			return false
		}, fieldNames.warning)
		ev = e
	case KindSessionClosed:
		return SessionClosed{turnRef: t}, true // its payload is not read
	case KindTurnCompleted:
		e := TurnCompleted{Result: Result{TurnID: turn}}
		r.result(&e.Result)
		ev = boxEvent(a, turnsCompletedTail, arenaEventsBlock, e, turnCompletedEvent)
	default:
		return nil, false
	}
	r.end()
	if r.failed {
		return nil, false
	}
	return ev, true
}

// readResult fills *res from a turn's result document (the TurnCompleted payload) with
// jsonReader; false when encoding/json must (res is then partly filled). doc must never change.
func readResult(doc []byte, res *Result) bool {
	r := &jsonReader{b: doc}
	r.result(res)
	r.end()
	return !r.failed
}

func (r *jsonReader) input(in *Input) {
	r.object(func(k string) bool {
		switch k {
		case "text":
			in.Text = r.str()
		case "display_input":
			in.DisplayInput = r.str()
		case "raw_input":
			in.RawInput = r.str()
		case "output_schema":
			in.OutputSchema = r.raw()
		default:
			return false
		}
		return true
	}, fieldNames.input)
}

func (r *jsonReader) message(m *Message) {
	r.object(func(k string) bool {
		switch k {
		case "id":
			m.ID = r.str()
		case "role":
			m.Role = r.str()
		case "content":
			m.Content = r.str()
		case "state":
			m.State = r.str()
		case "toolCallId":
			m.ToolCallID = r.str()
		case "name":
			m.Name = r.str()
		case "timestamp":
			m.Timestamp = r.str()
		case "parts":
			m.Parts = r.raw()
		case "metadata":
			m.Metadata = r.raw()
		case "toolCalls":
			m.ToolCalls = nil
			if r.array(func() {
				m.ToolCalls = appendZero(m.ToolCalls)
				r.messageCall(&m.ToolCalls[len(m.ToolCalls)-1])
			}) && m.ToolCalls == nil {
				m.ToolCalls = []MessageCall{}
			}
		default:
			return false
		}
		return true
	}, fieldNames.message)
}

func (r *jsonReader) messageCall(c *MessageCall) {
	r.object(func(k string) bool {
		switch k {
		case "id":
			c.ID = r.str()
		case "type":
			c.Type = r.str()
		case "function":
			r.object(func(k string) bool {
				switch k {
				case "name":
					c.Function.Name = r.str()
				case "arguments":
					c.Function.Arguments = r.str()
				default:
					return false
				}
				return true
			}, fieldNames.messageFunction)
		default:
			return false
		}
		return true
	}, fieldNames.messageCall)
}

func (r *jsonReader) result(res *Result) {
	r.object(func(k string) bool {
		switch k {
		case "turn_id":
			res.TurnID = r.uint()
		case "stop_reason":
			res.StopReason = StopReason(r.str())
		case "response":
			res.Response = r.str()
		case "error":
			res.Error = r.str()
		case "output":
			res.Output = r.raw()
		case "context_state":
			r.contextState(&res.ContextState)
		case "usage":
			res.Usage = nil
			if !r.null() {
				res.Usage = &Usage{}
				r.usage(res.Usage)
			}
		case "tool_summaries":
			res.ToolSummaries = nil
			if r.array(func() {
				res.ToolSummaries = appendZero(res.ToolSummaries)
				r.toolSummary(&res.ToolSummaries[len(res.ToolSummaries)-1])
			}) && res.ToolSummaries == nil {
				res.ToolSummaries = []ToolSummary{}
			}
		default:
			return false
		}
		return true
	}, fieldNames.result)
}

func (r *jsonReader) toolSummary(s *ToolSummary) {
	r.object(func(k string) bool {
		switch k {
		case "name":
			s.Name = r.str()
		case "args":
			s.Args = r.raw()
		default:
			return false
		}
		return true
	}, fieldNames.toolSummary)
}

func (r *jsonReader) usage(u *Usage) {
	r.object(func(k string) bool {
		switch k {
		case "input_tokens":
			u.InputTokens = r.uint()
		case "output_tokens":
			u.OutputTokens = r.uint()
		case "total_tokens":
			u.TotalTokens = r.uint()
		default:
			return false
		}
		return true
	}, fieldNames.usage)
}

func (r *jsonReader) contextState(s *ContextState) {
	r.object(func(k string) bool {
		switch k {
		case "used_tokens":
			s.UsedTokens = r.uint()
		case "max_tokens":
			s.MaxTokens = r.uint()
		case "used_percentage":
			s.UsedPercentage = r.float()
		case "remaining_percentage":
			s.RemainingPercentage = r.float()
		default:
			return false
		}
		return true
	}, fieldNames.contextState)
}

// fieldNames are the JSON names of the decoded types' fields: a key the fast decoders do not
// take must not match one of them ignoring case (encoding/json would fill that field).
var fieldNames = struct {
	turnStarted, toolStart, toolEnd, toolCall, errorEvent, warning, input, message, messageCall,
	messageFunction, result, toolSummary, usage, contextState []string
}{
	turnStarted:     jsonNames(reflect.TypeOf(TurnStarted{})),
	toolStart:       jsonNames(reflect.TypeOf(ToolStart{})),
	toolEnd:         jsonNames(reflect.TypeOf(ToolEnd{})),
	toolCall:        jsonNames(reflect.TypeOf(ToolCallRequest{})),
	errorEvent:      jsonNames(reflect.TypeOf(ErrorEvent{})),
	warning:         jsonNames(reflect.TypeOf(Warning{})),
	input:           jsonNames(reflect.TypeOf(Input{})),
	message:         jsonNames(reflect.TypeOf(Message{})),
	messageCall:     jsonNames(reflect.TypeOf(MessageCall{})),
	messageFunction: jsonNames(reflect.TypeOf(MessageCall{}.Function)),
	result:          jsonNames(reflect.TypeOf(Result{})),
	toolSummary:     jsonNames(reflect.TypeOf(ToolSummary{})),
	usage:           jsonNames(reflect.TypeOf(Usage{})),
	contextState:    jsonNames(reflect.TypeOf(ContextState{})),
}

// jsonNames lists the JSON member names encoding/json decodes into struct type t, those of
// its embedded structs included.
func jsonNames(t reflect.Type) []string {
	var names []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			names = append(names, jsonNames(f.Type)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
	}
	return names
}
