package robota

// #include <stdlib.h>
// #include "robota.h"
import "C"

import (
	"encoding/json"
	"time"
)

// timeoutMS converts a Go timeout: negative = forever, otherwise whole milliseconds
// (capped at the C int32 range).
func timeoutMS(d time.Duration) C.int32_t {
	if d < 0 {
		return -1
	}
	ms := d.Milliseconds()
	if ms > 1<<31-1 {
		ms = 1<<31 - 1
	}
	return C.int32_t(ms)
}

// Dispatch delivers queued events of a DeliveryPump session on the calling goroutine —
// routing them to turns, handlers and Events() exactly as the default delivery does —
// at most max (<= 0: all queued), waiting up to timeout (negative: forever) for the first.
// It returns how many were delivered. ErrUnsupported for other delivery modes, ErrBusy when
// another goroutine is dispatching.
func (s *Session) Dispatch(max int, timeout time.Duration) (int, error) {
	n := 0
	err := s.core.use("Dispatch", func(p *C.robota_session) error {
		r := C.robota_session_dispatch(p, C.int32_t(max), timeoutMS(timeout))
		if r < 0 {
			return newError("Dispatch", Status(r), "%s", Status(r).String())
		}
		n = int(r)
		return nil
	})
	return n, err
}

// pulled is the envelope of a pull-mode event.
type pulled struct {
	Kind   EventKind `json:"kind"`
	TurnID uint64    `json:"turn_id"`
	Text   string    `json:"text"`
}

// NextEvent reads the next event of a DeliveryPull session, waiting up to timeout (negative:
// forever, 0: poll), and routes it like the default delivery does (turn results, tool,
// permission and hook handlers, Events()). ErrTimeout when none arrived, ErrClosed after
// SessionClosed was read, ErrUnsupported for other delivery modes.
func (s *Session) NextEvent(timeout time.Duration) (Event, error) {
	var raw json.RawMessage
	err := s.core.jsonOut("NextEvent", &raw, func(p *C.robota_session, out **C.char, cerr **C.robota_error) C.robota_status {
		return C.robota_session_next_event(p, timeoutMS(timeout), out, cerr)
	})
	if err != nil {
		return nil, err
	}
	var env pulled
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, newError("NextEvent", StatusInternal, "unreadable event: %v", err)
	}
	var ev Event
	switch env.Kind {
	case KindTextDelta:
		ev = TextDelta{turnRef{env.TurnID}, env.Text}
	case KindThinkingDelta:
		ev = ThinkingDelta{turnRef{env.TurnID}, env.Text}
	default:
		ev = decodeJSONEvent(env.Kind, env.TurnID, raw)
	}
	s.core.route(ev)
	return ev, nil
}
