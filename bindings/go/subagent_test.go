package robota

import (
	"encoding/json"
	"testing"
)

// A session-defined agent: the scripted parent calls Agent, the child (a fresh scripted
// provider) asks for Agent too, which it lacks (no nesting), then echoes its task.
func TestSubagentEventsAndAgentsConfig(t *testing.T) {
	cfg := scripted(ScriptedTurn{ToolCalls: []ScriptedToolCall{{ID: "call_1", Name: "Agent",
		Arguments: map[string]any{"prompt": "sub-task", "subagent_type": "helper"}}}})
	p := cfg.Providers["s"]
	p.Fallback = "echo"
	cfg.Providers["s"] = p
	rt := newRuntime(t, cfg)
	s := newSession(t, rt, SessionConfig{PermissionMode: "bypassPermissions",
		Agents: map[string]AgentDefinition{"helper": {Description: "Helps", Prompt: "You help."}}})
	events := s.Events()
	turn, err := s.Submit(testCtx(t), "go")
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, events, turn.ID())
	subs := find[SubagentEvent](evs)
	if len(subs) < 3 {
		t.Fatalf("subagent events: %v", kinds(evs))
	}
	var first, last struct{ Type, Response string }
	_ = json.Unmarshal(subs[0].Event, &first)
	_ = json.Unmarshal(subs[len(subs)-1].Event, &last)
	if first.Type != "turn_started" || last.Type != "turn_completed" || last.Response != "offline:sub-task" {
		t.Fatalf("first %+v last %+v", first, last)
	}
	for _, e := range subs {
		if e.AgentType != "helper" || e.ParentToolCallID == nil || *e.ParentToolCallID != "call_1" || e.AgentID != subs[0].AgentID {
			t.Fatalf("subagent event %+v", e)
		}
	}
	if KindSubagent.String() != "subagent" {
		t.Fatalf("kind name %q", KindSubagent.String())
	}
}
