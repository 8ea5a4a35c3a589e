package robota

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// goModel is a host provider written in Go for the tests: answer i serves the i-th call and
// every request is recorded.
type goModel struct {
	mu       sync.Mutex
	requests []*ModelRequest
	answers  []func(ctx context.Context, req *ModelRequest, out chan<- ModelEvent)
}

func (m *goModel) Stream(ctx context.Context, req *ModelRequest) (<-chan ModelEvent, error) {
	m.mu.Lock()
	i := len(m.requests)
	m.requests = append(m.requests, req)
	m.mu.Unlock()
	if i >= len(m.answers) {
		return nil, errors.New("no answer scripted for this call")
	}
	out := make(chan ModelEvent)
	go func() {
		defer close(out)
		m.answers[i](ctx, req, out)
	}()
	return out, nil
}

func (m *goModel) seen() []*ModelRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*ModelRequest(nil), m.requests...)
}

// says streams events as one answer.
func says(evs ...ModelEvent) func(context.Context, *ModelRequest, chan<- ModelEvent) {
	return func(_ context.Context, _ *ModelRequest, out chan<- ModelEvent) {
		for _, ev := range evs {
			out <- ev
		}
	}
}

// hostRuntime is a runtime with p registered as "local" and the read-only "lookup" tool.
func hostRuntime(t *testing.T, caps ProviderCapabilities, p Provider) *Runtime {
	t.Helper()
	rt := newRuntime(t, RuntimeConfig{Providers: map[string]ProviderConfig{}})
	if err := rt.RegisterProvider("local", caps, p); err != nil {
		t.Fatalf("RegisterProvider: %v", err)
	}
	err := rt.RegisterTool(lookupTool(), func(ctx context.Context, call ToolCall) (any, error) {
		var args struct{ Key string }
		if err := call.Decode(&args); err != nil {
			return nil, err
		}
		return "value of " + args.Key, nil
	})
	if err != nil {
		t.Fatalf("RegisterTool: %v", err)
	}
	return rt
}

func hostSession(t *testing.T, rt *Runtime) *Session {
	return newSession(t, rt, SessionConfig{Provider: "local", Model: "tiny-1", SystemPrompt: "Be brief.", Tools: []string{"lookup"}})
}

func messageJSON(t *testing.T, msgs []ModelMessage) string {
	t.Helper()
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Role + ":" + m.Content)
		for _, c := range m.ToolCalls {
			b.WriteString(" call " + c.ID + " " + c.Name + string(c.Arguments))
		}
		if m.Role == RoleTool {
			b.WriteString(" for " + m.ToolCallID + " " + m.Name)
			if m.IsError {
				b.WriteString(" (error)")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// A turn with two tool rounds on a Go provider: each round's request carries the tool results
// so far, and the final text ends the turn.
func TestHostProviderTwoToolRounds(t *testing.T) {
	model := &goModel{answers: []func(context.Context, *ModelRequest, chan<- ModelEvent){
		says(TextEvent("Looking up a."), ToolCallEvent("c1", "lookup", map[string]string{"key": "a"})),
		says(ToolCallStartEvent("c2", "lookup"), ToolCallDeltaEvent("c2", `{"key":`), ToolCallDeltaEvent("c2", `"b"}`), ToolCallEndEvent("c2"), DoneEvent(ModelStopToolUse)),
		says(TextEvent("a and b "), TextEvent("are known."), UsageEvent(30, 4)),
	}}
	rt := hostRuntime(t, ProviderCapabilities{Models: []string{"tiny-1"}, ContextWindow: 8192, MaxOutputTokens: 512}, model)
	s := hostSession(t, rt)

	res, err := s.Run(testCtx(t), "What are a and b?")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.StopReason != StopComplete || res.Response != "a and b are known." {
		t.Fatalf("result = %+v", res)
	}
	reqs := model.seen()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3", len(reqs))
	}
	first := reqs[0]
	if first.Provider != "local" || first.Model != "tiny-1" || first.Attempt != 1 || first.CallID == 0 {
		t.Fatalf("first request: provider %q model %q attempt %d call %d", first.Provider, first.Model, first.Attempt, first.CallID)
	}
	if len(first.Tools) != 1 || first.Tools[0].Name != "lookup" || first.Tools[0].Description != "Looks a key up" {
		t.Fatalf("tools = %+v", first.Tools)
	}
	var schema map[string]any
	if err := json.Unmarshal(first.Tools[0].InputSchema, &schema); err != nil || schema["required"].([]any)[0] != "key" {
		t.Fatalf("schema = %s (%v)", first.Tools[0].InputSchema, err)
	}
	if got, want := messageJSON(t, first.Messages), "system:Be brief.\nuser:What are a and b?\n"; got != want {
		t.Fatalf("first request messages:\n%s\nwant:\n%s", got, want)
	}
	state, err := s.State()
	if err != nil {
		t.Fatal(err)
	}
	if first.SessionID != state.SessionID || first.ToolChoice.String() != `"auto"` || first.MaxTokens == nil || *first.MaxTokens != 512 || first.Temperature != nil || first.ThinkingBudget != nil {
		t.Fatalf("first request: session %q (want %q), tool choice %v, max tokens %v, temperature %v, thinking %v",
			first.SessionID, state.SessionID, first.ToolChoice, first.MaxTokens, first.Temperature, first.ThinkingBudget)
	}
	if !reflect.DeepEqual(first.Messages[1].Parts, []ModelPart{{Type: "text", Text: "What are a and b?"}}) {
		t.Fatalf("user parts = %+v", first.Messages[1].Parts)
	}
	second := messageJSON(t, reqs[1].Messages[1:]) // after the system prompt
	wantSecond := "user:What are a and b?\n" +
		"assistant:Looking up a. call c1 lookup{\"key\":\"a\"}\n" +
		"tool:value of a for c1 lookup\n"
	if second != wantSecond {
		t.Fatalf("second request messages:\n%s\nwant:\n%s", second, wantSecond)
	}
	third := messageJSON(t, reqs[2].Messages[1:])
	wantThird := wantSecond +
		"assistant: call c2 lookup{\"key\":\"b\"}\n" +
		"tool:value of b for c2 lookup\n"
	if third != wantThird {
		t.Fatalf("third request messages:\n%s\nwant:\n%s", third, wantThird)
	}
	if reqs[0].CallID == reqs[1].CallID || reqs[1].CallID == reqs[2].CallID {
		t.Fatalf("call ids repeat: %d %d %d", reqs[0].CallID, reqs[1].CallID, reqs[2].CallID)
	}
	msgs, err := s.Messages(ViewConversation)
	if err != nil {
		t.Fatal(err)
	}
	var history []string
	for _, m := range msgs {
		line := m.Role + ":" + m.Content
		for _, c := range m.ToolCalls {
			line += " call " + c.ID + " " + c.Function.Name + c.Function.Arguments
		}
		history = append(history, line)
	}
	wantHistory := []string{"system:Be brief.", "user:What are a and b?", `assistant:Looking up a. call c1 lookup{"key":"a"}`,
		"tool:value of a", `assistant: call c2 lookup{"key":"b"}`, "tool:value of b", "assistant:a and b are known."}
	if !reflect.DeepEqual(history, wantHistory) {
		t.Fatalf("history %q, want %q", history, wantHistory)
	}
	if res.Usage == nil || res.Usage.InputTokens != 30 || res.Usage.OutputTokens != 4 || res.ContextState.MaxTokens != 8192 {
		t.Fatalf("usage = %+v, context %+v (want the capabilities' window 8192)", res.Usage, res.ContextState)
	}
}

// Text and thinking deltas reach the session's events in the order the provider sent them; the
// call's context ends with the call.
func TestHostProviderStreamsDeltasInOrder(t *testing.T) {
	ended := make(chan string, 1)
	model := &goModel{answers: []func(context.Context, *ModelRequest, chan<- ModelEvent){
		func(ctx context.Context, req *ModelRequest, out chan<- ModelEvent) {
			says(ThinkingEvent("hmm"), ThinkingEvent(", ok"), TextEvent("One"), TextEvent(", two"), TextEvent(", three."), DoneEvent(ModelStopEndTurn))(ctx, req, out)
			<-ctx.Done() // the call ended with its done: the binding cancels ctx, with no reason
			ended <- CancelReason(ctx)
		},
	}}
	rt := hostRuntime(t, ProviderCapabilities{Thinking: true}, model)
	s := hostSession(t, rt)
	stream := s.Stream(testCtx(t), "Count.")
	var text, thinking []string
	for stream.Next() {
		switch ev := stream.Event().(type) {
		case TextDelta:
			text = append(text, ev.Text)
		case ThinkingDelta:
			thinking = append(thinking, ev.Text)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if !reflect.DeepEqual(text, []string{"One", ", two", ", three."}) || !reflect.DeepEqual(thinking, []string{"hmm", ", ok"}) {
		t.Fatalf("text %q thinking %q", text, thinking)
	}
	if r := stream.Result(); r.Response != "One, two, three." {
		t.Fatalf("response %q", r.Response)
	}
	if reason := recv(t, ended); reason != "" {
		t.Fatalf("cancel reason after the end %q, want none", reason)
	}
}

// A class the host chose is kept: authentication is not retried and fails the turn with the
// provider error naming the provider.
func TestHostProviderErrorClass(t *testing.T) {
	model := &goModel{answers: []func(context.Context, *ModelRequest, chan<- ModelEvent){
		says(ModelErrorEvent(ClassAuthentication, "the key was revoked")),
		says(TextEvent("never reached")),
	}}
	rt := hostRuntime(t, ProviderCapabilities{}, model)
	s := hostSession(t, rt)
	_, err := s.Run(testCtx(t), "hello")
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusProvider {
		t.Fatalf("Run error %v, want ErrProvider", err)
	}
	if want := `turn 1 failed: Authentication Error: host provider "local": the key was revoked`; e.Message != want || e.Code != "AUTHENTICATION_ERROR" || e.Recoverable {
		t.Fatalf("error %+v, want message %q, code AUTHENTICATION_ERROR, not recoverable", e, want)
	}
	if n := len(model.seen()); n != 1 {
		t.Fatalf("%d calls, want 1 (no retry)", n)
	}
}

// An error Stream returns is class provider: retried with a new call (Attempt + 1) up to
// MaxRetries, then the turn fails with its message.
func TestHostProviderReturnedErrorIsRetriedProviderClass(t *testing.T) {
	var attempts []int
	var mu sync.Mutex
	p := ProviderFunc(func(ctx context.Context, req *ModelRequest) (<-chan ModelEvent, error) {
		mu.Lock()
		attempts = append(attempts, req.Attempt)
		mu.Unlock()
		return nil, errors.New("engine not loaded")
	})
	rt := hostRuntime(t, ProviderCapabilities{MaxRetries: Int(1)}, p)
	s := hostSession(t, rt)
	_, err := s.Run(testCtx(t), "hello")
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusProvider {
		t.Fatalf("Run error %v, want ErrProvider", err)
	}
	if want := `turn 1 failed: Provider Error (local): host provider "local": engine not loaded`; e.Message != want || e.Code != "PROVIDER_ERROR" || !e.Recoverable {
		t.Fatalf("error %+v, want message %q, code PROVIDER_ERROR, recoverable", e, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if !reflect.DeepEqual(attempts, []int{1, 2}) {
		t.Fatalf("attempts %v, want [1 2]", attempts)
	}
}

// A panic in Stream fails the call (not the process), naming the provider and the panic.
func TestHostProviderPanicFailsTheTurn(t *testing.T) {
	var calls atomic.Int32
	p := ProviderFunc(func(ctx context.Context, req *ModelRequest) (<-chan ModelEvent, error) {
		calls.Add(1)
		panic("index out of range in the tokenizer")
	})
	rt := hostRuntime(t, ProviderCapabilities{}, p)
	s := hostSession(t, rt)
	_, err := s.Run(testCtx(t), "hello")
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusProvider {
		t.Fatalf("Run error %v, want ErrProvider", err)
	}
	if want := `turn 1 failed: Provider Error (local): host provider "local": Stream panicked: index out of range in the tokenizer`; e.Message != want || e.Recoverable || calls.Load() != 1 {
		t.Fatalf("error %+v after %d calls, want message %q, not recoverable, 1 call", e, calls.Load(), want)
	}
}

// Bad events end the call with a provider error saying what was wrong: a tool call for a tool
// the request did not offer, and arguments that have no JSON form.
func TestHostProviderBadEventsFailTheTurn(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   ModelEvent
		want string
	}{
		{"unknown tool", ToolCallEvent("c1", "launch_rockets", map[string]int{"count": 3}),
			`bad event for call 1: event_json: tool call "c1" names tool "launch_rockets", which the request did not offer (offered: lookup)`},
		{"unencodable arguments", ToolCallEvent("c1", "lookup", map[string]any{"key": make(chan int)}),
			`tool call "c1" (lookup): the arguments cannot be encoded as JSON: json: unsupported type: chan int`},
		{"arguments not an object", ToolCallEvent("c1", "lookup", []string{"a"}),
			`bad event for call 1: event_json: tool_call: "arguments" must be a JSON object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := &goModel{answers: []func(context.Context, *ModelRequest, chan<- ModelEvent){
				says(TextEvent("Calling."), tc.ev, TextEvent("dropped")),
			}}
			rt := hostRuntime(t, ProviderCapabilities{}, model)
			s := hostSession(t, rt)
			_, err := s.Run(testCtx(t), "hello")
			var e *Error
			if !errors.As(err, &e) || e.Status != StatusProvider {
				t.Fatalf("Run error %v, want ErrProvider", err)
			}
			if want := `turn 1 failed: Provider Error (local): host provider "local": ` + tc.want; e.Message != want || e.Recoverable {
				t.Fatalf("error %+v, want message %q, not recoverable", e, want)
			}
			if n := len(model.seen()); n != 1 {
				t.Fatalf("%d calls, want 1 (not retried)", n)
			}
		})
	}
}

// Registration errors name what is wrong.
func TestRegisterProviderErrors(t *testing.T) {
	rt := newRuntime(t, scripted())
	p := &goModel{}
	if err := rt.RegisterProvider("x", ProviderCapabilities{}, nil); !errors.Is(err, ErrNullArg) {
		t.Fatalf("nil provider: %v", err)
	}
	err := rt.RegisterProvider("s", ProviderCapabilities{}, p)
	if want := `robota: RegisterProvider: provider "s" already exists on this runtime (a provider profile or an earlier registration)`; !errors.Is(err, ErrInvalidConfig) || err.Error() != want {
		t.Fatalf("name of a profile: %v, want %q", err, want)
	}
	if err := rt.RegisterProvider("local", ProviderCapabilities{}, p); err != nil {
		t.Fatalf("RegisterProvider: %v", err)
	}
	if err := rt.RegisterProvider("local", ProviderCapabilities{}, p); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("second registration: %v", err)
	}
	err = rt.RegisterProvider("other", ProviderCapabilities{Extra: map[string]any{"streaming_mode": "fast"}}, p)
	if want := `robota: RegisterProvider: capabilities_json: unknown key "streaming_mode" (known: models, context_window, max_output_tokens, vision, thinking, max_retries, timeout_ms)`; !errors.Is(err, ErrInvalidConfig) || err.Error() != want {
		t.Fatalf("unknown capability: %v, want %q", err, want)
	}
	_ = rt.Close()
	if err := rt.RegisterProvider("late", ProviderCapabilities{}, p); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

// Runtime.Query runs on a host provider too.
func TestHostProviderAnswersQuery(t *testing.T) {
	model := &goModel{answers: []func(context.Context, *ModelRequest, chan<- ModelEvent){says(TextEvent("forty-two"))}}
	rt := hostRuntime(t, ProviderCapabilities{}, model)
	res, err := rt.Query(SessionConfig{Provider: "local", Model: "tiny-1", Tools: []string{}}, "The answer?")
	if err != nil {
		t.Fatalf("Query: %v", err)
	}
	if res.Response != "forty-two" {
		t.Fatalf("response %q", res.Response)
	}
	reqs := model.seen()
	if len(reqs) != 1 || reqs[0].Messages[len(reqs[0].Messages)-1].Content != "The answer?" || len(reqs[0].Tools) != 0 {
		t.Fatalf("requests %+v", reqs)
	}
}

// Drive runs the turn on the calling goroutine's thread; the provider's events are pushed from
// another goroutine while it waits, through a tool round.
func TestHostProviderDrive(t *testing.T) {
	model := &goModel{answers: []func(context.Context, *ModelRequest, chan<- ModelEvent){
		says(ToolCallEvent("c1", "lookup", map[string]string{"key": "a"})),
		says(TextEvent("a is "), TextEvent("known.")),
	}}
	rt := hostRuntime(t, ProviderCapabilities{}, model)
	s := newSession(t, rt, SessionConfig{Provider: "local", Model: "tiny-1", Tools: []string{"lookup"}, Delivery: DeliveryInline})
	res, err := s.Drive(testCtx(t), "What is a?")
	if err != nil {
		t.Fatalf("Drive: %v", err)
	}
	if res.Response != "a is known." || len(model.seen()) != 2 {
		t.Fatalf("result %+v after %d calls", res, len(model.seen()))
	}
	if got, want := messageJSON(t, model.seen()[1].Messages), "user:What is a?\nassistant: call c1 lookup{\"key\":\"a\"}\ntool:value of a for c1 lookup\n"; got != want {
		t.Fatalf("second request messages:\n%s\nwant:\n%s", got, want)
	}
}

// A model the capabilities do not list fails before the provider is called.
func TestHostProviderModelNotListed(t *testing.T) {
	model := &goModel{}
	rt := hostRuntime(t, ProviderCapabilities{Models: []string{"tiny-1"}}, model)
	s := newSession(t, rt, SessionConfig{Provider: "local", Model: "huge-70b"})
	_, err := s.Run(testCtx(t), "hello")
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusProvider || e.Code != "MODEL_NOT_AVAILABLE" {
		t.Fatalf("Run error %#v, want ErrProvider MODEL_NOT_AVAILABLE", err)
	}
	if want := `turn 1 failed: Model "huge-70b" is not available for provider "local"`; e.Message != want {
		t.Fatalf("message %q, want %q", e.Message, want)
	}
	if n := len(model.seen()); n != 0 {
		t.Fatalf("%d calls, want 0", n)
	}
}
