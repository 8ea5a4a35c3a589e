package robota

// #include <stdlib.h>
// #include "robota.h"
import "C"

import (
	"encoding/json"
	"unsafe"
)

// StoredSummary describes one saved session: an entry of Runtime.ListSessions and of
// Store.List, and the columns of a Store.Save.
type StoredSummary struct {
	ID           string  `json:"id"`
	Name         *string `json:"name"`
	Cwd          string  `json:"cwd"`
	CreatedAt    string  `json:"created_at"`
	UpdatedAt    string  `json:"updated_at"`
	MessageCount uint64  `json:"message_count"`
}

// SkippedFile is a session file a listing could not read (corrupt or truncated).
type SkippedFile struct {
	File  string `json:"file"`
	Error string `json:"error"`
}

// SessionList is the result of Runtime.ListSessions: newest first.
type SessionList struct {
	Sessions []StoredSummary `json:"sessions"`
	Skipped  []SkippedFile   `json:"skipped"`
}

// ListQuery filters Runtime.ListSessions: Cwd keeps the sessions of one working directory;
// Limit > 0 keeps the newest Limit.
type ListQuery struct {
	Cwd   string `json:"cwd,omitempty"`
	Limit int    `json:"limit,omitempty"`
}

// ListSessions lists the saved sessions (robota_store_list): those of the runtime's Store
// (Runtime.SetStore) when it has one, else of its session directory (RuntimeConfig.SessionDir,
// default $ROBOTA_HOME/sessions).
func (rt *Runtime) ListSessions(q ListQuery) (SessionList, error) {
	var list SessionList
	rc, err := rt.live("ListSessions")
	if err != nil {
		return list, err
	}
	defer rc.release()
	doc, _ := json.Marshal(q)
	cq := C.CString(string(doc))
	defer C.free(unsafe.Pointer(cq))
	var out *C.char
	var cerr *C.robota_error
	if st := C.robota_store_list(rc.ptr, cq, &out, &cerr); st != C.ROBOTA_OK {
		return list, takeError("ListSessions", st, cerr)
	}
	text := C.GoString(out)
	C.robota_string_free(out)
	if err := json.Unmarshal([]byte(text), &list); err != nil {
		return list, newError("ListSessions", StatusInternal, "the library answered JSON this binding cannot read: %v", err)
	}
	return list, nil
}

// DeleteSession deletes a saved session (robota_store_delete), through the runtime's Store
// when it has one; ErrNotFound when there is none.
func (rt *Runtime) DeleteSession(id string) error {
	rc, err := rt.live("DeleteSession")
	if err != nil {
		return err
	}
	defer rc.release()
	cid := C.CString(id)
	defer C.free(unsafe.Pointer(cid))
	var cerr *C.robota_error
	return takeError("DeleteSession", C.robota_store_delete(rc.ptr, cid, &cerr), cerr)
}
