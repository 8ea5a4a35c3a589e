package robota

// #include <stdlib.h>
// #include "robota.h"
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Status is a status code of the C library: 0 or a negative ROBOTA_E_* value. Every Status
// other than StatusOK is also an error, so the Err* sentinels below are Status values and
// errors.Is(err, robota.ErrBusy) matches any *Error carrying that status.
type Status int32

// The library's status codes (include/robota.h), append-only.
const (
	StatusOK              Status = C.ROBOTA_OK
	StatusNullArg         Status = C.ROBOTA_E_NULL_ARG
	StatusInvalidHandle   Status = C.ROBOTA_E_INVALID_HANDLE
	StatusInvalidJSON     Status = C.ROBOTA_E_INVALID_JSON
	StatusInvalidConfig   Status = C.ROBOTA_E_INVALID_CONFIG
	StatusBusy            Status = C.ROBOTA_E_BUSY
	StatusNotFound        Status = C.ROBOTA_E_NOT_FOUND
	StatusStale           Status = C.ROBOTA_E_STALE
	StatusTimeout         Status = C.ROBOTA_E_TIMEOUT
	StatusClosed          Status = C.ROBOTA_E_CLOSED
	StatusAborted         Status = C.ROBOTA_E_ABORTED
	StatusReentrant       Status = C.ROBOTA_E_REENTRANT
	StatusUnsupported     Status = C.ROBOTA_E_UNSUPPORTED
	StatusIO              Status = C.ROBOTA_E_IO
	StatusProvider        Status = C.ROBOTA_E_PROVIDER
	StatusPanic           Status = C.ROBOTA_E_PANIC
	StatusInternal        Status = C.ROBOTA_E_INTERNAL
	StatusVersionMismatch Status = C.ROBOTA_E_VERSION_MISMATCH
	StatusInvalidUTF8     Status = C.ROBOTA_E_INVALID_UTF8
	StatusBudget          Status = C.ROBOTA_E_BUDGET
	StatusConflict        Status = C.ROBOTA_E_CONFLICT
)

// Sentinels for errors.Is. An *Error matches the sentinel of its Status.
var (
	ErrNullArg         error = StatusNullArg
	ErrInvalidHandle   error = StatusInvalidHandle
	ErrInvalidJSON     error = StatusInvalidJSON
	ErrInvalidConfig   error = StatusInvalidConfig
	ErrBusy            error = StatusBusy
	ErrNotFound        error = StatusNotFound
	ErrStale           error = StatusStale
	ErrTimeout         error = StatusTimeout
	ErrClosed          error = StatusClosed
	ErrAborted         error = StatusAborted
	ErrReentrant       error = StatusReentrant
	ErrUnsupported     error = StatusUnsupported
	ErrIO              error = StatusIO
	ErrProvider        error = StatusProvider
	ErrPanic           error = StatusPanic
	ErrInternal        error = StatusInternal
	ErrVersionMismatch error = StatusVersionMismatch
	ErrInvalidUTF8     error = StatusInvalidUTF8
	ErrBudget          error = StatusBudget
	ErrConflict        error = StatusConflict
)

// String is the library's English text for the status (robota_status_str).
func (s Status) String() string {
	return C.GoString(C.robota_status_str(C.robota_status(s)))
}

// Error makes a Status usable as a sentinel error.
func (s Status) Error() string {
	return "robota: " + s.String()
}

// Error is every failure the library reports, and the binding's own (closed session, nil
// handler). Status is the ROBOTA_E_* code; Code, Category and Recoverable come from the Robota
// error taxonomy when the library attached details (e.g. "PROVIDER_ERROR", "provider", true).
type Error struct {
	// Op names the call that failed, e.g. "NewSession" or "Submit".
	Op string
	// Status is the ROBOTA_E_* status.
	Status Status
	// Message says what is wrong, in the library's words.
	Message string
	// Code is the taxonomy code ("" when the library gave none).
	Code string
	// Category is the taxonomy category ("" when the library gave none).
	Category string
	// Recoverable reports whether retrying may succeed.
	Recoverable bool

	cause error // what else the error matches (the context error of an aborted stream)
}

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" {
		msg = e.Status.String()
	}
	if e.Op == "" {
		return "robota: " + msg
	}
	return fmt.Sprintf("robota: %s: %s", e.Op, msg)
}

// Is reports whether target is the sentinel of e's Status (errors.Is(err, robota.ErrBusy)),
// or what caused it (context.Canceled for a stream aborted by its context).
func (e *Error) Is(target error) bool {
	if s, ok := target.(Status); ok && s == e.Status {
		return true
	}
	return e.cause != nil && errors.Is(e.cause, target)
}

// Unwrap returns the Status sentinel, so errors.Is and errors.As see it.
func (e *Error) Unwrap() error { return e.Status }

// errorDetails is the details JSON of an error object.
type errorDetails struct {
	Code        string `json:"code"`
	Category    string `json:"category"`
	Recoverable bool   `json:"recoverable"`
}

// takeError converts (and frees) an error object written by the library; status is the
// call's return value, used when the library wrote no object.
func takeError(op string, status C.robota_status, e *C.robota_error) error {
	if status == C.ROBOTA_OK && e == nil {
		return nil
	}
	out := &Error{Op: op, Status: Status(status)}
	if e != nil {
		out.Status = Status(C.robota_error_code(e))
		if m := C.robota_error_message(e); m != nil {
			out.Message = C.GoString(m)
		}
		if d := C.robota_error_details(e); d != nil {
			var det errorDetails
			if json.Unmarshal([]byte(C.GoString(d)), &det) == nil {
				out.Code, out.Category, out.Recoverable = det.Code, det.Category, det.Recoverable
			}
		}
		C.robota_error_free(e)
	}
	return out
}

// statusError converts a bare status (functions without an error object).
func statusError(op string, status C.robota_status) error {
	if status >= 0 {
		return nil
	}
	return &Error{Op: op, Status: Status(status)}
}

// newError is a binding-side error.
func newError(op string, s Status, format string, args ...any) error {
	return &Error{Op: op, Status: s, Message: fmt.Sprintf(format, args...)}
}

// encodeStatus is the status of a document the binding could not encode: ErrInvalidJSON when
// a value the host gave as JSON (a json.RawMessage, a json.Marshaler) is not valid JSON,
// ErrInvalidConfig for a value with no JSON form (a channel, a function).
func encodeStatus(err error) Status {
	var me *json.MarshalerError
	var se *json.SyntaxError
	if errors.As(err, &me) || errors.As(err, &se) {
		return StatusInvalidJSON
	}
	return StatusInvalidConfig
}
