package robota

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"
)

// testTimeout bounds every wait of the tests (a hang fails instead of blocking CI).
const testTimeout = 60 * time.Second

func scripted(turns ...ScriptedTurn) RuntimeConfig {
	return RuntimeConfig{Providers: map[string]ProviderConfig{"s": {Kind: "scripted", Turns: turns}}}
}

func newRuntime(t *testing.T, cfg RuntimeConfig) *Runtime {
	t.Helper()
	rt, err := NewRuntime(cfg)
	if err != nil {
		t.Fatalf("NewRuntime: %v", err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	return rt
}

func newSession(t *testing.T, rt *Runtime, cfg SessionConfig) *Session {
	t.Helper()
	if cfg.Provider == "" {
		cfg.Provider, cfg.Model = "s", "m"
	}
	s, err := rt.NewSession(cfg)
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	t.Cleanup(func() {
		_ = s.Close()
		s.core.mu.Lock()
		stream := s.core.stream
		s.core.mu.Unlock()
		if stream != nil { // Events() was read: drain it, as its contract asks
			for range stream.out {
			}
		}
	})
	return s
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

var lookupSchema = map[string]any{
	"type":       "object",
	"properties": map[string]any{"key": map[string]any{"type": "string"}},
	"required":   []string{"key"},
}

// lookupTool is read-only (no permission prompt); writeTool needs approval.
func lookupTool() ToolDef {
	return ToolDef{Name: "lookup", Description: "Looks a key up", InputSchema: lookupSchema, ReadOnly: true}
}

func writeTool() ToolDef {
	return ToolDef{Name: "lookup", Description: "Changes things", InputSchema: lookupSchema}
}

func toolTurn(key string) ScriptedTurn {
	return ScriptedTurn{Text: "Calling.", ToolCalls: []ScriptedToolCall{{ID: "call_0", Name: "lookup", Arguments: map[string]any{"key": key}}}}
}

// collect reads events until the TurnCompleted of turn (or fails the test).
func collect(t *testing.T, events <-chan Event, turn uint64) []Event {
	t.Helper()
	var out []Event
	deadline := time.After(testTimeout)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("events closed before turn %d completed; got %v", turn, kinds(out))
			}
			out = append(out, ev)
			if tc, ok := ev.(TurnCompleted); ok && tc.TurnID == turn {
				return out
			}
		case <-deadline:
			t.Fatalf("turn %d did not complete; got %v", turn, kinds(out))
		}
	}
}

func kinds(evs []Event) []string {
	var k []string
	for _, e := range evs {
		k = append(k, e.Kind().String())
	}
	return k
}

func find[T Event](evs []Event) []T {
	var out []T
	for _, e := range evs {
		if v, ok := e.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

func conversation(t *testing.T, s *Session) string {
	t.Helper()
	msgs, err := s.Messages(ViewConversation)
	if err != nil {
		t.Fatalf("Messages: %v", err)
	}
	b, _ := json.Marshal(msgs)
	return string(b)
}

func mustContain(t *testing.T, hay, needle string) {
	t.Helper()
	if !strings.Contains(hay, needle) {
		t.Fatalf("%q does not contain %q", hay, needle)
	}
}

// waitCount waits (on change notifications, never by sleeping) until c reaches want.
func waitCount(t *testing.T, name string, c *counter, want int) {
	t.Helper()
	deadline := time.After(testTimeout)
	for {
		n, changed := c.get()
		if n == want {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("%s: %d live, want %d", name, n, want)
		}
	}
}

// bindingGoroutines returns the stacks of goroutines running binding code (a frame in a
// non-test file of this package), after letting goroutines that are finishing exit
// (yielding, not sleeping).
func bindingGoroutines() []string {
	var found []string
	for i := 0; i < 10000; i++ {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		found = found[:0]
		for _, g := range strings.Split(string(buf), "\n\n") {
			for _, line := range strings.Split(g, "\n") {
				if strings.Contains(line, "/bindings/go/") && strings.Contains(line, ".go:") && !strings.Contains(line, "_test.go:") {
					found = append(found, g)
					break
				}
			}
		}
		if len(found) == 0 {
			return nil
		}
		runtime.Gosched()
	}
	return found
}

// recv receives from ch or fails the test after testTimeout.
func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testTimeout):
		t.Fatalf("nothing received within %v", testTimeout)
		var zero T
		return zero
	}
}
