package robota

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSessionStoreListDeleteResume(t *testing.T) {
	dir := t.TempDir()
	cfg := scripted()
	cfg.SessionDir = dir
	rt := newRuntime(t, cfg)
	list, err := rt.ListSessions(ListQuery{})
	if err != nil || len(list.Sessions) != 0 || len(list.Skipped) != 0 {
		t.Fatalf("empty store: %+v %v", list, err)
	}
	s := newSession(t, rt, SessionConfig{SessionID: "go-1", Name: "from Go", Persist: true,
		PermissionMode: ModePlan, ContextWindow: 100000, AutoCompactThreshold: 0.5,
		CompactInstructions: "keep decisions"})
	if _, err := s.Run(testCtx(t), "hello"); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	list, err = rt.ListSessions(ListQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].ID != "go-1" || list.Sessions[0].Name == nil ||
		*list.Sessions[0].Name != "from Go" || list.Sessions[0].MessageCount != 1 {
		t.Fatalf("list: %+v", list)
	}
	if len(list.Skipped) != 1 || list.Skipped[0].File != "bad.json" {
		t.Fatalf("skipped: %+v", list.Skipped)
	}
	r, err := rt.Resume(ResumeConfig{SessionID: "go-1"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := r.State()
	if err != nil {
		t.Fatal(err)
	}
	if st.PermissionMode != "plan" {
		t.Fatalf("mode not kept: %+v", st)
	}
	snap, err := r.Save()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"context_window":100000`, `"auto_compact_threshold":0.5`, `"compact_instructions":"keep decisions"`} {
		if !strings.Contains(string(snap), want) {
			t.Fatalf("snapshot lacks %s: %s", want, snap)
		}
	}
	_ = r.Close()
	if err := rt.DeleteSession("nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete unknown: %v", err)
	}
	if err := rt.DeleteSession("go-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go-1.json")); !os.IsNotExist(err) {
		t.Fatalf("file still there: %v", err)
	}
}

func TestCompactCommand(t *testing.T) {
	rt := newRuntime(t, scripted(ScriptedTurn{Text: "answer"}, ScriptedTurn{Text: "the summary"}))
	s := newSession(t, rt, SessionConfig{SystemPrompt: "sys"})
	if _, err := s.Run(testCtx(t), "q"); err != nil {
		t.Fatal(err)
	}
	res, err := s.Command("compact", "focus")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Success || !strings.HasPrefix(res.Message, "Context compacted: ") {
		t.Fatalf("compact: %+v", res)
	}
	msgs, err := s.Messages(ViewConversation)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[1].Content != "[Context Summary]\nthe summary" {
		t.Fatalf("history after compaction: %+v", msgs)
	}
}
