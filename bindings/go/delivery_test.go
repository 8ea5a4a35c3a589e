package robota

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Pump delivery: nothing happens until the host dispatches; then events, tool handlers and
// the turn's result all flow from the dispatching goroutine (here one locked to its thread,
// like a UI loop).
func TestPumpDelivery(t *testing.T) {
	rt := newRuntime(t, scripted(toolTurn("p"), ScriptedTurn{Deltas: []string{"a", "b"}}))
	err := rt.RegisterTool(lookupTool(), func(ctx context.Context, call ToolCall) (any, error) { return "pumped", nil })
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, rt, SessionConfig{Delivery: DeliveryPump})
	turn, err := s.Submit(testCtx(t), "x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.NextEvent(0); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("NextEvent on a pump session: %v", err)
	}
	done := make(chan struct{})
	var total int
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for {
			select {
			case <-turn.Done():
				return
			default:
			}
			n, err := s.Dispatch(0, 100*time.Millisecond)
			if err != nil {
				t.Errorf("Dispatch: %v", err)
				return
			}
			total += n
		}
	}()
	recv(t, (<-chan struct{})(done))
	r, err := turn.Wait(testCtx(t))
	if err != nil || r.Response != "ab" {
		t.Fatalf("result %#v, %v", r, err)
	}
	if total == 0 {
		t.Fatal("nothing was dispatched")
	}
	mustContain(t, conversation(t, s), `"role":"tool","content":"pumped"`)
}

// Pull delivery: the host reads events with NextEvent; tool calls and permission requests
// arrive as events and still reach their handlers.
func TestPullDelivery(t *testing.T) {
	rt := newRuntime(t, scripted(toolTurn("q"), ScriptedTurn{Deltas: []string{"Done."}}))
	err := rt.RegisterTool(writeTool(), func(ctx context.Context, call ToolCall) (any, error) { return "pulled", nil })
	if err != nil {
		t.Fatal(err)
	}
	var asked sync.WaitGroup
	asked.Add(1)
	s := newSession(t, rt, SessionConfig{Delivery: DeliveryPull, OnPermission: func(ctx context.Context, req PermissionRequest) (PermissionDecision, error) {
		defer asked.Done()
		return Allow, nil
	}})
	if _, err := s.NextEvent(0); !errors.Is(err, ErrTimeout) {
		t.Fatalf("NextEvent on an idle session: %v", err)
	}
	turn, err := s.Submit(testCtx(t), "pull it")
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	var text strings.Builder
	for {
		ev, err := s.NextEvent(testTimeout)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, ev.Kind().String())
		if d, ok := ev.(TextDelta); ok {
			text.WriteString(d.Text)
		}
		if tc, ok := ev.(TurnCompleted); ok {
			if tc.Response != "Done." {
				t.Fatalf("completed %#v", tc.Result)
			}
			break
		}
	}
	asked.Wait()
	got := strings.Join(seen, ",")
	mustContain(t, got, "turn_started")
	mustContain(t, got, "permission_request")
	mustContain(t, got, "tool_call")
	if text.String() != "Calling.\n\nDone." {
		t.Fatalf("text %q", text.String())
	}
	if r, err := turn.Wait(testCtx(t)); err != nil || r.Response != "Done." {
		t.Fatalf("result %#v, %v", r, err)
	}
	mustContain(t, conversation(t, s), `"role":"tool","content":"pulled"`)
}

func TestLoggerReceivesLines(t *testing.T) {
	lines := make(chan string, 1024)
	err := SetLogger(func(level LogLevel, target, message string) {
		select {
		case lines <- target + ": " + message:
		default:
		}
	}, LogInfo)
	if err != nil {
		t.Fatal(err)
	}
	activeLogger.Lock()
	installed := activeLogger.l
	activeLogger.Unlock()
	rt, err := NewRuntime(scripted())
	if err != nil {
		t.Fatal(err)
	}
	_ = rt.Close()
	select {
	case l := <-lines:
		if l == "" {
			t.Fatal("empty log line")
		}
	case <-time.After(testTimeout):
		t.Fatal("no log line for a new runtime")
	}
	if err := SetLogger(nil, LogInfo); err != nil {
		t.Fatal(err)
	}
	select { // the library released the logger's handle
	case <-installed.done:
	case <-time.After(testTimeout):
		t.Fatal("the removed logger was not released")
	}
}

// inlineRun is one streamed turn with a host tool in delivery d, then a Run and a WaitIdle;
// it returns the kinds of the first turn's events and its streamed text.
func inlineRun(t *testing.T, d Delivery) (evKinds []string, text string) {
	t.Helper()
	rt := newRuntime(t, scripted(
		ScriptedTurn{Thinking: []string{"hm"}, Deltas: []string{"Call", "ing."}, ToolCalls: []ScriptedToolCall{{ID: "call_0", Name: "lookup", Arguments: map[string]any{"key": "k"}}}},
		ScriptedTurn{Deltas: []string{"Do", "ne ", "wörld."}},
	))
	called := make(chan string, 1)
	release := make(chan struct{})
	err := rt.RegisterTool(lookupTool(), func(ctx context.Context, call ToolCall) (any, error) {
		var in struct{ Key string }
		if err := call.Decode(&in); err != nil {
			return nil, err
		}
		called <- in.Key
		// Answered later, from this goroutine, once the test has seen the call.
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return "value of " + in.Key, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, rt, SessionConfig{Delivery: d})
	if st, err := s.State(); err != nil || st.Delivery != string(d) {
		t.Fatalf("state delivery %q, %v; want %q", st.Delivery, err, d)
	}
	events := s.Events()
	turn, err := s.Submit(testCtx(t), "look k up")
	if err != nil {
		t.Fatal(err)
	}
	if key := recv(t, (<-chan string)(called)); key != "k" {
		t.Fatalf("tool called with key %q", key)
	}
	close(release)
	// Wait before reading Events(): the binding never makes the library wait for the reader.
	r, err := turn.Wait(testCtx(t))
	if err != nil || r.Response != "Done wörld." || r.StopReason != StopComplete {
		t.Fatalf("Wait = %#v, %v", r, err)
	}
	evs := collect(t, events, turn.ID())
	var b strings.Builder
	for _, e := range find[TextDelta](evs) {
		b.WriteString(e.Text)
	}
	if ends := find[ToolEnd](evs); len(ends) != 1 || ends[0].ToolName != "lookup" {
		t.Fatalf("tool ends %#v", ends)
	}
	mustContain(t, conversation(t, s), `"role":"tool","content":"value of k"`)
	// Run and WaitIdle (robota_session_wait) on the same session.
	if res, err := s.Run(testCtx(t), "again"); err != nil || res.Response != "offline:again" {
		t.Fatalf("Run = %#v, %v", res, err)
	}
	if err := s.WaitIdle(int32(testTimeout / time.Millisecond)); err != nil {
		t.Fatalf("WaitIdle: %v", err)
	}
	return kinds(evs), b.String()
}

// Inline delivery: the library calls the binding on its async worker; a streamed turn with a
// host tool (answered later from the handler's goroutine) yields exactly the events and text
// of thread delivery, in the same order, and Submit/Wait, Run, WaitIdle and Close work.
func TestInlineDeliveryMatchesThread(t *testing.T) {
	inlineKinds, inlineText := inlineRun(t, DeliveryInline)
	threadKinds, threadText := inlineRun(t, DeliveryThread)
	if inlineText != "Calling.\n\nDone wörld." || inlineText != threadText {
		t.Fatalf("inline text %q, thread text %q", inlineText, threadText)
	}
	if strings.Join(inlineKinds, ",") != strings.Join(threadKinds, ",") {
		t.Fatalf("inline events %v\nthread events %v", inlineKinds, threadKinds)
	}
	// The order within the turn: started, thinking, the first round's text, the tool, the
	// second round's text, completed.
	at := func(kind string, last bool) int {
		i := -1
		for j, k := range inlineKinds {
			if k == kind && (i < 0 || last) {
				i = j
			}
		}
		return i
	}
	order := []int{at("turn_started", false), at("thinking_delta", false), at("text_delta", false),
		at("tool_start", false), at("tool_end", false), at("text_delta", true), at("turn_completed", false)}
	for i := range order {
		if order[i] < 0 || (i > 0 && order[i] <= order[i-1]) {
			t.Fatalf("inline events out of order: %v", inlineKinds)
		}
	}
	if order[0] != 0 || order[len(order)-1] != len(inlineKinds)-1 {
		t.Fatalf("turn_started must be first and turn_completed last: %v", inlineKinds)
	}
}

// Close of an inline session delivers SessionClosed last and closes Events().
func TestInlineDeliveryClose(t *testing.T) {
	rt := newRuntime(t, scripted(ScriptedTurn{Deltas: []string{"a", "b"}}))
	s := newSession(t, rt, SessionConfig{Delivery: DeliveryInline})
	events := s.Events()
	if r, err := s.Run(testCtx(t), "x"); err != nil || r.Response != "ab" {
		t.Fatalf("Run = %#v, %v", r, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var all []Event
	for ev := range events {
		all = append(all, ev)
	}
	if len(all) == 0 || all[len(all)-1].Kind() != KindSessionClosed {
		t.Fatalf("events %v, want ... session_closed", kinds(all))
	}
	if len(find[TurnCompleted](all)) != 1 {
		t.Fatalf("events %v, want one turn_completed", kinds(all))
	}
}
