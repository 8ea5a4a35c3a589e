package pgtest

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	robota "github.com/robota-ai/robota-native/bindings/go"
	"github.com/robota-ai/robota-native/bindings/go/sqlstore"
)

// node is one runtime with its own database handle on the shared schema (one process of a
// service).
func node(t *testing.T, f *fakeServer, dsn string) (*robota.Runtime, *sqlstore.Store) {
	t.Helper()
	zero := 0
	rt, err := robota.NewRuntime(robota.RuntimeConfig{SessionDir: t.TempDir(), Providers: map[string]robota.ProviderConfig{
		"fake": {Kind: "openai-compatible", BaseURL: f.BaseURL + "/v1", APIKey: "test-key", MaxRetries: &zero, TimeoutMS: 30000},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	store := sqlstore.New(openDB(t, dsn))
	if err := store.CreateSchema(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if err := rt.SetStore(store); err != nil {
		t.Fatal(err)
	}
	return rt, store
}

func run(t *testing.T, s *robota.Session, prompt, want string) {
	t.Helper()
	r, err := s.Run(testCtx(t), prompt)
	if err != nil || r.Response != want {
		t.Fatalf("Run(%q) = %q, %v; want %q", prompt, r.Response, err, want)
	}
}

func messagesOf(t *testing.T, s *robota.Session) string {
	t.Helper()
	msgs, err := s.Messages(robota.ViewConversation)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(msgs)
	return string(b)
}

func containsAll(t *testing.T, what, hay string, needles ...string) {
	t.Helper()
	for _, n := range needles {
		if !strings.Contains(hay, n) {
			t.Fatalf("%s lacks %s: %s", what, n, hay)
		}
	}
}

// A session persists in PostgreSQL after each turn; a second runtime resumes it by id, sees the
// whole history and advances it; the first runtime's copy, now stale, gets a conflict and
// overwrites nothing. Both append the transcript to the database.
func TestSessionInPostgresResumedByAnotherRuntime(t *testing.T) {
	f := startFakeServer(t)
	f.enqueueText(t, "A1", "A2", "A3", "A4")
	dsn := freshSchema(t)
	rtA, storeA := node(t, f, dsn)
	rtB, storeB := node(t, f, dsn)
	cfg := robota.SessionConfig{Provider: "fake", Model: "m", ContextWindow: 100000, SessionID: "pg-1", Name: "in postgres", Persist: true, Transcript: true, Cwd: t.TempDir()}
	a, err := rtA.NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	run(t, a, "one", "A1")
	run(t, a, "two", "A2")
	if got, err := storeB.Load(testCtx(t), "pg-1"); err != nil || got.Version != 2 {
		t.Fatalf("after two turns on A: %d, %v", got.Version, err)
	}

	b, err := rtB.Resume(robota.ResumeConfig{SessionID: "pg-1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	containsAll(t, "B's history", messagesOf(t, b), `"one"`, `"A1"`, `"two"`, `"A2"`)
	run(t, b, "three", "A3")
	bodies := f.requestBodies(t)
	if len(bodies) != 3 {
		t.Fatalf("%d requests", len(bodies))
	}
	containsAll(t, "B's request", bodies[2], `"one"`, `"A1"`, `"two"`, `"A2"`, `"three"`)
	after, err := storeA.Load(testCtx(t), "pg-1")
	if err != nil || after.Version != 3 {
		t.Fatalf("after B's turn: %d, %v", after.Version, err)
	}

	_, err = a.Run(testCtx(t), "four")
	if !errors.Is(err, robota.ErrConflict) {
		t.Fatalf("A's stale turn: %v", err)
	}
	kept, err := storeA.Load(testCtx(t), "pg-1")
	if err != nil || kept.Version != 3 || string(kept.Snapshot) != string(after.Snapshot) {
		t.Fatalf("B's version was replaced: %d %s, %v", kept.Version, kept.Snapshot, err)
	}

	_ = a.Close()
	_ = b.Close()
	transcript, err := storeA.Transcript(testCtx(t), "pg-1")
	if err != nil {
		t.Fatal(err)
	}
	containsAll(t, "the transcript", transcript, `"response":"A1"`, `"response":"A2"`, `"response":"A3"`, `"event":"session_closed"`)

	list, err := rtA.ListSessions(robota.ListQuery{})
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].ID != "pg-1" || list.Sessions[0].MessageCount != 3 ||
		list.Sessions[0].Name == nil || *list.Sessions[0].Name != "in postgres" {
		t.Fatalf("list: %+v, %v", list, err)
	}
	if err := rtB.DeleteSession("pg-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := rtA.Resume(robota.ResumeConfig{SessionID: "pg-1"}); !errors.Is(err, robota.ErrNotFound) {
		t.Fatalf("resume after delete: %v", err)
	}
}
