package robota

import (
	"errors"
	"strings"
	"testing"
)

// InjectMessage appends to the conversation without a model call; the next turn follows it;
// a tool message is refused by name.
func TestInjectMessage(t *testing.T) {
	rt := newRuntime(t, scripted(ScriptedTurn{Text: "kiwi"}))
	s := newSession(t, rt, SessionConfig{SystemPrompt: "sys"})
	if err := s.InjectMessage("user", "The code word is kiwi."); err != nil {
		t.Fatal(err)
	}
	if err := s.InjectMessage("assistant", "Noted."); err != nil {
		t.Fatal(err)
	}
	err := s.InjectMessage("tool", "x")
	if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), `role "tool" cannot be injected`) {
		t.Fatalf("tool message: %v", err)
	}
	if r, err := s.Run(testCtx(t), "word?"); err != nil || r.Response != "kiwi" {
		t.Fatalf("run = %#v, %v", r, err)
	}
	msgs, err := s.Messages(ViewConversation)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, m.Role+":"+m.Content)
	}
	want := "system:sys|user:The code word is kiwi.|assistant:Noted.|user:word?|assistant:kiwi"
	if strings.Join(got, "|") != want {
		t.Fatalf("conversation = %q", strings.Join(got, "|"))
	}
	s.Close()
	if err := s.InjectMessage("user", "late"); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}
