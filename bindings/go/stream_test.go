package robota

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestStreamingDeliversEventsInOrder(t *testing.T) {
	rt := newRuntime(t, scripted(ScriptedTurn{
		Thinking: []string{"hm"},
		Deltas:   []string{"Hel", "lo", " wörld"},
		Usage:    &ScriptedUsage{InputTokens: 10, OutputTokens: 3},
	}))
	s := newSession(t, rt, SessionConfig{})
	events := s.Events()
	turn, err := s.Submit(testCtx(t), "say hi")
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, events, turn.ID())
	started, ok := evs[0].(TurnStarted)
	if !ok || started.Input.Text != "say hi" || started.Turn() != turn.ID() {
		t.Fatalf("first event = %#v, want TurnStarted of %q", evs[0], "say hi")
	}
	var text strings.Builder
	for _, d := range find[TextDelta](evs) {
		if d.Turn() != turn.ID() {
			t.Fatalf("delta of turn %d, want %d", d.Turn(), turn.ID())
		}
		text.WriteString(d.Text)
	}
	if got := text.String(); got != "Hello wörld" {
		t.Fatalf("deltas = %q", got)
	}
	if th := find[ThinkingDelta](evs); len(th) != 1 || th[0].Text != "hm" {
		t.Fatalf("thinking = %#v", th)
	}
	// The assistant message is committed after its last delta.
	lastDelta, assistantAt := -1, -1
	for i, e := range evs {
		switch v := e.(type) {
		case TextDelta:
			lastDelta = i
		case MessageEvent:
			if v.Role == "assistant" {
				assistantAt = i
				if v.Content != "Hello wörld" || v.State != "complete" {
					t.Fatalf("assistant message = %#v", v.Message)
				}
			}
		}
	}
	if assistantAt < lastDelta {
		t.Fatalf("assistant message at %d before last delta at %d: %v", assistantAt, lastDelta, kinds(evs))
	}
	done := evs[len(evs)-1].(TurnCompleted)
	if done.Response != "Hello wörld" || done.StopReason != StopComplete {
		t.Fatalf("completed = %#v", done.Result)
	}
	if done.Usage == nil || done.Usage.InputTokens != 10 || done.Usage.OutputTokens != 3 || done.Usage.TotalTokens != 13 {
		t.Fatalf("usage = %#v", done.Usage)
	}
	r, err := turn.Wait(testCtx(t))
	if err != nil || r.Response != "Hello wörld" {
		t.Fatalf("Wait = %#v, %v", r, err)
	}
	// Close ends the stream with SessionClosed, then closes the channel.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var rest []Event
	for ev := range events {
		rest = append(rest, ev)
	}
	if len(rest) == 0 || rest[len(rest)-1].Kind() != KindSessionClosed {
		t.Fatalf("after Close: %v, want ... session_closed", kinds(rest))
	}
}

func TestRunReturnsResultAndContextCancelAbortsMidStream(t *testing.T) {
	rt := newRuntime(t, scripted(
		ScriptedTurn{Deltas: []string{"first"}},
		ScriptedTurn{Deltas: []string{"partial"}, Hang: true},
	))
	s := newSession(t, rt, SessionConfig{})
	r, err := s.Run(testCtx(t), "one")
	if err != nil || r.Response != "first" || r.StopReason != StopComplete {
		t.Fatalf("Run = %#v, %v", r, err)
	}
	events := s.Events()
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	type out struct {
		r   Result
		err error
	}
	res := make(chan out, 1)
	go func() {
		r, err := s.Run(ctx, "two")
		res <- out{r, err}
	}()
	// Cancel once the model is mid-stream (its first delta arrived; the script then hangs).
	for ev := range events {
		if d, ok := ev.(TextDelta); ok {
			if d.Text != "partial" {
				t.Fatalf("delta %q", d.Text)
			}
			cancel()
			break
		}
	}
	o := recv(t, res)
	if !errors.Is(o.err, context.Canceled) {
		t.Fatalf("Run error = %v, want context.Canceled", o.err)
	}
	if o.r.StopReason != StopAborted {
		t.Fatalf("stop reason = %q, want aborted", o.r.StopReason)
	}
	// The interrupted answer is kept, marked interrupted.
	msgs, err := s.Messages(ViewConversation)
	if err != nil {
		t.Fatal(err)
	}
	last := msgs[len(msgs)-1]
	if last.Role != "assistant" || last.State != "interrupted" || !strings.HasPrefix(last.Content, "partial") {
		t.Fatalf("last message = %#v", last)
	}
	// The session is usable again.
	r, err = s.Run(testCtx(t), "three")
	if err != nil || r.Response != "offline:three" {
		t.Fatalf("Run after abort = %#v, %v", r, err)
	}
}

func TestFailedTurnIsATypedError(t *testing.T) {
	rt := newRuntime(t, scripted(ScriptedTurn{Error: &ScriptedError{Kind: "provider", Message: "boom"}}))
	s := newSession(t, rt, SessionConfig{})
	r, err := s.Run(testCtx(t), "x")
	var re *Error
	if !errors.As(err, &re) || !errors.Is(err, ErrProvider) {
		t.Fatalf("err = %#v, want *Error matching ErrProvider", err)
	}
	if r.StopReason != StopError || !strings.Contains(re.Message, "boom") {
		t.Fatalf("result %#v, error %q", r, re.Message)
	}
	if re.Code != "PROVIDER_ERROR" || re.Category != "provider" || !re.Recoverable {
		t.Fatalf("taxonomy = %q %q %v", re.Code, re.Category, re.Recoverable)
	}
}
