package robota

// #include <stdint.h>
// #include <stdlib.h>
// #include "robota.h"
// extern void robotaGoStore(void *, uint64_t, char *, size_t);
// static robota_store_fn robota_go_store_fn(void) { return (robota_store_fn)robotaGoStore; }
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Store is a session store the runtime saves sessions to and loads them from (Runtime.SetStore),
// e.g. a database several processes share (package sqlstore). With a Store set, sessions with
// SessionConfig.Persist save through it after each turn, Resume by SessionID loads through it,
// ListSessions and DeleteSession use it, and transcripts are appended to it. Each call runs on
// its own goroutine, concurrently with the others; ctx ends when the Store is replaced or the
// runtime is freed. An error other than those below (or a panic) fails the operation with
// ErrIO and its message; a failed save after a turn is a Warning event of that turn.
type Store interface {
	// Load returns the session's saved version (≥ 1) and snapshot; ErrStoreNotFound when
	// there is none.
	Load(ctx context.Context, sessionID string) (StoredSession, error)
	// Save stores s atomically only if the stored version is still s.ExpectedVersion (0: the
	// session must not exist yet), and returns the new version, s.ExpectedVersion+1.
	// Otherwise it changes nothing and returns a *StoreConflictError with the stored version
	// (0 when the session is gone).
	Save(ctx context.Context, s StoreSave) (version uint64, err error)
	// Delete deletes the session; ErrStoreNotFound when there is none.
	Delete(ctx context.Context, sessionID string) error
	// List returns the summaries matching q, newest UpdatedAt first.
	List(ctx context.Context, q StoreQuery) ([]StoredSummary, error)
	// Append appends lines (complete JSONL transcript lines, each ending in "\n") to the
	// session's transcript.
	Append(ctx context.Context, sessionID string, lines []byte) error
}

// StoredSession is a saved session as Store.Load returns it.
type StoredSession struct {
	// Version is the version Save returned for Snapshot.
	Version uint64
	// Snapshot is the session's JSON document (what Session.Save returns).
	Snapshot json.RawMessage
}

// StoreSave is one Store.Save.
type StoreSave struct {
	SessionID string
	// ExpectedVersion is the version the session loaded (0: it is new).
	ExpectedVersion uint64
	Snapshot        json.RawMessage
	// Summary is copied from Snapshot (ID is SessionID), for the store's columns.
	Summary StoredSummary
}

// StoreQuery filters Store.List: Cwd nil lists every directory's sessions, Limit nil all of
// them.
type StoreQuery struct {
	Cwd   *string
	Limit *int
}

// Errors a Store returns.
var (
	// ErrStoreNotFound: the session is not in the store (Load, Delete).
	ErrStoreNotFound = errors.New("robota: session not found in the store")
	// ErrStoreConflict: the stored version is not the expected one (Save); return it as a
	// *StoreConflictError, which says the stored version.
	ErrStoreConflict = errors.New("robota: stale session version")
)

// StoreConflictError is Store.Save's answer to a stale ExpectedVersion. It matches
// ErrStoreConflict.
type StoreConflictError struct {
	// StoredVersion is the version in the store (0 when the session is gone).
	StoredVersion uint64
}

func (e *StoreConflictError) Error() string {
	return fmt.Sprintf("robota: stale session version: the store holds version %d", e.StoredVersion)
}

// Is makes errors.Is(err, ErrStoreConflict) true.
func (e *StoreConflictError) Is(target error) bool { return target == ErrStoreConflict }

// SetStore sets the runtime's session store (robota_runtime_set_store); nil removes it, back to
// the session directory. A request a Store has not answered within the runtime's
// RequestTimeoutMS fails its operation with ErrTimeout.
func (rt *Runtime) SetStore(s Store) error {
	const op = "SetStore"
	core, err := rt.live(op)
	if err != nil {
		return err
	}
	defer core.release()
	var cerr *C.robota_error
	if s == nil {
		return takeError(op, C.robota_runtime_set_store(core.ptr, nil, nil, nil, &cerr), cerr)
	}
	entry := newStoreEntry(s, core)
	h, ud := newHandle(entry)
	if st := C.robota_runtime_set_store(core.ptr, C.robota_go_store_fn(), ud, freeFn, &cerr); st != C.ROBOTA_OK {
		dropHandle(h)
		entry.released()
		return takeError(op, st, cerr)
	}
	return nil
}
