package robota

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

// After Close (sessions and runtime) the library has released every handle (sessions,
// tools) and the binding's goroutines (handlers, context watchers, event forwarders) are gone.
func TestNoHandleOrGoroutineLeaksAfterClose(t *testing.T) {
	// Earlier tests' runtimes are released asynchronously (the last reference may be dropped
	// on a library thread): start from zero.
	waitCount(t, "handles before the test", &handles, 0)
	waitCount(t, "binding goroutines before the test", &workers, 0)
	baseHandles, baseWorkers := 0, 0

	rt, err := NewRuntime(scripted(
		toolTurn("a"), ScriptedTurn{Text: "one"},
		ScriptedTurn{Deltas: []string{"stuck"}, Hang: true},
	))
	if err != nil {
		t.Fatal(err)
	}
	err = rt.RegisterTool(writeTool(), func(ctx context.Context, call ToolCall) (any, error) {
		return "ok", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := rt.NewSession(SessionConfig{Provider: "s", Model: "m",
		OnPermission: func(ctx context.Context, req PermissionRequest) (PermissionDecision, error) { return Allow, nil }})
	if err != nil {
		t.Fatal(err)
	}
	events := s.Events()
	if _, err := s.Run(testCtx(t), "tool turn"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := s.Submit(ctx, "hangs until closed"); err != nil { // a context watcher stays
		t.Fatal(err)
	}
	f, err := s.Fork(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	fe := f.Events()
	if n, _ := handles.get(); n != baseHandles+3 { // 1 tool + 2 sessions
		t.Fatalf("live handles = %d, want %d", n, baseHandles+3)
	}

	// A third session dies with a handler blocked on its context.
	rt2, err := NewRuntime(RuntimeConfig{Providers: map[string]ProviderConfig{"s": {Kind: "scripted",
		Turns: []ScriptedTurn{{ToolCalls: []ScriptedToolCall{{Name: "block", Arguments: map[string]any{}}}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	blocked := make(chan struct{})
	if err := rt2.RegisterTool(ToolDef{Name: "block", Description: "waits", ReadOnly: true}, func(ctx context.Context, call ToolCall) (any, error) {
		close(blocked)
		<-ctx.Done()
		return nil, ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	s3, err := rt2.NewSession(SessionConfig{Provider: "s", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s3.Submit(context.Background(), "block"); err != nil {
		t.Fatal(err)
	}
	recv(t, (<-chan struct{})(blocked))

	for _, c := range []interface{ Close() error }{s, f, s3, rt, rt2} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for range events {
	}
	for range fe {
	}
	waitCount(t, "handles", &handles, baseHandles)
	waitCount(t, "binding goroutines", &workers, baseWorkers)
	if left := bindingGoroutines(); len(left) > 0 {
		t.Fatalf("goroutines still in binding code:\n%s", strings.Join(left, "\n\n"))
	}
}

// A session and runtime nobody closed are released by their finalizers, even with a turn
// still running.
func TestFinalizersReleaseForgottenObjects(t *testing.T) {
	waitCount(t, "handles before the test", &handles, 0)
	forget := func() {
		rt, err := NewRuntime(scripted(ScriptedTurn{Deltas: []string{"stuck"}, Hang: true}))
		if err != nil {
			t.Fatal(err)
		}
		s, err := rt.NewSession(SessionConfig{Provider: "s", Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Submit(context.Background(), "hang"); err != nil {
			t.Fatal(err)
		}
	}
	forget()
	if n, _ := handles.get(); n != 1 {
		t.Fatalf("live handles = %d, want 1 (the session)", n)
	}
	runtime.GC() // queues both finalizers; the counter then changes without further help
	waitCount(t, "handles", &handles, 0)
}
