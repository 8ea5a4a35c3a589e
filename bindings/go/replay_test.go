package robota

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRecordThenReplayOfflineAndCostBudget(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec.jsonl")
	cfg := scripted(toolTurn("k"), ScriptedTurn{Deltas: []string{"Fou", "nd it."}})
	cfg.Providers["rep"] = ProviderConfig{Kind: "replay", File: rec, Strict: true}
	rt := newRuntime(t, cfg)
	if err := rt.RegisterTool(lookupTool(), func(ctx context.Context, call ToolCall) (any, error) { return "found", nil }); err != nil {
		t.Fatal(err)
	}
	run := func(provider, text string, record string) (Result, error) {
		s := newSession(t, rt, SessionConfig{Provider: provider, Model: "m", Cwd: dir, Record: record})
		turn, err := s.Submit(testCtx(t), text)
		if err != nil {
			t.Fatal(err)
		}
		return turn.Wait(testCtx(t))
	}
	want, err := run("s", "go", "rec.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(rec)
	if err != nil || !strings.HasPrefix(string(data), `{"robota_recording":1`) {
		t.Fatalf("recording: %v %q", err, data)
	}
	got, err := run("rep", "go", "")
	if err != nil {
		t.Fatal(err)
	}
	if got.Response != want.Response || got.Response != "Found it." {
		t.Fatalf("replayed %q, recorded %q", got.Response, want.Response)
	}
	if _, err := run("rep", "other", ""); err == nil || !strings.Contains(err.Error(), `message 0 (role user): field "content": recorded "go", got "other"`) {
		t.Fatalf("strict replay: %v", err)
	}
	// max_cost_usd needs a priced model
	if _, err := rt.NewSession(SessionConfig{Provider: "s", Model: "m", Budget: &Budget{MaxCostUSD: 1}}); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), `needs the price of model "m"`) {
		t.Fatalf("unpriced cost budget: %v", err)
	}
	s := newSession(t, rt, SessionConfig{Provider: "s", Model: "claude-haiku-4-5", Budget: &Budget{MaxCostUSD: 0.5}})
	out, err := s.Command("cost", "")
	if err != nil || !strings.Contains(out.Message, "Cost: $0 of $0.5") {
		t.Fatalf("cost: %+v %v", out, err)
	}
}
