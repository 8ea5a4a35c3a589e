package robota

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestBudgetStopsTheTurnAndLaterSubmits(t *testing.T) {
	rt := newRuntime(t, scripted(toolTurn("k"), ScriptedTurn{Text: "never"}))
	if err := rt.RegisterTool(lookupTool(), func(ctx context.Context, call ToolCall) (any, error) { return "found", nil }); err != nil {
		t.Fatal(err)
	}
	s := newSession(t, rt, SessionConfig{Budget: &Budget{MaxModelCalls: 1}})
	turn, err := s.Submit(testCtx(t), "go")
	if err != nil {
		t.Fatal(err)
	}
	r, err := turn.Wait(testCtx(t))
	if !errors.Is(err, ErrBudget) || !strings.Contains(err.Error(), "budget exceeded: max_model_calls is 1 and 1 were used") {
		t.Fatalf("wait: %v", err)
	}
	if r.StopReason != StopBudget {
		t.Fatalf("stop reason %q", r.StopReason)
	}
	if _, err := s.Submit(testCtx(t), "more"); !errors.Is(err, ErrBudget) {
		t.Fatalf("second submit: %v", err)
	}
	if _, err := rt.NewSession(SessionConfig{Provider: "s", Model: "m", Extra: map[string]any{"budget": map[string]any{"max_tool_calls": -1}}}); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("negative limit: %v", err)
	}
}
