package pgtest

import (
	"context"
	"sort"
	"sync"

	robota "github.com/robota-ai/robota-native/bindings/go"
)

// memStore is an in-memory robota.Store (a map under a mutex, the same version check as
// sqlstore): the benchmarks' baseline for the store port without a database.
type memStore struct {
	mu       sync.Mutex
	sessions map[string]memSession
	lines    map[string][]byte
}

type memSession struct {
	version  uint64
	snapshot []byte
	summary  robota.StoredSummary
}

var _ robota.Store = (*memStore)(nil)

func newMemStore() *memStore {
	return &memStore{sessions: map[string]memSession{}, lines: map[string][]byte{}}
}

func (m *memStore) Load(_ context.Context, id string) (robota.StoredSession, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return robota.StoredSession{}, robota.ErrStoreNotFound
	}
	return robota.StoredSession{Version: s.version, Snapshot: s.snapshot}, nil
}

func (m *memStore) Save(_ context.Context, in robota.StoreSave) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if stored := m.sessions[in.SessionID].version; stored != in.ExpectedVersion {
		return 0, &robota.StoreConflictError{StoredVersion: stored}
	}
	sum := in.Summary
	sum.ID = in.SessionID
	m.sessions[in.SessionID] = memSession{version: in.ExpectedVersion + 1, snapshot: append([]byte(nil), in.Snapshot...), summary: sum}
	return in.ExpectedVersion + 1, nil
}

func (m *memStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.sessions[id]; !ok {
		return robota.ErrStoreNotFound
	}
	delete(m.sessions, id)
	return nil
}

func (m *memStore) List(_ context.Context, q robota.StoreQuery) ([]robota.StoredSummary, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []robota.StoredSummary{}
	for _, s := range m.sessions {
		if q.Cwd == nil || s.summary.Cwd == *q.Cwd {
			out = append(out, s.summary)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].UpdatedAt != out[j].UpdatedAt {
			return out[i].UpdatedAt > out[j].UpdatedAt
		}
		return out[i].ID < out[j].ID
	})
	if q.Limit != nil && *q.Limit >= 0 && *q.Limit < len(out) {
		out = out[:*q.Limit]
	}
	return out, nil
}

func (m *memStore) Append(_ context.Context, id string, lines []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lines[id] = append(m.lines[id], lines...)
	return nil
}
