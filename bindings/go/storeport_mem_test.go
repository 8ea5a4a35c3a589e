package robota

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// memRecord is one session of a memStore.
type memRecord struct {
	version  uint64
	snapshot string
	summary  StoredSummary
}

// memStore is an in-memory Store with a real version check. It records its calls ("save ID
// EXPECTED", "load ID", "list CWD LIMIT", "delete ID", "append ID"); fail makes an op return an
// error, panicOn makes one panic.
type memStore struct {
	mu      sync.Mutex
	records map[string]memRecord
	lines   map[string]string
	calls   []string
	fail    map[string]error
	panicOn string
}

func newMemStore() *memStore {
	return &memStore{records: map[string]memRecord{}, lines: map[string]string{}, fail: map[string]error{}}
}

// enter records a call of op and returns the error it must fail with (or panics).
func (m *memStore) enter(op, call string) error {
	m.mu.Lock()
	m.calls = append(m.calls, call)
	err, panics := m.fail[op], m.panicOn == op
	m.mu.Unlock()
	if panics {
		panic("boom in " + op)
	}
	return err
}

func (m *memStore) Load(_ context.Context, id string) (StoredSession, error) {
	if err := m.enter("load", "load "+id); err != nil {
		return StoredSession{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.records[id]
	if !ok {
		return StoredSession{}, ErrStoreNotFound
	}
	return StoredSession{Version: r.version, Snapshot: []byte(r.snapshot)}, nil
}

func (m *memStore) Save(_ context.Context, s StoreSave) (uint64, error) {
	if err := m.enter("save", fmt.Sprintf("save %s %d", s.SessionID, s.ExpectedVersion)); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.records[s.SessionID] // version 0 when absent
	if r.version != s.ExpectedVersion {
		return 0, &StoreConflictError{StoredVersion: r.version}
	}
	m.records[s.SessionID] = memRecord{version: r.version + 1, snapshot: string(s.Snapshot), summary: s.Summary}
	return r.version + 1, nil
}

func (m *memStore) Delete(_ context.Context, id string) error {
	if err := m.enter("delete", "delete "+id); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.records[id]; !ok {
		return ErrStoreNotFound
	}
	delete(m.records, id)
	return nil
}

func (m *memStore) List(_ context.Context, q StoreQuery) ([]StoredSummary, error) {
	cwd, limit := "<all>", "<all>"
	if q.Cwd != nil {
		cwd = *q.Cwd
	}
	if q.Limit != nil {
		limit = fmt.Sprint(*q.Limit)
	}
	if err := m.enter("list", "list "+cwd+" "+limit); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []StoredSummary
	for _, r := range m.records {
		if q.Cwd == nil || r.summary.Cwd == *q.Cwd {
			out = append(out, r.summary)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UpdatedAt > out[j].UpdatedAt })
	if q.Limit != nil && len(out) > *q.Limit {
		out = out[:*q.Limit]
	}
	return out, nil
}

func (m *memStore) Append(_ context.Context, id string, lines []byte) error {
	if err := m.enter("append", "append "+id); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lines[id] += string(lines)
	return nil
}

// record returns the stored session id (ok false when absent).
func (m *memStore) record(id string) (memRecord, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.records[id]
	return r, ok
}

// put stores r as session id behind the runtime's back (another node's save).
func (m *memStore) put(id string, r memRecord) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.records[id] = r
}

// callLog returns the calls so far.
func (m *memStore) callLog() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.calls...)
}

func (m *memStore) setFail(op string, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fail[op] = err
}

func (m *memStore) setPanic(op string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.panicOn = op
}

func (m *memStore) transcript(id string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lines[id]
}
