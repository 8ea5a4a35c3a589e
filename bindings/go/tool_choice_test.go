package robota

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestToolChoiceForms(t *testing.T) {
	for _, c := range []struct {
		choice *ToolChoice
		want   string
	}{{ToolChoiceAuto, `"auto"`}, {ToolChoiceNone, `"none"`}, {ToolChoiceRequired, `"required"`},
		{ToolChoiceTool("lookup"), `{"name":"lookup"}`}} {
		b, err := json.Marshal(c.choice)
		if err != nil || string(b) != c.want {
			t.Fatalf("%v: %s %v", c.choice, b, err)
		}
		var back ToolChoice
		if err := json.Unmarshal(b, &back); err != nil || back != *c.choice {
			t.Fatalf("round trip %s: %v %v", b, back, err)
		}
	}
	var bad ToolChoice
	if json.Unmarshal([]byte(`"any"`), &bad) == nil {
		t.Fatal(`"any" must be rejected`)
	}
	doc, _ := SessionConfig{Provider: "s", Model: "m", ContextWindow: 4096, ToolChoice: ToolChoiceRequired}.json()
	if !strings.Contains(doc, `"context_window":4096`) || !strings.Contains(doc, `"tool_choice":"required"`) {
		t.Fatalf("session document %s", doc)
	}
}

func TestToolChoiceReachesTheServer(t *testing.T) {
	f := startFakeServer(t)
	for i := 0; i < 2; i++ {
		f.do(t, map[string]any{"cmd": "enqueue", "kind": "openai", "text": []string{"ok"}})
	}
	rt := httpRuntime(t, f, "openai", f.BaseURL+"/v1")
	err := rt.RegisterTool(ToolDef{Name: "lookup", Description: "d", ReadOnly: true}, func(ctx context.Context, call ToolCall) (any, error) {
		return "x", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.NewSession(SessionConfig{Provider: "fake", Model: "gpt-test", ToolChoice: ToolChoiceTool("deploy")}); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), `no tool named "deploy"`) {
		t.Fatalf("unknown named tool: %v", err)
	}
	s := newSession(t, rt, SessionConfig{Provider: "fake", Model: "gpt-test", ToolChoice: ToolChoiceRequired})
	for _, in := range []Input{{Text: "a"}, {Text: "b", ToolChoice: ToolChoiceTool("lookup")}} {
		turn, err := s.SubmitInput(testCtx(t), in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := turn.Wait(testCtx(t)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.SubmitInput(testCtx(t), Input{Text: "c", ToolChoice: ToolChoiceTool("deploy")}); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("unknown named tool per turn: %v", err)
	}
	var reqs []struct {
		Body struct {
			ToolChoice json.RawMessage `json:"tool_choice"`
		} `json:"body"`
	}
	if err := json.Unmarshal(f.do(t, map[string]any{"cmd": "requests"}), &reqs); err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || string(reqs[0].Body.ToolChoice) != `"required"` ||
		string(reqs[1].Body.ToolChoice) != `{"type":"function","function":{"name":"lookup"}}` {
		t.Fatalf("requests = %s / %s", reqs[0].Body.ToolChoice, reqs[1].Body.ToolChoice)
	}
}
