package pgtest

// Benchmarks of the session store: sqlstore alone against PostgreSQL (save, load, parallel
// saves), and one turn of a stateless node (resume by id, turn, persist, close) with the
// PostgreSQL store, the in-memory store and no store. The figures and the command that took
// them are in docs/deployment.md ("Figures: the store port and PostgreSQL").
//
//	bash .ci/postgres.sh go test -run XXX -bench . -benchtime 2s -count 5

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	robota "github.com/robota-ai/robota-native/bindings/go"
	"github.com/robota-ai/robota-native/bindings/go/sqlstore"
)

// benchConns is the connection pool size of the benchmarks' database handles (kept open: no
// reconnect per operation).
const benchConns = 16

// The conversation of the benchmark session: ten turns of a ~260-byte question and a ~1.2 KB
// answer each (a chat with paragraph-sized replies).
var (
	benchPrompt = strings.Repeat("How does the session store keep every turn when requests land on other nodes? ", 3)
	benchAnswer = strings.Repeat("Each turn saves the snapshot with the version it loaded; a stale save is a conflict. ", 14)
)

const (
	benchTurns    = 10
	benchSourceID = "bench-source"
)

var tenTurns struct {
	once     sync.Once
	snapshot []byte
	summary  robota.StoredSummary
}

// tenTurnSnapshot returns the snapshot a real session of ten turns produces (persist on, built
// once against the fake model server, saved to an in-memory store) and its summary columns.
func tenTurnSnapshot(b *testing.B) ([]byte, robota.StoredSummary) {
	b.Helper()
	tenTurns.once.Do(func() {
		f := startFakeServer(b)
		rt := benchRuntime(b, f)
		if err := rt.SetStore(newMemStore()); err != nil {
			b.Fatal(err)
		}
		s, err := rt.NewSession(robota.SessionConfig{Provider: "fake", Model: "m", ContextWindow: 200000,
			SessionID: benchSourceID, Name: "benchmark chat", Cwd: benchCwd, Persist: true})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		for i := 0; i < benchTurns; i++ {
			f.enqueueText(b, benchAnswer)
			if r, err := s.Run(context.Background(), benchPrompt); err != nil || r.Response != benchAnswer {
				b.Fatalf("turn %d: %q, %v", i, r.Response, err)
			}
		}
		snap, err := s.Save()
		if err != nil {
			b.Fatal(err)
		}
		var sum robota.StoredSummary
		if err := json.Unmarshal(snap, &sum); err != nil || sum.MessageCount != benchTurns ||
			bytes.Count(snap, sourceIDField) != 1 || bytes.Count(snap, persistField) != 1 {
			b.Fatalf("the ten-turn snapshot: %+v, %v: %s", sum, err, snap)
		}
		tenTurns.snapshot, tenTurns.summary = snap, sum
	})
	if tenTurns.snapshot == nil {
		b.Fatal("the ten-turn snapshot could not be built (see the first benchmark's failure)")
	}
	return tenTurns.snapshot, tenTurns.summary
}

// benchCwd is the sessions' working directory: one that outlives every benchmark.
const benchCwd = "/tmp"

// benchRuntime is a runtime whose provider "fake" is the fake model server.
func benchRuntime(b *testing.B, f *fakeServer) *robota.Runtime {
	return benchRuntimeIn(b, f, b.TempDir())
}

// benchRuntimeIn is benchRuntime with its session directory dir.
func benchRuntimeIn(b *testing.B, f *fakeServer, dir string) *robota.Runtime {
	b.Helper()
	zero := 0
	rt, err := robota.NewRuntime(robota.RuntimeConfig{SessionDir: dir, Providers: map[string]robota.ProviderConfig{
		"fake": {Kind: "openai-compatible", BaseURL: f.BaseURL + "/v1", APIKey: "test-key", MaxRetries: &zero, TimeoutMS: 30000},
	}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = rt.Close() })
	return rt
}

// benchStore is a sqlstore over a fresh schema with a pool of benchConns connections.
func benchStore(b *testing.B) *sqlstore.Store {
	b.Helper()
	db := openDB(b, freshSchema(b))
	db.SetMaxOpenConns(benchConns)
	db.SetMaxIdleConns(benchConns)
	s := sqlstore.New(db)
	if err := s.CreateSchema(context.Background()); err != nil {
		b.Fatal(err)
	}
	return s
}

// sourceIDField is the snapshot's session id field (tenTurnSnapshot checks it occurs once).
var sourceIDField = []byte(`"session_id":"` + benchSourceID + `"`)

// persistField is the snapshot's persist flag (tenTurnSnapshot checks it occurs once).
var persistField = []byte(`,"persist":true`)

// withoutPersist is the snapshot with persist off (the flag removed).
func withoutPersist(snapshot []byte) []byte {
	return bytes.Replace(snapshot, persistField, nil, 1)
}

// withID is the snapshot of session id (the ten-turn snapshot, its session_id replaced).
func withID(snapshot []byte, id string) []byte {
	return bytes.Replace(snapshot, sourceIDField, []byte(`"session_id":"`+id+`"`), 1)
}

// seed saves one copy of the ten-turn session per id (version 1), from benchConns goroutines.
func seed(b *testing.B, store robota.Store, ids []string) {
	b.Helper()
	snap, sum := tenTurnSnapshot(b)
	var next atomic.Int64
	errs := make(chan error, benchConns)
	for w := 0; w < benchConns; w++ {
		go func() {
			for i := int(next.Add(1)) - 1; i < len(ids); i = int(next.Add(1)) - 1 {
				sum.ID = ids[i]
				_, err := store.Save(context.Background(), robota.StoreSave{SessionID: ids[i], Snapshot: withID(snap, ids[i]), Summary: sum})
				if err != nil {
					errs <- fmt.Errorf("seed %s: %w", ids[i], err)
					return
				}
			}
			errs <- nil
		}()
	}
	for w := 0; w < benchConns; w++ {
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
}

// reportSnapshotBytes reports the ten-turn snapshot's size (after the timed loop: ResetTimer
// drops the metrics reported before it).
func reportSnapshotBytes(b *testing.B) {
	snap, _ := tenTurnSnapshot(b)
	b.ReportMetric(float64(len(snap)), "snapshot-bytes")
}

// BenchmarkSave: one sqlstore Save of the ten-turn snapshot per op, the session's version
// advancing (an INSERT, then UPDATEs checking the version).
func BenchmarkSave(b *testing.B) {
	snap, sum := tenTurnSnapshot(b)
	store := benchStore(b)
	ctx := context.Background()
	sum.ID = benchSourceID
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v, err := store.Save(ctx, robota.StoreSave{SessionID: benchSourceID, ExpectedVersion: uint64(i), Snapshot: snap, Summary: sum})
		if err != nil || v != uint64(i)+1 {
			b.Fatalf("save %d: version %d, %v", i, v, err)
		}
	}
	reportSnapshotBytes(b)
}

// BenchmarkLoad: one sqlstore Load of the ten-turn snapshot per op.
func BenchmarkLoad(b *testing.B) {
	snap, _ := tenTurnSnapshot(b)
	store := benchStore(b)
	seed(b, store, []string{benchSourceID})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		got, err := store.Load(ctx, benchSourceID)
		if err != nil || got.Version != 1 || len(got.Snapshot) != len(snap) {
			b.Fatalf("load %d: version %d, %d bytes, %v", i, got.Version, len(got.Snapshot), err)
		}
	}
	reportSnapshotBytes(b)
}

// BenchmarkSaveParallel: saves of the ten-turn snapshot from 4×GOMAXPROCS goroutines at once,
// each advancing a session of its own, over one pool of benchConns connections; ns/op is the
// wall time per save (the inverse of the throughput, also reported as saves/s).
func BenchmarkSaveParallel(b *testing.B) {
	snap, sum := tenTurnSnapshot(b)
	store := benchStore(b)
	var workers atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(4)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		id := fmt.Sprintf("bench-parallel-%d", workers.Add(1))
		sum := sum
		sum.ID = id
		snap := withID(snap, id)
		for v := uint64(0); pb.Next(); v++ {
			got, err := store.Save(context.Background(), robota.StoreSave{SessionID: id, ExpectedVersion: v, Snapshot: snap, Summary: sum})
			if err != nil || got != v+1 {
				b.Errorf("save %s %d: version %d, %v", id, v, got, err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "saves/s")
	reportSnapshotBytes(b)
}

// runTurns runs b.N turns, each the request of a stateless node: open the session (resumed
// from store by id; without a store, resumed from the ten-turn snapshot in memory), run one
// turn (persisted through the store when there is one), close it. Each op has a session of its
// own, all at ten turns, so every op does the same work. parallel runs the ops from
// 4×GOMAXPROCS goroutines and reports turns/s.
func runTurns(b *testing.B, store robota.Store, parallel bool) {
	snap, _ := tenTurnSnapshot(b)
	snap = withoutPersist(snap)
	f := startFakeServer(b)
	dir := b.TempDir()
	rt := benchRuntimeIn(b, f, dir)
	ids := make([]string, b.N)
	for i := range ids {
		ids[i] = fmt.Sprintf("bench-turn-%d", i)
	}
	if store != nil {
		if err := rt.SetStore(store); err != nil {
			b.Fatal(err)
		}
		seed(b, store, ids)
	}
	for i := 0; i < b.N; i++ {
		f.enqueueText(b, benchAnswer)
	}
	var next atomic.Int64
	turn := func() error {
		i := next.Add(1) - 1
		cfg := robota.ResumeConfig{SessionID: ids[i]}
		if store == nil {
			cfg = robota.ResumeConfig{Snapshot: snap}
		}
		s, err := rt.Resume(cfg)
		if err != nil {
			return fmt.Errorf("resume %d: %w", i, err)
		}
		defer s.Close()
		r, err := s.Run(context.Background(), benchPrompt)
		if err != nil || r.Response != benchAnswer {
			return fmt.Errorf("turn %d: %q, %w", i, r.Response, err)
		}
		return nil
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	if parallel {
		b.SetParallelism(4)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := turn(); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "turns/s")
	} else {
		for i := 0; i < b.N; i++ {
			if err := turn(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	reportSnapshotBytes(b)
	if store != nil {
		wantAdvanced(b, store, ids[b.N-1])
	}
	if files, err := os.ReadDir(dir); err != nil || len(files) != 0 {
		b.Fatalf("the session directory holds %d files (%v): nothing may persist there", len(files), err)
	}
}

// wantAdvanced fails unless the session's turn was persisted: version 2, eleven messages.
func wantAdvanced(b *testing.B, store robota.Store, id string) {
	b.Helper()
	got, err := store.Load(context.Background(), id)
	var sum robota.StoredSummary
	if err == nil {
		err = json.Unmarshal(got.Snapshot, &sum)
	}
	if err != nil || got.Version != 2 || sum.MessageCount != benchTurns+1 {
		b.Fatalf("%s after its turn: version %d, %d messages, %v", id, got.Version, sum.MessageCount, err)
	}
}

// BenchmarkTurnWithPostgresStore: one turn per op, the session loaded from and saved to
// PostgreSQL through sqlstore.
func BenchmarkTurnWithPostgresStore(b *testing.B) { runTurns(b, benchStore(b), false) }

// BenchmarkTurnWithMemoryStore: the same turn through the store port, the store a map.
func BenchmarkTurnWithMemoryStore(b *testing.B) { runTurns(b, newMemStore(), false) }

// BenchmarkTurnWithoutStore: the same turn, no store and no persist.
func BenchmarkTurnWithoutStore(b *testing.B) { runTurns(b, nil, false) }

// BenchmarkTurnWithPostgresStoreParallel: BenchmarkTurnWithPostgresStore from 4×GOMAXPROCS
// goroutines of one runtime (one node serving concurrent requests).
func BenchmarkTurnWithPostgresStoreParallel(b *testing.B) { runTurns(b, benchStore(b), true) }
