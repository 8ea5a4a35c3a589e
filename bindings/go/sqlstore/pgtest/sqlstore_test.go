package pgtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	robota "github.com/robota-ai/robota-native/bindings/go"
	"github.com/robota-ai/robota-native/bindings/go/sqlstore"
)

// newStore returns a Store over a fresh schema, with its tables created.
func newStore(t testing.TB) *sqlstore.Store {
	t.Helper()
	s := sqlstore.New(openDB(t, freshSchema(t)))
	if err := s.CreateSchema(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	return s
}

func saveOf(id string, expected uint64, snapshot string, sum robota.StoredSummary) robota.StoreSave {
	sum.ID = id
	return robota.StoreSave{SessionID: id, ExpectedVersion: expected, Snapshot: json.RawMessage(snapshot), Summary: sum}
}

func wantConflict(t *testing.T, err error, stored uint64) {
	t.Helper()
	var c *robota.StoreConflictError
	if !errors.Is(err, robota.ErrStoreConflict) || !errors.As(err, &c) || c.StoredVersion != stored {
		t.Fatalf("want a conflict with stored version %d, got %v", stored, err)
	}
}

func wantStored(t *testing.T, s *sqlstore.Store, id string, version uint64, snapshot string) {
	t.Helper()
	got, err := s.Load(testCtx(t), id)
	if err != nil || got.Version != version || string(got.Snapshot) != snapshot {
		t.Fatalf("Load(%s) = %d %s, %v; want %d %s", id, got.Version, got.Snapshot, err, version, snapshot)
	}
}

// CreateSchema is idempotent and safe from many connections at once.
func TestCreateSchemaIdempotentAndConcurrent(t *testing.T) {
	dsn := freshSchema(t)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = sqlstore.New(openDB(t, dsn)).CreateSchema(testCtx(t))
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("CreateSchema %d: %v", i, err)
		}
	}
	db := openDB(t, dsn)
	s := sqlstore.New(db)
	if err := s.CreateSchema(testCtx(t)); err != nil {
		t.Fatalf("again: %v", err)
	}
	rows, err := db.QueryContext(testCtx(t), `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var table, col string
		if err := rows.Scan(&table, &col); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, table+"."+col)
	}
	want := []string{"robota_sessions.id", "robota_sessions.version", "robota_sessions.name", "robota_sessions.cwd",
		"robota_sessions.created_at", "robota_sessions.updated_at", "robota_sessions.message_count", "robota_sessions.snapshot",
		"robota_transcripts.session_id", "robota_transcripts.seq", "robota_transcripts.lines"}
	if !reflect.DeepEqual(cols, want) {
		t.Fatalf("columns %v", cols)
	}
}

// Versions: a new session is version 1, each save with the right expected version adds one,
// a stale one or an insert of an existing id is a conflict naming the stored version and
// changes nothing.
func TestSaveChecksTheVersion(t *testing.T) {
	s := newStore(t)
	ctx := testCtx(t)
	name := "first"
	sum := robota.StoredSummary{Name: &name, Cwd: "/w", CreatedAt: "2026-01-01T00:00:00.000Z", UpdatedAt: "2026-01-01T00:00:01.000Z", MessageCount: 1}
	if v, err := s.Save(ctx, saveOf("s1", 0, `{"turn":1}`, sum)); err != nil || v != 1 {
		t.Fatalf("new: %d, %v", v, err)
	}
	if v, err := s.Save(ctx, saveOf("s1", 1, `{"turn":2}`, sum)); err != nil || v != 2 {
		t.Fatalf("expected 1: %d, %v", v, err)
	}
	wantStored(t, s, "s1", 2, `{"turn":2}`)
	_, err := s.Save(ctx, saveOf("s1", 1, `{"stale":true}`, sum))
	wantConflict(t, err, 2)
	_, err = s.Save(ctx, saveOf("s1", 0, `{"again":true}`, sum))
	wantConflict(t, err, 2)
	_, err = s.Save(ctx, saveOf("gone", 4, `{}`, sum))
	wantConflict(t, err, 0)
	wantStored(t, s, "s1", 2, `{"turn":2}`)
	if _, err := s.Load(ctx, "gone"); !errors.Is(err, robota.ErrStoreNotFound) {
		t.Fatalf("a failed update created the row: %v", err)
	}
}

// N goroutines saving the same session with the same expected version: exactly one wins, the
// others get a conflict naming the winner's version, and the winner's snapshot is stored.
func TestConcurrentSavesExactlyOneWins(t *testing.T) {
	s := newStore(t)
	ctx := testCtx(t)
	for _, expected := range []uint64{0, 1} {
		const n = 12
		var wg sync.WaitGroup
		versions := make([]uint64, n)
		errs := make([]error, n)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				versions[i], errs[i] = s.Save(ctx, saveOf("race", expected, fmt.Sprintf(`{"writer":%d}`, i), robota.StoredSummary{Cwd: "/w"}))
			}(i)
		}
		wg.Wait()
		winner := -1
		for i := 0; i < n; i++ {
			if errs[i] == nil {
				if winner >= 0 || versions[i] != expected+1 {
					t.Fatalf("expected %d: writers %d and %d both won (version %d)", expected, winner, i, versions[i])
				}
				winner = i
				continue
			}
			wantConflict(t, errs[i], expected+1)
		}
		if winner < 0 {
			t.Fatalf("expected %d: nobody won: %v", expected, errs)
		}
		wantStored(t, s, "race", expected+1, fmt.Sprintf(`{"writer":%d}`, winner))
	}
}

func TestLoadAndDeleteOfMissingSessions(t *testing.T) {
	s := newStore(t)
	ctx := testCtx(t)
	if _, err := s.Load(ctx, "none"); !errors.Is(err, robota.ErrStoreNotFound) {
		t.Fatalf("Load: %v", err)
	}
	if err := s.Delete(ctx, "none"); !errors.Is(err, robota.ErrStoreNotFound) {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := s.Save(ctx, saveOf("d", 0, `{}`, robota.StoredSummary{})); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(ctx, "d"); !errors.Is(err, robota.ErrStoreNotFound) {
		t.Fatalf("Load after Delete: %v", err)
	}
	if err := s.Delete(ctx, "d"); !errors.Is(err, robota.ErrStoreNotFound) {
		t.Fatalf("Delete twice: %v", err)
	}
}

// List filters by cwd, puts the newest updated_at first and keeps at most limit.
func TestListByCwdNewestFirstWithLimit(t *testing.T) {
	s := newStore(t)
	ctx := testCtx(t)
	name := "named"
	rows := []robota.StoredSummary{
		{ID: "a1", Cwd: "/a", CreatedAt: "2026-01-01T00:00:00.000Z", UpdatedAt: "2026-01-01T10:00:00.000Z", MessageCount: 1},
		{ID: "a3", Name: &name, Cwd: "/a", CreatedAt: "2026-01-01T00:00:00.000Z", UpdatedAt: "2026-01-03T10:00:00.000Z", MessageCount: 3},
		{ID: "b4", Cwd: "/b", CreatedAt: "2026-01-01T00:00:00.000Z", UpdatedAt: "2026-01-04T10:00:00.000Z", MessageCount: 4},
		{ID: "a2", Cwd: "/a", CreatedAt: "2026-01-01T00:00:00.000Z", UpdatedAt: "2026-01-02T10:00:00.000Z", MessageCount: 2},
	}
	for _, r := range rows {
		if _, err := s.Save(ctx, saveOf(r.ID, 0, `{}`, r)); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(cwd *string, limit *int) []string {
		t.Helper()
		list, err := s.List(ctx, robota.StoreQuery{Cwd: cwd, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, r := range list {
			out = append(out, r.ID)
		}
		return out
	}
	a, two, zero := "/a", 2, 0
	for _, c := range []struct {
		cwd   *string
		limit *int
		want  []string
	}{
		{nil, nil, []string{"b4", "a3", "a2", "a1"}},
		{&a, nil, []string{"a3", "a2", "a1"}},
		{&a, &two, []string{"a3", "a2"}},
		{nil, &two, []string{"b4", "a3"}},
		{&a, &zero, []string{}},
	} {
		if got := ids(c.cwd, c.limit); !reflect.DeepEqual(got, c.want) {
			t.Errorf("List(%v, %v) = %v, want %v", c.cwd, c.limit, got, c.want)
		}
	}
	list, err := s.List(ctx, robota.StoreQuery{Cwd: &a, Limit: &two})
	if err != nil || !reflect.DeepEqual(list, []robota.StoredSummary{rows[1], rows[3]}) {
		t.Fatalf("summaries %+v, %v", list, err)
	}
	neg := -1
	if _, err := s.List(ctx, robota.StoreQuery{Limit: &neg}); err == nil || err.Error() != "sqlstore: list: limit -1 is negative" {
		t.Fatalf("negative limit: %v", err)
	}
}

// Appended transcript chunks come back in order, per session.
func TestAppendKeepsOrder(t *testing.T) {
	s := newStore(t)
	ctx := testCtx(t)
	for i, c := range []struct{ id, lines string }{
		{"t1", "{\"n\":1}\n"}, {"t2", "{\"other\":1}\n"}, {"t1", "{\"n\":2}\n{\"n\":3}\n"}, {"t1", "{\"n\":4}\n"},
	} {
		if err := s.Append(ctx, c.id, []byte(c.lines)); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	for id, want := range map[string]string{"t1": "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n{\"n\":4}\n", "t2": "{\"other\":1}\n", "none": ""} {
		if got, err := s.Transcript(ctx, id); err != nil || got != want {
			t.Errorf("Transcript(%s) = %q, %v; want %q", id, got, err, want)
		}
	}
}
