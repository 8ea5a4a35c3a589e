package robota

// #include <stdlib.h>
// #include <string.h>
// #include "robota.h"
//
// // What robota_session_submit and robota_session_wait_result write, as one value each, so
// // that no Go variable's address goes to C (each would move to the heap on every turn).
// typedef struct { robota_status status; uint64_t turn_id; robota_error *error; } robota_go_submitted;
// static robota_go_submitted robota_go_session_submit(robota_session *s, const char *input) {
// 	robota_go_submitted r = { ROBOTA_OK, 0, NULL };
// 	r.status = robota_session_submit(s, input, &r.turn_id, &r.error);
// 	return r;
// }
// typedef struct { robota_status status; char *result; robota_error *error; } robota_go_waited;
// static robota_go_waited robota_go_session_wait_result(robota_session *s, uint64_t turn_id, int32_t timeout_ms) {
// 	robota_go_waited r = { ROBOTA_OK, NULL, NULL };
// 	r.status = robota_session_wait_result(s, turn_id, timeout_ms, &r.result, &r.error);
// 	return r;
// }
import "C"

import (
	"context"
	"encoding/json"
	"sync"
	"unsafe"
)

// Turn is a submitted prompt. It completes with the TurnCompleted event of its id.
type Turn struct {
	*turnState
	session *Session // keeps the session reachable (no finalizer) while the Turn is held
}

// turnState is what the session's routing completes (it does not reference the Session, so a
// forgotten Session stays collectable while its turns run).
type turnState struct {
	id   uint64
	core *sessionCore

	done   chan struct{}
	once   sync.Once
	refine sync.Once
	mu     sync.Mutex
	result Result
	err    error
	errEv  *ErrorEvent
	queue  *turnQueue // the events of a streamed turn (Session.Stream), else nil
}

// ID is the turn id (unique per session).
func (t *Turn) ID() uint64 { return t.id }

// Done is closed when the turn has completed.
func (t *Turn) Done() <-chan struct{} { return t.done }

// Wait returns the turn's result once it completed, or ctx's error when ctx ends first (the
// turn keeps running; cancel the Submit context or call Abort to stop it). The error is nil
// for a completed turn, matches ErrAborted for an aborted one, and is an *Error naming the
// failure (Status StatusProvider, taxonomy Code/Category/Recoverable) for a failed one.
func (t *Turn) Wait(ctx context.Context) (Result, error) {
	select {
	case <-t.done:
	case <-ctx.Done():
		return Result{TurnID: t.id}, ctx.Err()
	}
	t.refine.Do(t.askLibrary)
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.result, t.err
}

// normal reports whether a turn that stopped for r completed (it has no error to report).
func (r StopReason) normal() bool {
	switch r {
	case StopComplete, StopMaxRounds, StopContextLimit:
		return true
	}
	return false
}

// askLibrary asks robota_session_wait_result for the completed turn's result document and
// status, so the result and the error are the library's (e.g. a budget stop's message). The
// routed TurnCompleted stays when the library no longer keeps the turn (64 most recent) or
// the session is closed.
func (t *turnState) askLibrary() {
	var doc []byte
	var lib error
	_ = t.core.use("Wait", func(p *C.robota_session) error {
		// The turn has completed: this returns at once (10 s only bounds a library bug).
		w := C.robota_go_session_wait_result(p, C.uint64_t(t.id), 10000)
		lib = takeError("Wait", w.status, w.error)
		if w.result != nil {
			// On ROBOTA_OK the document is the routed TurnCompleted: only a failure's can
			// say more.
			if lib != nil {
				doc = C.GoBytes(unsafe.Pointer(w.result), C.int(C.strlen(w.result)))
			}
			C.robota_string_free(w.result)
		}
		return nil
	})
	if r, ok := resultDocument(doc, t.id); ok {
		t.mu.Lock()
		t.result = r
		t.mu.Unlock()
	}
	t.adopt(lib)
}

// resultDocument decodes a turn's result document (its TURN_COMPLETED event JSON), which
// must never change afterwards.
func resultDocument(doc []byte, id uint64) (Result, bool) {
	if doc == nil {
		return Result{}, false
	}
	r := Result{TurnID: id}
	if !readResult(doc, &r) {
		r = Result{TurnID: id}
		if json.Unmarshal(doc, &r) != nil {
			return Result{}, false
		}
	}
	if r.TurnID != id {
		return Result{}, false
	}
	return r, true
}

// adopt makes lib, the library's status for the completed turn (robota_session_wait or
// robota_session_run), the turn's error, keeping the taxonomy of the ERROR event when lib
// has none. A timeout or an unknown turn leaves the error as routed.
func (t *turnState) adopt(lib error) {
	t.mu.Lock()
	prev := t.err
	t.mu.Unlock()
	le, ok := lib.(*Error)
	if !ok || le.Status == StatusTimeout || le.Status == StatusNotFound {
		return
	}
	if pe, ok := prev.(*Error); ok && le.Code == "" {
		le.Code, le.Category, le.Recoverable = pe.Code, pe.Category, pe.Recoverable
	}
	t.mu.Lock()
	t.err = le
	t.mu.Unlock()
}

// Abort aborts the turn (running or queued); idempotent.
func (t *Turn) Abort() error { return t.abort() }

func (t *turnState) abort() error { return t.core.abortTurn(t.id) }

// finish records the outcome; the first call wins.
func (t *turnState) finish(r Result, err error) {
	t.once.Do(func() {
		t.mu.Lock()
		t.result, t.err = r, err
		t.mu.Unlock()
		close(t.done)
	})
}

// Submit starts a turn with text, or queues it while another turn runs (one at most: a
// further Submit fails with ErrBusy). Cancelling ctx aborts the turn.
func (s *Session) Submit(ctx context.Context, text string) (*Turn, error) {
	return s.SubmitInput(ctx, Input{Text: text})
}

// SubmitInput is Submit with the display and raw variants of the input.
func (s *Session) SubmitInput(ctx context.Context, in Input) (*Turn, error) {
	return s.submit(ctx, "Submit", in, false)
}

// submit issues a turn for op; stream: its events are queued for a TurnStream.
func (s *Session) submit(ctx context.Context, op string, in Input, stream bool) (*Turn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	doc, _ := json.Marshal(in)
	cdoc := C.CString(string(doc))
	defer C.free(unsafe.Pointer(cdoc))
	c := s.core
	var t *Turn
	err := c.use(op, func(p *C.robota_session) error {
		// Registering under c.mu: the turn's completion is routed under c.mu too, so it
		// cannot be seen before the turn is registered.
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.closing {
			return newError(op, StatusClosed, "session is closed")
		}
		sub := C.robota_go_session_submit(p, cdoc)
		if sub.status != C.ROBOTA_OK {
			return takeError(op, sub.status, sub.error)
		}
		t = &Turn{turnState: &turnState{id: uint64(sub.turn_id), core: c, done: make(chan struct{})}, session: s}
		c.turns[t.id] = t.turnState
		if stream {
			t.queue = newTurnQueue()
			if c.queues == nil {
				c.queues = map[uint64]*turnQueue{}
			}
			c.queues[t.id] = t.queue
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if ctx.Done() != nil {
		ts := t.turnState
		goTracked(func() {
			select {
			case <-ctx.Done():
				_ = ts.abort()
			case <-ts.done:
			}
		})
	}
	return t, nil
}

// Run submits text and waits for the turn's result. Cancelling ctx aborts the turn; Run then
// returns the aborted result with ctx's error once the turn has stopped.
func (s *Session) Run(ctx context.Context, text string) (Result, error) {
	return s.runInput(ctx, "Run", Input{Text: text})
}

// runInput is Run (op) with the variants of the input.
func (s *Session) runInput(ctx context.Context, op string, in Input) (Result, error) {
	t, err := s.submit(ctx, op, in, false)
	if err != nil {
		return Result{}, err
	}
	r, err := t.Wait(context.Background())
	if ctxErr := ctx.Err(); ctxErr != nil {
		return r, ctxErr
	}
	return r, relabel(err, op)
}

// Abort aborts the running turn and drops the queued prompt; idempotent.
func (s *Session) Abort() error {
	return s.core.use("Abort", func(p *C.robota_session) error {
		return statusError("Abort", C.robota_session_abort(p, 0))
	})
}

// completeTurn routes a TurnCompleted event (on the delivering thread).
func (c *sessionCore) completeTurn(r Result) {
	c.mu.Lock()
	t := c.turns[r.TurnID]
	delete(c.turns, r.TurnID)
	if t == nil {
		t = c.drivenLocked(r.TurnID, true)
	}
	c.mu.Unlock()
	if t == nil {
		return
	}
	t.mu.Lock()
	ev := t.errEv
	t.mu.Unlock()
	var err error
	switch r.StopReason {
	case StopAborted:
		err = newError("Wait", StatusAborted, "turn %d was aborted", r.TurnID)
	case StopError:
		e := &Error{Op: "Wait", Status: StatusProvider, Message: r.Error}
		if ev != nil {
			e.Code, e.Category, e.Recoverable = ev.Code, ev.Category, ev.Recoverable
			if e.Message == "" {
				e.Message = ev.Message
			}
		}
		err = e
	}
	t.finish(r, err)
}

// turnError remembers the ERROR event of a turn for its result's error.
func (c *sessionCore) turnError(e ErrorEvent) {
	c.mu.Lock()
	t := c.turns[e.TurnID]
	if t == nil {
		t = c.drivenLocked(e.TurnID, false)
	}
	c.mu.Unlock()
	if t != nil {
		t.mu.Lock()
		t.errEv = &e
		t.mu.Unlock()
	}
}

// WaitIdle blocks until the session has no running or queued turn (robota_session_wait with
// turn 0), up to timeoutMS (-1 = forever). It blocks an OS thread; prefer Turn.Wait.
//
// Deprecated: use WaitIdleContext, whose ctx deadline replaces timeoutMS.
func (s *Session) WaitIdle(timeoutMS int32) error {
	return s.core.use("WaitIdle", func(p *C.robota_session) error {
		var cerr *C.robota_error
		st := C.robota_session_wait(p, 0, C.int32_t(timeoutMS), &cerr)
		return takeError("WaitIdle", st, cerr)
	})
}

// abortLeftTurns completes the turns still waiting when session_closed arrives: close dropped
// them (a queued prompt whose own turn_completed can race with session_closed and be lost).
func (c *sessionCore) abortLeftTurns() {
	c.mu.Lock()
	left := c.turns
	c.turns = map[uint64]*turnState{}
	c.mu.Unlock()
	for id, t := range left {
		t.finish(Result{TurnID: id, StopReason: StopAborted}, newError("Wait", StatusAborted, "turn %d was aborted: the session closed", id))
	}
	c.endQueues()
}
