package robota

// #include <stdlib.h>
// #include "robota.h"
import "C"

import (
	"encoding/json"
	"unsafe"
)

// QueryResult is the outcome of Runtime.Query.
type QueryResult struct {
	Response   string     `json:"response"`
	StopReason StopReason `json:"stop_reason"`
	Usage      *Usage     `json:"usage"`
	// SessionID is set when cfg.Persist saved the session.
	SessionID string `json:"session_id,omitempty"`
	// Messages is the conversation the model saw (system prompt first).
	Messages []Message `json:"messages"`
	// Output is the answer validated against cfg.OutputSchema (nil without one).
	Output json.RawMessage `json:"output,omitempty"`
}

// DecodeOutput unmarshals the query's structured output into v (a pointer).
func (q *QueryResult) DecodeOutput(v any) error {
	return decodeOutput(q.Output, v)
}

// Query runs one prompt in a temporary session built from cfg and returns its answer
// (robota_query: createQuery). It blocks until the turn is over and the session closed.
// PermissionMode defaults to bypassPermissions; events are not streamed (use a Session for
// that). A failed turn is an *Error with StatusProvider.
func (rt *Runtime) Query(cfg SessionConfig, prompt string) (*QueryResult, error) {
	const op = "Query"
	forced := map[string]any{"prompt": prompt}
	if cfg.Tools != nil {
		forced["tools"] = cfg.Tools
	}
	doc, err := document(cfg, cfg.Extra, forced)
	if err != nil {
		return nil, newError(op, encodeStatus(err), "cannot encode the query document: %v", err)
	}
	rc, err := rt.live(op)
	if err != nil {
		return nil, err
	}
	defer rc.release()
	cdoc := C.CString(doc)
	defer C.free(unsafe.Pointer(cdoc))
	var out *C.char
	var cerr *C.robota_error
	st := C.robota_query(rc.ptr, cdoc, nil, nil, nil, &out, &cerr)
	if err := takeError(op, st, cerr); err != nil {
		return nil, err
	}
	defer C.robota_string_free(out)
	var res QueryResult
	if err := json.Unmarshal([]byte(C.GoString(out)), &res); err != nil {
		return nil, newError(op, StatusInternal, "cannot decode the query result: %v", err)
	}
	return &res, nil
}
