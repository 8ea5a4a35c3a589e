package robota

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// drain reads a stream to its end on another goroutine.
func drain(st *TurnStream) <-chan []Event {
	out := make(chan []Event, 1)
	go func() {
		var evs []Event
		for st.Next() {
			evs = append(evs, st.Event())
		}
		out <- evs
	}()
	return out
}

func TestStreamYieldsItsTurnsEventsOnly(t *testing.T) {
	rt := newRuntime(t, scripted(
		ScriptedTurn{Deltas: []string{"He", "llo"}, DelayMS: 50},
		ScriptedTurn{Deltas: []string{"second"}},
	))
	s := newSession(t, rt, SessionConfig{ContextWindow: 100000})
	st1 := s.Stream(testCtx(t), "one")
	st2 := s.Stream(testCtx(t), "two") // queued behind the first
	got1, got2 := drain(st1), drain(st2)
	evs1, evs2 := recv(t, got1), recv(t, got2)
	want := []string{"turn_started", "message", "context_update", "text_delta", "text_delta", "context_update", "message", "turn_completed"}
	if k := kinds(evs1); !reflect.DeepEqual(k, want) {
		t.Fatalf("first stream: %v, want %v", k, want)
	}
	for _, ev := range evs1 {
		if ev.Turn() != st1.Turn().ID() {
			t.Fatalf("first stream has an event of turn %d: %#v", ev.Turn(), ev)
		}
	}
	want2 := []string{"turn_started", "message", "context_update", "text_delta", "context_update", "message", "turn_completed"}
	if k := kinds(evs2); !reflect.DeepEqual(k, want2) {
		t.Fatalf("second stream: %v, want %v", k, want2)
	}
	if evs2[0].(TurnStarted).Input.Text != "two" || evs2[0].Turn() != st2.Turn().ID() {
		t.Fatalf("second stream starts with %#v", evs2[0])
	}
	if st1.Err() != nil || st1.Result().Response != "Hello" || st1.Result().StopReason != StopComplete {
		t.Fatalf("first: %#v, %v", st1.Result(), st1.Err())
	}
	if st2.Err() != nil || st2.Result().Response != "second" {
		t.Fatalf("second: %#v, %v", st2.Result(), st2.Err())
	}
	if st1.Next() || st1.Event() != nil {
		t.Fatal("Next after the end")
	}
}

func TestStreamFailureIsTheTurnsTypedError(t *testing.T) {
	rt := newRuntime(t, scripted(ScriptedTurn{Error: &ScriptedError{Kind: "provider", Message: "boom"}}))
	s := newSession(t, rt, SessionConfig{})
	st := s.Stream(testCtx(t), "x")
	evs := recv(t, drain(st))
	if k := kinds(evs); k[len(k)-1] != "turn_completed" || k[len(k)-2] != "error" {
		t.Fatalf("events %v", k)
	}
	var e *Error
	if !errors.As(st.Err(), &e) || !errors.Is(st.Err(), ErrProvider) || e.Op != "Stream" || e.Code != "PROVIDER_ERROR" || !strings.Contains(e.Message, "boom") {
		t.Fatalf("Err = %#v", st.Err())
	}
	if st.Result().StopReason != StopError {
		t.Fatalf("result %#v", st.Result())
	}
}

func TestStreamRefusedSubmit(t *testing.T) {
	rt := newRuntime(t, scripted())
	s := newSession(t, rt, SessionConfig{})
	_ = s.Close()
	st := s.Stream(testCtx(t), "x")
	if st.Next() || st.Turn() != nil {
		t.Fatal("a refused stream has events")
	}
	var e *Error
	if !errors.As(st.Err(), &e) || !errors.Is(st.Err(), ErrClosed) || e.Op != "Stream" || e.Message != "session is closed" {
		t.Fatalf("Err = %#v", st.Err())
	}
}

func TestRunErrorsSayRun(t *testing.T) {
	rt := newRuntime(t, scripted(ScriptedTurn{Error: &ScriptedError{Message: "boom"}}))
	s := newSession(t, rt, SessionConfig{})
	_, err := s.Run(testCtx(t), "x")
	var e *Error
	if !errors.As(err, &e) || e.Op != "Run" || !errors.Is(err, ErrProvider) {
		t.Fatalf("Run: %#v", err)
	}
	_ = s.Close()
	if _, err := s.Run(testCtx(t), "y"); !errors.As(err, &e) || e.Op != "Run" || !errors.Is(err, ErrClosed) {
		t.Fatalf("Run on a closed session: %#v", err)
	}
}

// Cancelling the first stream's context aborts its turn only: the queued second turn runs.
func TestStreamCancelAbortsThatTurnOnly(t *testing.T) {
	rt := newRuntime(t, scripted(
		ScriptedTurn{Deltas: []string{"partial"}, Hang: true},
		ScriptedTurn{Deltas: []string{"next one"}},
	))
	s := newSession(t, rt, SessionConfig{})
	ctx1, cancel1 := context.WithCancel(testCtx(t))
	defer cancel1()
	st1 := s.Stream(ctx1, "slow")
	st2 := s.Stream(testCtx(t), "queued")
	got2 := drain(st2)
	for st1.Next() {
		if d, ok := st1.Event().(TextDelta); ok && d.Text == "partial" {
			cancel1()
		}
	}
	if !errors.Is(st1.Err(), ErrAborted) || !errors.Is(st1.Err(), context.Canceled) || st1.Result().StopReason != StopAborted {
		t.Fatalf("first: %#v, %v", st1.Result(), st1.Err())
	}
	var e *Error
	if !errors.As(st1.Err(), &e) || e.Op != "Stream" || e.Error() != "robota: Stream: turn aborted: context canceled" {
		t.Fatalf("first error %#v", st1.Err())
	}
	recv(t, got2)
	if st2.Err() != nil || st2.Result().Response != "next one" || st2.Result().StopReason != StopComplete {
		t.Fatalf("second: %#v, %v", st2.Result(), st2.Err())
	}
}
