package robota

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// storeRuntime is a runtime of the fake server's "fake" provider whose session directory is dir.
func storeRuntime(t *testing.T, f *fakeServer, dir string, requestTimeoutMS int) *Runtime {
	zero := 0
	return newRuntime(t, RuntimeConfig{SessionDir: dir, RequestTimeoutMS: requestTimeoutMS,
		Providers: map[string]ProviderConfig{
			"fake": {Kind: "openai-compatible", BaseURL: f.BaseURL + "/v1", APIKey: "test-key", MaxRetries: &zero, TimeoutMS: 30000},
		}})
}

func enqueueText(t *testing.T, f *fakeServer, texts ...string) {
	t.Helper()
	for _, text := range texts {
		f.do(t, map[string]any{"cmd": "enqueue", "kind": "openai", "text": []string{text}})
	}
}

func mustRun(t *testing.T, s *Session, prompt, want string) {
	t.Helper()
	r, err := s.Run(testCtx(t), prompt)
	if err != nil || r.Response != want {
		t.Fatalf("Run(%q) = %q, %v; want %q", prompt, r.Response, err, want)
	}
}

func wantCalls(t *testing.T, m *memStore, want ...string) {
	t.Helper()
	if got := m.callLog(); !reflect.DeepEqual(got, want) {
		t.Fatalf("store calls %q, want %q", got, want)
	}
}

func wantEmptyDir(t *testing.T, dir string) {
	t.Helper()
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Fatalf("the session directory holds %v (%v): the store was bypassed", entries, err)
	}
}

// A persisted session saves version 1, then 2 replacing 1; another runtime resumes it by id
// through the store, sees the whole history and saves version 3.
func TestStorePersistsEachTurnAndResumesByID(t *testing.T) {
	f := startFakeServer(t)
	enqueueText(t, f, "A1", "A2", "A3")
	dir := t.TempDir()
	mem := newMemStore()
	rt := storeRuntime(t, f, dir, 0)
	if err := rt.SetStore(mem); err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	s := newSession(t, rt, SessionConfig{Provider: "fake", Model: "m", ContextWindow: 100000, SessionID: "st-1", Name: "stored", Persist: true, Cwd: cwd})
	mustRun(t, s, "one", "A1")
	r1, ok := mem.record("st-1")
	if !ok || r1.version != 1 || !strings.Contains(r1.snapshot, `"one"`) || !strings.Contains(r1.snapshot, `"A1"`) {
		t.Fatalf("after turn 1: %+v", r1)
	}
	sum := r1.summary
	if sum.ID != "st-1" || sum.Name == nil || *sum.Name != "stored" || sum.Cwd != cwd || sum.MessageCount != 1 ||
		sum.CreatedAt == "" || sum.UpdatedAt < sum.CreatedAt {
		t.Fatalf("summary %+v", sum)
	}
	mustRun(t, s, "two", "A2")
	if r2, _ := mem.record("st-1"); r2.version != 2 || r2.summary.MessageCount != 2 || !strings.Contains(r2.snapshot, `"A2"`) {
		t.Fatalf("after turn 2: %+v", r2)
	}
	wantCalls(t, mem, "save st-1 0", "save st-1 1")
	_ = s.Close()
	wantEmptyDir(t, dir)

	rt2 := storeRuntime(t, f, t.TempDir(), 0)
	if err := rt2.SetStore(mem); err != nil {
		t.Fatal(err)
	}
	r, err := rt2.Resume(ResumeConfig{SessionID: "st-1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	conv := conversation(t, r)
	for _, want := range []string{`"one"`, `"A1"`, `"two"`, `"A2"`} {
		mustContain(t, conv, want)
	}
	mustRun(t, r, "three", "A3")
	if r3, _ := mem.record("st-1"); r3.version != 3 || r3.summary.MessageCount != 3 {
		t.Fatalf("after the resumed turn: %+v", r3)
	}
	wantCalls(t, mem, "save st-1 0", "save st-1 1", "load st-1", "save st-1 2")
	var reqs []struct {
		Body json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(f.do(t, map[string]any{"cmd": "requests"}), &reqs); err != nil || len(reqs) != 3 {
		t.Fatalf("requests %d, %v", len(reqs), err)
	}
	for _, want := range []string{`"one"`, `"A1"`, `"two"`, `"A2"`, `"three"`} {
		mustContain(t, string(reqs[2].Body), want)
	}
	if _, err := rt2.Resume(ResumeConfig{SessionID: "nope"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("resume of an unknown id: %v", err)
	}
}

// ListSessions and DeleteSession ask the store; SetStore(nil) goes back to the directory.
func TestStoreListAndDeleteGoThroughTheStore(t *testing.T) {
	name := "named"
	mem := newMemStore()
	mem.put("a-old", memRecord{version: 1, snapshot: "{}", summary: StoredSummary{ID: "a-old", Cwd: "/a", UpdatedAt: "2026-01-01T00:00:00Z", MessageCount: 2}})
	mem.put("a-new", memRecord{version: 3, snapshot: "{}", summary: StoredSummary{ID: "a-new", Name: &name, Cwd: "/a", UpdatedAt: "2026-02-01T00:00:00Z", MessageCount: 6}})
	mem.put("b", memRecord{version: 1, snapshot: "{}", summary: StoredSummary{ID: "b", Cwd: "/b", UpdatedAt: "2026-03-01T00:00:00Z"}})
	dir := t.TempDir()
	rt := newRuntime(t, RuntimeConfig{SessionDir: dir})
	if err := rt.SetStore(mem); err != nil {
		t.Fatal(err)
	}
	ids := func(q ListQuery) []string {
		t.Helper()
		list, err := rt.ListSessions(q)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, s := range list.Sessions {
			out = append(out, s.ID)
		}
		return out
	}
	if got := ids(ListQuery{}); !reflect.DeepEqual(got, []string{"b", "a-new", "a-old"}) {
		t.Fatalf("all: %v", got)
	}
	if got := ids(ListQuery{Cwd: "/a", Limit: 1}); !reflect.DeepEqual(got, []string{"a-new"}) {
		t.Fatalf("cwd /a, limit 1: %v", got)
	}
	list, err := rt.ListSessions(ListQuery{Cwd: "/a"})
	if err != nil || len(list.Sessions) != 2 || list.Sessions[0].Name == nil || *list.Sessions[0].Name != "named" ||
		list.Sessions[0].MessageCount != 6 || list.Sessions[1].Name != nil {
		t.Fatalf("cwd /a: %+v, %v", list, err)
	}
	if err := rt.DeleteSession("a-old"); err != nil {
		t.Fatal(err)
	}
	if _, ok := mem.record("a-old"); ok {
		t.Fatal("a-old is still stored")
	}
	if err := rt.DeleteSession("a-old"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleting it again: %v", err)
	}
	wantCalls(t, mem, "list <all> <all>", "list /a 1", "list /a <all>", "delete a-old", "delete a-old")
	if err := rt.SetStore(nil); err != nil {
		t.Fatal(err)
	}
	if got := ids(ListQuery{}); len(got) != 0 {
		t.Fatalf("the directory lists %v", got)
	}
	if err := rt.DeleteSession("b"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete in the directory: %v", err)
	}
	wantCalls(t, mem, "list <all> <all>", "list /a 1", "list /a <all>", "delete a-old", "delete a-old")
}

// Another node saved version 7 behind the session's back: the next turn's persist is a
// conflict, Wait matches ErrConflict, an ERROR event CONFLICT comes before TURN_COMPLETED,
// and the store keeps the other node's version.
func TestStoreConflictFailsTheTurnAndKeepsTheOtherVersion(t *testing.T) {
	f := startFakeServer(t)
	enqueueText(t, f, "A1", "A2")
	mem := newMemStore()
	rt := storeRuntime(t, f, t.TempDir(), 0)
	if err := rt.SetStore(mem); err != nil {
		t.Fatal(err)
	}
	s := newSession(t, rt, SessionConfig{Provider: "fake", Model: "m", ContextWindow: 100000, SessionID: "st-c", Persist: true})
	mustRun(t, s, "one", "A1")
	other := memRecord{version: 7, snapshot: `{"other":"node"}`, summary: StoredSummary{ID: "st-c"}}
	mem.put("st-c", other)
	events := s.Events()
	turn, err := s.Submit(testCtx(t), "two")
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, events, turn.ID())
	_, err = turn.Wait(testCtx(t))
	var e *Error
	if !errors.Is(err, ErrConflict) || !errors.As(err, &e) || e.Code != "CONFLICT" || e.Category != "store" || e.Recoverable {
		t.Fatalf("Wait: %#v", err)
	}
	mustContain(t, e.Message, "st-c")
	errEvents := find[ErrorEvent](evs)
	if len(errEvents) != 1 || errEvents[0].Code != "CONFLICT" {
		t.Fatalf("error events %+v (%v)", errEvents, kinds(evs))
	}
	if k := kinds(evs); k[len(k)-2] != KindError.String() {
		t.Fatalf("the ERROR event is not right before TURN_COMPLETED: %v", k)
	}
	if got, _ := mem.record("st-c"); !reflect.DeepEqual(got, other) {
		t.Fatalf("the other node's version was replaced: %+v", got)
	}
	wantCalls(t, mem, "save st-c 0", "save st-c 1")
}

// A Store error fails the operation with ErrIO and the store's message; a failed save after a
// turn is a WARNING event of that turn (the turn itself completed).
func TestStoreErrorsFailTheOperation(t *testing.T) {
	f := startFakeServer(t)
	enqueueText(t, f, "A1")
	mem := newMemStore()
	rt := storeRuntime(t, f, t.TempDir(), 0)
	if err := rt.SetStore(mem); err != nil {
		t.Fatal(err)
	}
	down := errors.New("database is down")
	for _, op := range []string{"load", "save", "delete", "list"} {
		mem.setFail(op, down)
	}
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrIO) || !strings.Contains(err.Error(), "database is down") {
			t.Fatalf("%s: %v", what, err)
		}
	}
	_, err := rt.Resume(ResumeConfig{SessionID: "x"})
	check("Resume", err)
	_, err = rt.ListSessions(ListQuery{})
	check("ListSessions", err)
	check("DeleteSession", rt.DeleteSession("x"))
	s := newSession(t, rt, SessionConfig{Provider: "fake", Model: "m", ContextWindow: 100000, SessionID: "st-e", Persist: true})
	wantSaveWarning(t, s, "one", "A1", "could not persist the session: session store: save failed: database is down")
	if _, ok := mem.record("st-e"); ok {
		t.Fatal("a failed save stored the session")
	}
}

// zeroVersionStore answers a load with version 0 and a save with a wrong version.
type zeroVersionStore struct{ *memStore }

func (z zeroVersionStore) Load(ctx context.Context, id string) (StoredSession, error) {
	return StoredSession{Version: 0, Snapshot: json.RawMessage(`{}`)}, nil
}

func (z zeroVersionStore) Save(ctx context.Context, s StoreSave) (uint64, error) {
	return s.ExpectedVersion + 5, nil
}

func TestStoreBadAnswersAreClearErrors(t *testing.T) {
	f := startFakeServer(t)
	enqueueText(t, f, "A1")
	rt := storeRuntime(t, f, t.TempDir(), 0)
	if err := rt.SetStore(zeroVersionStore{newMemStore()}); err != nil {
		t.Fatal(err)
	}
	_, err := rt.Resume(ResumeConfig{SessionID: "z"})
	if !errors.Is(err, ErrIO) || !strings.Contains(err.Error(), `Load of "z" returned version 0 and a 2-byte snapshot (want version ≥ 1 and a snapshot)`) {
		t.Fatalf("Resume: %v", err)
	}
	s := newSession(t, rt, SessionConfig{Provider: "fake", Model: "m", ContextWindow: 100000, SessionID: "z", Persist: true})
	wantSaveWarning(t, s, "one", "A1", `session store: save failed: the session store's Save of "z" returned version 5, want 1 (expected version + 1)`)
}

// wantSaveWarning runs a turn that completes with response but whose save fails: one WARNING
// event containing message.
func wantSaveWarning(t *testing.T, s *Session, prompt, response, message string) {
	t.Helper()
	events := s.Events()
	turn, err := s.Submit(testCtx(t), prompt)
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, events, turn.ID())
	if r, err := turn.Wait(testCtx(t)); err != nil || r.Response != response {
		t.Fatalf("Wait: %q, %v", r.Response, err)
	}
	warnings := find[Warning](evs)
	if len(warnings) != 1 || !strings.Contains(warnings[0].Message, message) {
		t.Fatalf("warnings %+v, want one containing %q", warnings, message)
	}
}

// A Store method that panics is an error answer, not a crash.
func TestStorePanicIsAnErrorAnswer(t *testing.T) {
	mem := newMemStore()
	rt := newRuntime(t, RuntimeConfig{SessionDir: t.TempDir()})
	if err := rt.SetStore(mem); err != nil {
		t.Fatal(err)
	}
	mem.setPanic("list")
	_, err := rt.ListSessions(ListQuery{})
	if !errors.Is(err, ErrIO) || !strings.Contains(err.Error(), "the session store panicked in list: boom in list") {
		t.Fatalf("ListSessions: %v", err)
	}
	mem.setPanic("")
	if list, err := rt.ListSessions(ListQuery{}); err != nil || len(list.Sessions) != 0 {
		t.Fatalf("after the panic: %+v, %v", list, err)
	}
}

// blockingStore never answers a list: it waits for its context to end.
type blockingStore struct {
	*memStore
	ended chan error
}

func (b blockingStore) List(ctx context.Context, q StoreQuery) ([]StoredSummary, error) {
	<-ctx.Done()
	b.ended <- ctx.Err()
	return nil, ctx.Err()
}

// A Store that does not answer within the runtime's request timeout fails the operation with
// ErrTimeout naming the op; removing the Store ends the context of its running calls.
func TestStoreUnansweredRequestTimesOut(t *testing.T) {
	rt := newRuntime(t, RuntimeConfig{SessionDir: t.TempDir(), RequestTimeoutMS: 100})
	b := blockingStore{newMemStore(), make(chan error, 1)}
	if err := rt.SetStore(b); err != nil {
		t.Fatal(err)
	}
	_, err := rt.ListSessions(ListQuery{})
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "session store: list request") {
		t.Fatalf("ListSessions: %v", err)
	}
	if err := rt.SetStore(nil); err != nil {
		t.Fatal(err)
	}
	if err := recv(t, b.ended); !errors.Is(err, context.Canceled) {
		t.Fatalf("the call's context ended with %v", err)
	}
}

// The request decoding of the binding: what the library never sends is still an answer.
func TestStoreAnswerToMalformedRequests(t *testing.T) {
	e := newStoreEntry(newMemStore(), nil)
	defer e.released()
	for req, want := range map[string]string{
		`{"v":1,"op":"rename"}`: `{"error":"unknown store op \"rename\""}`,
		`{"v":1,"op":`:          `{"error":"unreadable store request: unexpected end of JSON input"}`,
		`{"v":1,"op":"list","cwd":null,"limit":null}`:           `{"sessions":[]}`,
		`{"v":1,"op":"delete","session_id":"x"}`:                `{"deleted":false}`,
		`{"v":1,"op":"load","session_id":"x"}`:                  `{"found":false}`,
		`{"v":1,"op":"append","session_id":"x","lines":"{}\n"}`: `{}`,
	} {
		if got := e.answer([]byte(req)); got != want {
			t.Errorf("answer(%s) = %s, want %s", req, got, want)
		}
	}
}

// A session's transcript is appended through the store (complete JSONL lines, all of them
// once Close returned), not to a file.
func TestStoreReceivesTheTranscript(t *testing.T) {
	f := startFakeServer(t)
	enqueueText(t, f, "A1")
	mem := newMemStore()
	rt := storeRuntime(t, f, t.TempDir(), 0)
	if err := rt.SetStore(mem); err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	s := newSession(t, rt, SessionConfig{Provider: "fake", Model: "m", ContextWindow: 100000, SessionID: "st-t", Cwd: cwd, Transcript: true})
	mustRun(t, s, "one", "A1")
	_ = s.Close()
	text := mem.transcript("st-t")
	if !strings.HasSuffix(text, "\n") {
		t.Fatalf("transcript %q", text)
	}
	var events []string
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		var e struct {
			SessionID string `json:"sessionId"`
			Event     string `json:"event"`
			Response  string `json:"response"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil || e.SessionID != "st-t" {
			t.Fatalf("line %q: %v", line, err)
		}
		events = append(events, e.Event+e.Response)
	}
	want := []string{"session_init", "turn_started", "message", "context_update", "text_delta", "context_update", "message", "turn_completedA1", "session_closed"}
	if !reflect.DeepEqual(events, want) {
		t.Fatalf("transcript events %v, want %v", events, want)
	}
	for _, c := range mem.callLog() {
		if c != "append st-t" {
			t.Fatalf("store calls %q", mem.callLog())
		}
	}
	wantEmptyDir(t, cwd)
}

// The library releases a replaced or removed Store's registration, and every one when the
// runtime ends; SetStore on a closed runtime is ErrClosed.
func TestStoreRegistrationsAreReleased(t *testing.T) {
	waitCount(t, "handles before the test", &handles, 0)
	rt, err := NewRuntime(RuntimeConfig{SessionDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	first, second := newMemStore(), newMemStore()
	if err := rt.SetStore(first); err != nil {
		t.Fatal(err)
	}
	waitCount(t, "handles with a store", &handles, 1)
	if err := rt.SetStore(second); err != nil {
		t.Fatal(err)
	}
	waitCount(t, "handles after replacing the store", &handles, 1)
	if _, err := rt.ListSessions(ListQuery{}); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, first)
	wantCalls(t, second, "list <all> <all>")
	if err := rt.SetStore(nil); err != nil {
		t.Fatal(err)
	}
	waitCount(t, "handles after removing the store", &handles, 0)
	if err := rt.SetStore(first); err != nil {
		t.Fatal(err)
	}
	_ = rt.Close()
	waitCount(t, "handles after Close", &handles, 0)
	waitCount(t, "binding goroutines after Close", &workers, 0)
	if err := rt.SetStore(first); !errors.Is(err, ErrClosed) {
		t.Fatalf("SetStore after Close: %v", err)
	}
}
