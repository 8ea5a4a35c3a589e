package robota

import (
	"errors"
	"strings"
	"testing"
)

func TestRegisterTemplateAndAssignTask(t *testing.T) {
	cfg := scripted(
		ScriptedTurn{ToolCalls: []ScriptedToolCall{{ID: "a1", Name: "assignTask",
			Arguments: map[string]any{"templateId": "greeter", "jobDescription": "greet"}}}},
		ScriptedTurn{Text: "done"},
	)
	cfg.Providers["c"] = ProviderConfig{Kind: "scripted", Turns: []ScriptedTurn{{Text: "hello from the child"}}}
	rt := newRuntime(t, cfg)
	temp := 0.5
	greeter := Template{ID: "greeter", Name: "Greeter", Provider: "c", Model: "m", Temperature: &temp,
		SystemMessage: "You greet."}
	if err := rt.RegisterTemplate(greeter); err != nil {
		t.Fatal(err)
	}
	err := rt.RegisterTemplate(greeter)
	if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), `template "greeter" is already registered`) {
		t.Fatalf("duplicate: %v", err)
	}
	err = rt.RegisterTemplate(Template{ID: "x", Name: "X", Provider: "c", Model: "m"})
	if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), `field "systemMessage" must be a non-empty string`) {
		t.Fatalf("missing system message: %v", err)
	}
	s := newSession(t, rt, SessionConfig{Team: true, PermissionMode: ModeBypassPermissions})
	turn, err := s.Submit(testCtx(t), "delegate")
	if err != nil {
		t.Fatal(err)
	}
	r, err := turn.Wait(testCtx(t))
	if err != nil || r.Response != "done" {
		t.Fatalf("result %#v, %v", r, err)
	}
	mustContain(t, conversation(t, s), `"role":"tool","content":"{\"response\":\"hello from the child\",\"templateId\":\"greeter\"}"`)
}
