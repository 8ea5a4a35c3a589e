package robota

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// goroutineState is the scheduler state of goroutine g ("running", "syscall", "chan
// receive", …) as runtime.Stack prints it, or "" when g does not exist.
func goroutineState(g uint64) string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	head := fmt.Sprintf("goroutine %d [", g)
	for _, block := range strings.Split(string(buf), "\n\n") {
		if strings.HasPrefix(block, head) {
			state := block[len(head):]
			return state[:strings.IndexAny(state, ",]")]
		}
	}
	return ""
}

// waitingState is the state goroutine g waits in, once it no longer runs (bounded by
// testTimeout).
func waitingState(g uint64) string {
	deadline := time.Now().Add(testTimeout)
	state := goroutineState(g)
	for (state == "running" || state == "runnable") && time.Now().Before(deadline) {
		runtime.Gosched()
		state = goroutineState(g)
	}
	return state
}

// While Run waits for its turn, delivered on library threads, the goroutine calling it waits
// in robota_session_wait ("syscall"), not parked on a channel (turn.go, waitInLibrary).
func TestRunWaitsForItsTurnInC(t *testing.T) {
	for _, d := range []Delivery{DeliveryThread, DeliveryInline} {
		t.Run(string(d), func(t *testing.T) {
			runner := goid()
			states := make(chan string, 1)
			rt := newRuntime(t, scripted(toolTurn("k"), ScriptedTurn{Text: "Done."}))
			err := rt.RegisterTool(lookupTool(), func(ctx context.Context, call ToolCall) (any, error) {
				states <- waitingState(runner) // a handler goroutine, while the turn runs
				return "v", nil
			})
			if err != nil {
				t.Fatal(err)
			}
			s := newSession(t, rt, SessionConfig{Delivery: d})
			if r, err := s.Run(testCtx(t), "look k up"); err != nil || r.Response != "Done." {
				t.Fatalf("Run = %#v, %v", r, err)
			}
			if state := <-states; state != "syscall" {
				t.Fatalf("while Run waited for its turn, its goroutine was in state %q, want \"syscall\"", state)
			}
		})
	}
}

// While Close waits for SessionClosed to be delivered on a library thread, the closing
// goroutine waits in a C call ("syscall"), not parked on a channel: a parked goroutine
// leaves the Go scheduler idle, and its monitor thread then polls every 20 µs for a
// millisecond once the library thread calls back (closelatch.go).
func TestCloseWaitsForSessionClosedInC(t *testing.T) {
	for _, d := range []Delivery{DeliveryThread, DeliveryInline} {
		t.Run(string(d), func(t *testing.T) {
			closer := goid()
			states := make(chan string, 1)
			onEvent := func(ev Event) {
				if _, ok := ev.(SessionClosed); !ok {
					return
				}
				// The event may arrive before Close has reached its wait.
				states <- waitingState(closer)
			}
			rt := newRuntime(t, scripted(ScriptedTurn{Text: "Hi."}))
			s := newSession(t, rt, SessionConfig{Delivery: d, OnEvent: onEvent})
			if r, err := s.Run(testCtx(t), "hello"); err != nil || r.Response != "Hi." {
				t.Fatalf("Run = %#v, %v", r, err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			select {
			case state := <-states: // sent before Close returned: Close waits for the event
				if state != "syscall" {
					t.Fatalf("while Close waited for SessionClosed, its goroutine was in state %q, want \"syscall\"", state)
				}
			default:
				t.Fatal("Close returned before OnEvent saw SessionClosed")
			}
		})
	}
}
