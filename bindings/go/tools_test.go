package robota

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

func TestHostToolSync(t *testing.T) {
	rt := newRuntime(t, scripted(toolTurn("k1"), ScriptedTurn{Deltas: []string{"Done."}}))
	var calls atomic.Int32
	var gotKey atomic.Value
	err := rt.RegisterTool(lookupTool(), func(ctx context.Context, call ToolCall) (any, error) {
		calls.Add(1)
		var args struct{ Key string }
		if err := call.Decode(&args); err != nil {
			return nil, err
		}
		gotKey.Store(call.Name + ":" + args.Key)
		return map[string]int{"value": 42}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, rt, SessionConfig{Tools: []string{"lookup"}})
	events := s.Events()
	turn, err := s.Submit(testCtx(t), "find k1")
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, events, turn.ID())
	if calls.Load() != 1 || gotKey.Load() != "lookup:k1" {
		t.Fatalf("calls=%d key=%v", calls.Load(), gotKey.Load())
	}
	start := find[ToolStart](evs)
	end := find[ToolEnd](evs)
	if len(start) != 1 || start[0].FirstArg != "k1" || start[0].ToolName != "lookup" {
		t.Fatalf("tool start = %#v", start)
	}
	if len(end) != 1 || end[0].Result != "success" || end[0].Output != `{"value":42}` {
		t.Fatalf("tool end = %#v", end)
	}
	r, err := turn.Wait(testCtx(t))
	if err != nil || r.Response != "Done." {
		t.Fatalf("result %#v, %v", r, err)
	}
	if len(r.ToolSummaries) != 1 || r.ToolSummaries[0].Name != "lookup" || string(r.ToolSummaries[0].Args) != `{"key":"k1"}` {
		t.Fatalf("summaries = %#v", r.ToolSummaries)
	}
	mustContain(t, conversation(t, s), `"role":"tool","content":"{\"value\":42}"`)
	hist, err := s.History()
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, h := range hist {
		types = append(types, h.Type)
	}
	mustContain(t, strings.Join(types, ","), "tool-start,tool-end")
}

func TestHostToolCompletedFromAnotherGoroutine(t *testing.T) {
	rt := newRuntime(t, scripted(toolTurn("k2"), ScriptedTurn{Deltas: []string{"Done."}}))
	type job struct {
		call  ToolCall
		reply chan string
	}
	jobs := make(chan job)
	err := rt.RegisterTool(lookupTool(), func(ctx context.Context, call ToolCall) (any, error) {
		j := job{call, make(chan string)}
		jobs <- j
		select {
		case v := <-j.reply:
			return v, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, rt, SessionConfig{})
	turn, err := s.Submit(testCtx(t), "find k2")
	if err != nil {
		t.Fatal(err)
	}
	// A worker goroutine, not the handler, produces the result.
	go func() {
		j := <-jobs
		j.reply <- "plain text result for " + string(j.call.Arguments)
	}()
	r, err := turn.Wait(testCtx(t))
	if err != nil || r.Response != "Done." {
		t.Fatalf("result %#v, %v", r, err)
	}
	mustContain(t, conversation(t, s), `"role":"tool","content":"plain text result for {\"key\":\"k2\"}"`)
}

func TestContextCancelMidToolCancelsHandler(t *testing.T) {
	rt := newRuntime(t, scripted(toolTurn("k3"), ScriptedTurn{Deltas: []string{"never"}}))
	started := make(chan uint64)
	handlerSaw := make(chan error, 1)
	err := rt.RegisterTool(lookupTool(), func(ctx context.Context, call ToolCall) (any, error) {
		started <- call.ID
		<-ctx.Done()
		handlerSaw <- ctx.Err()
		return nil, ctx.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, rt, SessionConfig{})
	events := s.Events()
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	turn, err := s.Submit(ctx, "find k3")
	if err != nil {
		t.Fatal(err)
	}
	callID := recv(t, started)
	cancel()
	if err := recv(t, handlerSaw); !errors.Is(err, context.Canceled) {
		t.Fatalf("handler ctx err = %v", err)
	}
	evs := collect(t, events, turn.ID())
	cancelled := find[ToolCallCancelled](evs)
	if len(cancelled) != 1 || cancelled[0].CallID != callID {
		t.Fatalf("cancelled = %#v, want call %d", cancelled, callID)
	}
	end := find[ToolEnd](evs)
	if len(end) != 1 || end[0].Output != "Error: Execution interrupted by user" {
		t.Fatalf("tool end = %#v", end)
	}
	r, err := turn.Wait(testCtx(t))
	if r.StopReason != StopAborted || !errors.Is(err, ErrAborted) {
		t.Fatalf("result %#v, %v", r, err)
	}
}

func TestPanicInToolHandlerIsTheToolsFailure(t *testing.T) {
	rt := newRuntime(t, scripted(toolTurn("k4"), ScriptedTurn{Deltas: []string{"Recovered."}}))
	err := rt.RegisterTool(lookupTool(), func(ctx context.Context, call ToolCall) (any, error) {
		panic("boom")
	})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, rt, SessionConfig{})
	events := s.Events()
	turn, err := s.Submit(testCtx(t), "go")
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, events, turn.ID())
	end := find[ToolEnd](evs)
	if len(end) != 1 || end[0].Result != "error" || end[0].Output != `Error: tool "lookup" panicked: boom` {
		t.Fatalf("tool end = %#v", end)
	}
	if r, err := turn.Wait(testCtx(t)); err != nil || r.Response != "Recovered." {
		t.Fatalf("result %#v, %v", r, err)
	}
}

func TestToolErrorAndUnencodableResult(t *testing.T) {
	rt := newRuntime(t, scripted(
		toolTurn("a"), ScriptedTurn{Text: "one"},
		toolTurn("b"), ScriptedTurn{Text: "two"},
	))
	err := rt.RegisterTool(lookupTool(), func(ctx context.Context, call ToolCall) (any, error) {
		if strings.Contains(string(call.Arguments), `"a"`) {
			return nil, errors.New("no such key")
		}
		return make(chan int), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, rt, SessionConfig{})
	events := s.Events()
	for _, want := range []string{"Error: no such key", `Error: tool "lookup" returned a value that cannot be encoded as JSON`} {
		turn, err := s.Submit(testCtx(t), "go")
		if err != nil {
			t.Fatal(err)
		}
		end := find[ToolEnd](collect(t, events, turn.ID()))
		if len(end) != 1 || end[0].Result != "error" || !strings.HasPrefix(end[0].Output, want) {
			t.Fatalf("tool end = %#v, want %q", end, want)
		}
	}
}
