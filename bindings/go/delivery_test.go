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
