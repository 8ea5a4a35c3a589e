package robota

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// 100 sessions on one runtime, each on its own goroutine, each running a tool turn and an
// echo turn: every session gets its own answers and tool calls (run with -race).
func TestHundredConcurrentSessions(t *testing.T) {
	const n = 100
	rt := newRuntime(t, scripted(toolTurn("shared"), ScriptedTurn{Text: "tool done"}))
	var calls atomic.Int32
	err := rt.RegisterTool(lookupTool(), func(ctx context.Context, call ToolCall) (any, error) {
		calls.Add(1)
		return map[string]string{"echo": string(call.Arguments)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs <- runOne(rt, i)
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := calls.Load(); got != n {
		t.Fatalf("tool calls = %d, want %d", got, n)
	}
}

func runOne(rt *Runtime, i int) error {
	s, err := rt.NewSession(SessionConfig{Provider: "s", Model: "m"})
	if err != nil {
		return err
	}
	defer s.Close()
	events := s.Events()
	ctx := context.Background()
	r, err := s.Run(ctx, "use the tool")
	if err != nil || r.Response != "tool done" || len(r.ToolSummaries) != 1 {
		return fmt.Errorf("session %d tool turn: %#v, %v", i, r, err)
	}
	want := fmt.Sprintf("q%d", i)
	r, err = s.Run(ctx, want)
	if err != nil || r.Response != "offline:"+want {
		return fmt.Errorf("session %d echo turn: %#v, %v", i, r, err)
	}
	msgs, err := s.Messages(ViewConversation)
	if err != nil || len(msgs) != 6 {
		return fmt.Errorf("session %d has %d messages, %v", i, len(msgs), err)
	}
	if err := s.Close(); err != nil {
		return err
	}
	completed := 0
	for ev := range events {
		if _, ok := ev.(TurnCompleted); ok {
			completed++
		}
	}
	if completed != 2 {
		return fmt.Errorf("session %d saw %d turn_completed events", i, completed)
	}
	return nil
}
