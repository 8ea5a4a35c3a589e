package robota

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

var sentinels = []error{
	ErrNullArg, ErrInvalidHandle, ErrInvalidJSON, ErrInvalidConfig, ErrBusy, ErrNotFound, ErrStale,
	ErrTimeout, ErrClosed, ErrAborted, ErrReentrant, ErrUnsupported, ErrIO, ErrProvider, ErrPanic,
	ErrInternal, ErrVersionMismatch, ErrInvalidUTF8, ErrBudget, ErrConflict,
}

// Each *Error matches the sentinel of its status and no other.
func TestEveryErrorKindMatchesItsSentinelOnly(t *testing.T) {
	for _, want := range sentinels {
		err := error(&Error{Op: "X", Status: want.(Status)})
		for _, other := range sentinels {
			if got := errors.Is(err, other); got != (other == want) {
				t.Errorf("errors.Is(%v, %v) = %v", err, other, got)
			}
		}
	}
	// An aborted stream's error also matches its context's.
	err := error(&Error{Status: StatusAborted, cause: context.Canceled})
	if !errors.Is(err, ErrAborted) || !errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cause: %v", err)
	}
}

// The kinds the library reports, each from a real call, with its Op.
func TestErrorKindsFromCalls(t *testing.T) {
	rt := newRuntime(t, scripted(ScriptedTurn{Deltas: []string{"x"}, Hang: true}))
	s := newSession(t, rt, SessionConfig{})
	check := func(name string, err error, op string, want error) {
		t.Helper()
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, want) || e.Op != op {
			t.Errorf("%s: %#v, want Op %q matching %v", name, err, op, want)
		}
	}
	_, err := rt.NewSession(SessionConfig{Provider: "s", Model: "m", Extra: map[string]any{"x": json.RawMessage("{")}})
	check("raw JSON that is not JSON", err, "NewSession", ErrInvalidJSON)
	_, err = rt.NewSession(SessionConfig{Provider: "s", Model: "m", Extra: map[string]any{"x": make(chan int)}})
	check("a value with no JSON form", err, "NewSession", ErrInvalidConfig)
	_, err = rt.NewSession(SessionConfig{Provider: "s", Model: "m", MaxTokens: -1})
	check("a bad config", err, "NewSession", ErrInvalidConfig)
	_, err = s.Command("no-such-command", "")
	check("unknown command", err, "Command", ErrNotFound)
	err = s.RespondPermission(987654, Allow)
	check("unknown request", err, "Respond", ErrNotFound)
	if _, err := s.Submit(testCtx(t), "one"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Submit(testCtx(t), "two"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Run(testCtx(t), "three")
	check("third prompt", err, "Run", ErrBusy)
	_, err = s.Command("clear", "")
	check("clear during a turn", err, "Command", ErrBusy)
	err = s.WaitIdle(1)
	check("wait", err, "WaitIdle", ErrTimeout)
	_ = s.Close()
	_, err = s.State()
	check("closed", err, "State", ErrClosed)
}
