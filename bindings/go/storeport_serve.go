package robota

// #include <stdint.h>
// #include <stdlib.h>
// #include "robota.h"
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unsafe"
)

// storeEntry is the registration behind the store callback's handle: the host's Store and
// the context of its calls, cancelled when the library releases the registration.
type storeEntry struct {
	store  Store
	rt     *runtimeCore
	ctx    context.Context
	cancel context.CancelFunc
}

func newStoreEntry(s Store, rt *runtimeCore) *storeEntry {
	ctx, cancel := context.WithCancel(context.Background())
	return &storeEntry{store: s, rt: rt, ctx: ctx, cancel: cancel}
}

// released implements freer.
func (e *storeEntry) released() { e.cancel() }

// storeRequest is a store request of the library (every op's fields).
type storeRequest struct {
	Op              string          `json:"op"`
	SessionID       string          `json:"session_id"`
	ExpectedVersion uint64          `json:"expected_version"`
	Snapshot        json.RawMessage `json:"snapshot"`
	Summary         StoredSummary   `json:"summary"`
	Cwd             *string         `json:"cwd"`
	Limit           *int            `json:"limit"`
	Lines           string          `json:"lines"`
}

// start answers request id on a new goroutine. Must not block.
func (e *storeEntry) start(id uint64, req []byte) {
	if !e.rt.acquire() {
		return
	}
	goTracked(func() {
		defer e.rt.release()
		// ErrStale after a timeout is expected: the operation no longer waits for it.
		_ = e.rt.completeStore(id, e.answer(req))
	})
}

func (c *runtimeCore) completeStore(id uint64, doc string) error {
	cdoc := C.CString(doc)
	defer C.free(unsafe.Pointer(cdoc))
	var cerr *C.robota_error
	return takeError("CompleteStore", C.robota_store_complete(c.ptr, C.uint64_t(id), cdoc, &cerr), cerr)
}

// storeFailure is the answer {"error": msg}.
func storeFailure(msg string) string {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return string(b)
}

// answer calls the Store for one request and encodes its answer (errors and panics as
// {"error"}).
func (e *storeEntry) answer(raw []byte) (out string) {
	var req storeRequest
	defer func() {
		if r := recover(); r != nil {
			out = storeFailure(fmt.Sprintf("the session store panicked in %s: %v", req.Op, r))
		}
	}()
	if err := json.Unmarshal(raw, &req); err != nil {
		return storeFailure("unreadable store request: " + err.Error())
	}
	v, err := e.call(req)
	if err != nil {
		return storeFailure(err.Error())
	}
	b, err := json.Marshal(v)
	if err != nil {
		return storeFailure(fmt.Sprintf("the session store's %s answer cannot be encoded: %v", req.Op, err))
	}
	return string(b)
}

// call runs the Store method of req.Op and returns the answer document.
func (e *storeEntry) call(req storeRequest) (any, error) {
	ctx, s := e.ctx, e.store
	switch req.Op {
	case "load":
		got, err := s.Load(ctx, req.SessionID)
		if errors.Is(err, ErrStoreNotFound) {
			return map[string]bool{"found": false}, nil
		}
		if err != nil {
			return nil, err
		}
		if got.Version == 0 || len(got.Snapshot) == 0 {
			return nil, fmt.Errorf("the session store's Load of %q returned version %d and a %d-byte snapshot (want version ≥ 1 and a snapshot)", req.SessionID, got.Version, len(got.Snapshot))
		}
		return map[string]any{"version": got.Version, "snapshot": got.Snapshot}, nil
	case "save":
		sum := req.Summary
		sum.ID = req.SessionID
		v, err := s.Save(ctx, StoreSave{SessionID: req.SessionID, ExpectedVersion: req.ExpectedVersion, Snapshot: req.Snapshot, Summary: sum})
		var conflict *StoreConflictError
		if errors.As(err, &conflict) {
			return map[string]any{"conflict": true, "version": conflict.StoredVersion}, nil
		}
		if errors.Is(err, ErrStoreConflict) {
			return nil, fmt.Errorf("the session store's Save of %q reported a conflict without the stored version (return a *StoreConflictError)", req.SessionID)
		}
		if err != nil {
			return nil, err
		}
		if v != req.ExpectedVersion+1 {
			return nil, fmt.Errorf("the session store's Save of %q returned version %d, want %d (expected version + 1)", req.SessionID, v, req.ExpectedVersion+1)
		}
		return map[string]uint64{"version": v}, nil
	case "delete":
		err := s.Delete(ctx, req.SessionID)
		if errors.Is(err, ErrStoreNotFound) {
			return map[string]bool{"deleted": false}, nil
		}
		if err != nil {
			return nil, err
		}
		return map[string]bool{"deleted": true}, nil
	case "list":
		list, err := s.List(ctx, StoreQuery{Cwd: req.Cwd, Limit: req.Limit})
		if err != nil {
			return nil, err
		}
		if list == nil {
			list = []StoredSummary{}
		}
		return map[string][]StoredSummary{"sessions": list}, nil
	case "append":
		if err := s.Append(ctx, req.SessionID, []byte(req.Lines)); err != nil {
			return nil, err
		}
		return struct{}{}, nil
	}
	return nil, fmt.Errorf("unknown store op %q", req.Op)
}
