package robota

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// An abort mid-stream cancels the provider's context once, with the reason, and the turn ends
// aborted after the one delta; the binding drains what the provider sends afterwards.
func TestHostProviderAbortMidStream(t *testing.T) {
	cancelled := make(chan string, 2)
	var calls sync.WaitGroup
	calls.Add(1)
	model := &goModel{answers: []func(context.Context, *ModelRequest, chan<- ModelEvent){
		func(ctx context.Context, _ *ModelRequest, out chan<- ModelEvent) {
			defer calls.Done()
			out <- TextEvent("partial")
			<-ctx.Done()
			cancelled <- CancelReason(ctx)
			out <- TextEvent(" late") // drained by the binding, refused by the library
		},
	}}
	var cancelDocs sync.Map // call id → the reasons of its cancel documents
	hook := func(id uint64, reason string) {
		prev, _ := cancelDocs.LoadOrStore(id, []string{})
		cancelDocs.Store(id, append(prev.([]string), reason))
	}
	providerCancelHook.Store(&hook)
	defer providerCancelHook.Store(nil)
	rt := hostRuntime(t, ProviderCapabilities{}, model)
	s := hostSession(t, rt)
	stream := s.Stream(testCtx(t), "Go on.")
	var got []string
	for stream.Next() {
		if d, ok := stream.Event().(TextDelta); ok {
			got = append(got, d.Text)
			if err := stream.Turn().Abort(); err != nil {
				t.Fatalf("Abort: %v", err)
			}
		}
	}
	if err := stream.Err(); !errors.Is(err, ErrAborted) {
		t.Fatalf("stream error %v, want ErrAborted", err)
	}
	if r := stream.Result(); r.StopReason != StopAborted {
		t.Fatalf("stop reason %q", r.StopReason)
	}
	if reason := recv(t, cancelled); reason != "aborted" {
		t.Fatalf("cancel reason %q", reason)
	}
	calls.Wait()
	if len(cancelled) != 0 || len(model.seen()) != 1 || !reflect.DeepEqual(got, []string{"partial"}) {
		t.Fatalf("cancellations left %d, calls %d, deltas %q", len(cancelled), len(model.seen()), got)
	}
	docs, _ := cancelDocs.Load(model.seen()[0].CallID)
	if !reflect.DeepEqual(docs, []string{"aborted"}) {
		t.Fatalf("cancel documents of the call: %q, want exactly one (aborted)", docs)
	}
}

// hangs streams one delta, then waits for the call's cancellation and reports its reason.
func hangs(reasons chan<- string) func(context.Context, *ModelRequest, chan<- ModelEvent) {
	return func(ctx context.Context, _ *ModelRequest, out chan<- ModelEvent) {
		out <- TextEvent("thinking about it")
		<-ctx.Done()
		reasons <- CancelReason(ctx)
	}
}

// Closing the session cancels its open call with the reason "session_closed".
func TestHostProviderSessionCloseCancelsTheCall(t *testing.T) {
	reasons := make(chan string, 1)
	model := &goModel{answers: []func(context.Context, *ModelRequest, chan<- ModelEvent){hangs(reasons)}}
	rt := hostRuntime(t, ProviderCapabilities{}, model)
	s := hostSession(t, rt)
	stream := s.Stream(testCtx(t), "hello")
	for stream.Next() {
		if _, ok := stream.Event().(TextDelta); ok {
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if reason := recv(t, reasons); reason != "session_closed" {
		t.Fatalf("cancel reason %q, want session_closed", reason)
	}
}

// A call with no event for TimeoutMS is cancelled ("timeout") and fails the turn saying so.
func TestHostProviderTimeoutCancelsTheCall(t *testing.T) {
	reasons := make(chan string, 1)
	model := &goModel{answers: []func(context.Context, *ModelRequest, chan<- ModelEvent){hangs(reasons)}}
	rt := hostRuntime(t, ProviderCapabilities{TimeoutMS: 100, MaxRetries: Int(0)}, model)
	s := hostSession(t, rt)
	_, err := s.Run(testCtx(t), "hello")
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusProvider {
		t.Fatalf("Run error %v, want ErrProvider", err)
	}
	if want := `turn 1 failed: Provider Error (local): host provider "local": no event for 100 ms`; e.Message != want {
		t.Fatalf("message %q, want %q", e.Message, want)
	}
	if reason := recv(t, reasons); reason != "timeout" {
		t.Fatalf("cancel reason %q, want timeout", reason)
	}
}

// After Close, the provider's handle is released and no binding goroutine is left, even with a
// call that was streaming.
func TestHostProviderLeavesNothingAfterClose(t *testing.T) {
	waitCount(t, "handles before the test", &handles, 0)
	waitCount(t, "binding goroutines before the test", &workers, 0)
	reasons := make(chan string, 1)
	model := &goModel{answers: []func(context.Context, *ModelRequest, chan<- ModelEvent){hangs(reasons)}}
	rt, err := NewRuntime(RuntimeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.RegisterProvider("local", ProviderCapabilities{}, model); err != nil {
		t.Fatal(err)
	}
	s, err := rt.NewSession(SessionConfig{Provider: "local", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	stream := s.Stream(context.Background(), "hello")
	for stream.Next() {
		if _, ok := stream.Event().(TextDelta); ok {
			break
		}
	}
	if n, _ := handles.get(); n != 2 { // the provider and the session
		t.Fatalf("live handles = %d, want 2", n)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for stream.Next() {
	}
	if reason := recv(t, reasons); reason != "session_closed" {
		t.Fatalf("cancel reason %q", reason)
	}
	waitCount(t, "handles", &handles, 0)
	waitCount(t, "binding goroutines", &workers, 0)
	if left := bindingGoroutines(); len(left) > 0 {
		t.Fatalf("goroutines still in binding code:\n%s", strings.Join(left, "\n\n"))
	}
}
