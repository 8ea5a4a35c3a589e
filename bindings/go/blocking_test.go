package robota

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestWaitIdleContext(t *testing.T) {
	rt := newRuntime(t, scripted(ScriptedTurn{Deltas: []string{"x"}, Hang: true}, ScriptedTurn{Text: "done"}))
	s := newSession(t, rt, SessionConfig{})
	turn, err := s.Submit(testCtx(t), "hang")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(testCtx(t), 100*time.Millisecond)
	defer cancel()
	if err := s.WaitIdleContext(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("with a turn hanging: %v", err)
	}
	if err := turn.Abort(); err != nil {
		t.Fatal(err)
	}
	if _, err := turn.Wait(testCtx(t)); !errors.Is(err, ErrAborted) {
		t.Fatalf("aborted turn: %v", err)
	}
	if _, err := s.Run(testCtx(t), "two"); err != nil {
		t.Fatal(err)
	}
	if err := s.WaitIdleContext(testCtx(t)); err != nil {
		t.Fatalf("idle: %v", err)
	}
	if err := s.WaitIdleContext(context.Background()); err != nil {
		t.Fatalf("idle, no deadline: %v", err)
	}
	_ = s.Close()
	if err := s.WaitIdleContext(testCtx(t)); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed: %v", err)
	}
}

func TestCommandAndQueryContexts(t *testing.T) {
	rt := newRuntime(t, scripted(ScriptedTurn{Text: "slow", DelayMS: 300})) // each query's session starts the script
	// A host command nobody answers: ctx bounds the wait.
	s := newSession(t, rt, SessionConfig{Tools: []string{}, Commands: []HostCommand{{Name: "deploy", Description: "d"}}})
	ctx, cancel := context.WithTimeout(testCtx(t), 50*time.Millisecond)
	defer cancel()
	if _, err := s.CommandContext(ctx, "deploy", "prod"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("unanswered command: %v", err)
	}
	if res, err := s.CommandContext(testCtx(t), "help", ""); err != nil || !res.Success {
		t.Fatalf("help: %#v, %v", res, err)
	}
	// A query slower than its context.
	qctx, qcancel := context.WithTimeout(testCtx(t), 50*time.Millisecond)
	defer qcancel()
	if _, err := rt.QueryContext(qctx, SessionConfig{Provider: "s", Model: "m"}, "q"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow query: %v", err)
	}
	done, dcancel := context.WithCancel(context.Background())
	dcancel()
	if _, err := rt.QueryContext(done, SessionConfig{Provider: "s", Model: "m"}, "q"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before: %v", err)
	}
	res, err := rt.QueryContext(testCtx(t), SessionConfig{Provider: "s", Model: "m"}, "q")
	if err != nil || res.Response != "slow" {
		t.Fatalf("query: %#v, %v", res, err)
	}
}
