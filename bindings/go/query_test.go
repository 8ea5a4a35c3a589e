package robota

import (
	"errors"
	"testing"
)

func TestQueryAnswersOnceAndReportsTheConversation(t *testing.T) {
	rt := newRuntime(t, scripted(ScriptedTurn{Deltas: []string{"Hel", "lo"}, Usage: &ScriptedUsage{InputTokens: 4, OutputTokens: 2}}))
	res, err := rt.Query(SessionConfig{Provider: "s", Model: "m", SystemPrompt: "sys", Language: "ko"}, "hi")
	if err != nil {
		t.Fatalf("Query: %v", err)
	}
	if res.Response != "Hello" || res.StopReason != StopComplete || res.SessionID != "" {
		t.Fatalf("result %+v", res)
	}
	if res.Usage == nil || res.Usage.InputTokens != 4 || res.Usage.OutputTokens != 2 || res.Usage.TotalTokens != 6 {
		t.Fatalf("usage %+v", res.Usage)
	}
	if len(res.Messages) != 3 || res.Messages[0].Content != "sys\n\n## Response Language\nko" ||
		res.Messages[1].Content != "hi" || res.Messages[2].Content != "Hello" {
		t.Fatalf("messages %+v", res.Messages)
	}
	_, err = rt.Query(SessionConfig{Provider: "nope", Model: "m"}, "hi")
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusNotFound {
		t.Fatalf("unknown provider: %v", err)
	}
}
