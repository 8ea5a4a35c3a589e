package robota

// #include <stdlib.h>
// #include <string.h>
// #include "robota.h"
//
// // robota_go_ran is what robota_session_run_result writes, as one value, so that no Go
// // variable's address goes to C (each would move to the heap on every turn).
// typedef struct { robota_status status; uint64_t turn_id; char *result; robota_error *error; } robota_go_ran;
// static robota_go_ran robota_go_session_run_result(robota_session *s, const char *input) {
// 	robota_go_ran r = { ROBOTA_OK, 0, NULL, NULL };
// 	r.status = robota_session_run_result(s, input, &r.turn_id, &r.result, &r.error);
// 	return r;
// }
import "C"

import (
	"context"
	"encoding/json"
	"runtime"
	"time"
	"unsafe"
)

// Drive runs text as a turn and returns its result, like Run, with the calling goroutine's OS
// thread doing the work (robota_session_run, a blocking cgo call): when the session is idle
// that thread runs the turn itself — model requests, tools, timers — on a reactor the runtime
// lends it (kept, with its HTTP connections, for the next call), so no library thread is
// woken, and with DeliveryInline the binding's event and tool callbacks run on it during the
// call. A prompt driven while a turn runs is queued and runs on the library's workers, as a
// Submit's would (ErrBusy when a prompt is queued already).
//
// Drive returns what Run returns for the same turn: the Result and a nil error for a
// completed turn, an error matching ErrAborted for an aborted one, an *Error with Status
// StatusProvider and the taxonomy Code for a failed one, and the library's status for a
// refused call (ErrBusy, ErrClosed, ErrReentrant, …). Every event of the turn has been routed
// when it returns (handlers started, TurnCompleted queued for Events()). Cancelling ctx
// aborts the turn, and Drive then returns the aborted result with ctx's error; Session.Abort
// from another goroutine ends it with ErrAborted.
//
// One Drive per session is in robota_session_run at a time: a Drive started on the same
// session meanwhile submits and waits instead (the library would queue its prompt all the
// same), so the binding always knows which turn a Drive is running. With DeliveryPump or
// DeliveryPull the turn's events, tool calls included, flow only while another goroutine
// calls Dispatch or NextEvent; as with Run, Drive returns once that goroutine has routed the
// turn's TurnCompleted.
func (s *Session) Drive(ctx context.Context, text string) (Result, error) {
	return s.DriveInput(ctx, Input{Text: text})
}

// DriveInput is Drive with the display and raw variants of the input.
func (s *Session) DriveInput(ctx context.Context, in Input) (Result, error) {
	const op = "Drive"
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	defer runtime.KeepAlive(s) // no finalizer closes the session while its turn runs
	c := s.core
	d, err := c.beginDrive(op)
	if err != nil {
		return Result{}, err
	}
	if d == nil { // another Drive is in robota_session_run
		return s.runInput(ctx, op, in)
	}
	defer c.endDrive(d, 0) // when the call did not run (the session closed meanwhile)
	stop := make(chan struct{})
	if ctx.Done() != nil {
		goTracked(func() {
			select {
			case <-ctx.Done():
				c.cancelDrive(d, stop)
			case <-stop:
			}
		})
	}
	doc, _ := json.Marshal(in)
	cdoc := C.CString(string(doc))
	defer C.free(unsafe.Pointer(cdoc))
	var id uint64
	var runErr error
	var resultDoc []byte // the turn's result document, when it can say more than its routed TurnCompleted
	var t *turnState
	err = c.use(op, func(p *C.robota_session) error {
		ran := C.robota_go_session_run_result(p, cdoc)
		id, runErr = uint64(ran.turn_id), takeError(op, ran.status, ran.error)
		if ran.result != nil {
			// On ROBOTA_OK the document is the TurnCompleted event routed to t; a failed
			// status can come with another one (a session store's conflict after the turn).
			if runErr != nil {
				resultDoc = C.GoBytes(unsafe.Pointer(ran.result), C.int(C.strlen(ran.result)))
			}
			C.robota_string_free(ran.result)
		}
		// Still holding the pointer: the session cannot be released before a pump or pull
		// turn is registered, so its release completes it at the latest.
		t = c.endDrive(d, id)
		return nil
	})
	close(stop)
	if err != nil {
		return Result{}, err
	}
	if id == 0 { // refused before a turn was issued
		if runErr == nil {
			runErr = newError(op, StatusInternal, "robota_session_run issued no turn id")
		}
		return Result{}, runErr
	}
	var r Result
	if t == nil {
		// Thread or inline delivery returns after the turn's TurnCompleted callback: none was
		// routed, so delivery dropped it (the session is closing).
		r = Result{TurnID: id, StopReason: StopAborted}
		if runErr == nil {
			runErr = newError(op, StatusClosed, "turn %d ended without delivering its TurnCompleted (the session closed)", id)
		}
		err = runErr
	} else {
		<-t.done // routed already, or (pump, pull) once the host dispatches it
		t.mu.Lock()
		if lr, ok := resultDocument(resultDoc, id); ok {
			t.result = lr
		}
		r = t.result
		t.mu.Unlock()
		if !r.StopReason.normal() {
			t.adopt(runErr) // the library's status and message, as Turn.Wait asks for them
		}
		t.mu.Lock()
		err = relabel(t.err, op)
		t.mu.Unlock()
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return r, ctxErr
	}
	return r, err
}

// relabel names op as the call an *Error comes from (a copy; other errors as they are).
func relabel(err error, op string) error {
	e, ok := err.(*Error)
	if !ok || e.Op == op {
		return err
	}
	c := *e
	c.Op = op
	return &c
}

// driveState is the Drive whose robota_session_run is in progress. The library names the
// turn only when the call returns, so meanwhile the events of turns no Submit registered —
// the driven turn's (the one Drive per session) — are collected here for the Drive to claim
// by id. Guarded by sessionCore.mu.
type driveState struct {
	turns     drivenTurns // by turn id: completed by their ERROR and TurnCompleted
	started   uint64      // the turn whose TurnStarted was routed
	cancelled bool        // the Drive's context ended: abort its turn once known
}

// drivenTurn is a turn a Drive collects, and whether its TurnCompleted was routed.
type drivenTurn struct {
	state     *turnState
	completed bool
}

// drivenTurns are a Drive's turns by id: the first (usually the only one) in place, any
// others in a map made when the second arrives.
type drivenTurns struct {
	firstID uint64
	first   drivenTurn
	more    map[uint64]*drivenTurn
}

// get is turn id's entry, or nil.
func (s *drivenTurns) get(id uint64) *drivenTurn {
	if id != 0 && id == s.firstID {
		return &s.first
	}
	return s.more[id]
}

// add makes turn id's entry (id has none).
func (s *drivenTurns) add(id uint64, t *turnState) *drivenTurn {
	if s.firstID == 0 {
		s.firstID, s.first = id, drivenTurn{state: t}
		return &s.first
	}
	if s.more == nil {
		s.more = map[uint64]*drivenTurn{}
	}
	e := &drivenTurn{state: t}
	s.more[id] = e
	return e
}

// beginDrive makes a new Drive the session's driving one; nil (no error) when another Drive
// is in robota_session_run.
func (c *sessionCore) beginDrive(op string) (*driveState, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return nil, newError(op, StatusClosed, "session is closed")
	}
	if c.drive != nil {
		return nil, nil
	}
	c.drive = &driveState{}
	return c.drive, nil
}

// endDrive ends Drive d, whose call issued turn id (0: none), and returns the state its
// TurnCompleted completes: the one routed during the call, or with pump and pull delivery,
// where the host routes it later, a registration like Submit's. nil when thread or inline
// delivery routed none. Idempotent.
func (c *sessionCore) endDrive(d *driveState, id uint64) *turnState {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.drive != d {
		return nil
	}
	c.drive = nil
	if id == 0 {
		return nil
	}
	var t *turnState
	if e := d.turns.get(id); e != nil {
		if e.completed {
			return e.state
		}
		t = e.state
	}
	if c.delivery.callsBack() {
		return nil
	}
	if t == nil {
		t = &turnState{id: id, core: c, done: make(chan struct{})}
	}
	c.turns[id] = t
	return t
}

// drivenLocked is the state that collects the ERROR and TurnCompleted of turn id, which no
// Submit registered, while a Drive is in robota_session_run (the turn is that Drive's); nil
// when none is. completing records that its TurnCompleted was routed. c.mu is held.
func (c *sessionCore) drivenLocked(id uint64, completing bool) *turnState {
	d := c.drive
	if d == nil || id == 0 {
		return nil
	}
	e := d.turns.get(id)
	if e == nil {
		e = d.turns.add(id, &turnState{id: id, core: c, done: make(chan struct{})})
	}
	if completing {
		e.completed = true
	}
	return e.state
}

// turnStarted notes the start of a turn no Submit registered while a Drive is in
// robota_session_run (the Drive's turn), and aborts it when the Drive's context has ended.
func (c *sessionCore) turnStarted(id uint64) {
	c.mu.Lock()
	d := c.drive
	_, registered := c.turns[id]
	abort := false
	if d != nil && id != 0 && !registered {
		d.started = id
		abort = d.cancelled
	}
	c.mu.Unlock()
	if abort {
		goTracked(func() { _ = c.abortTurn(id) }) // never call the library from a callback
	}
}

// cancelDrive aborts the turn of Drive d, whose context ended, once it can tell the turn's id:
// the started turn no Submit registered or, before its TurnStarted was routed, the running
// or queued turn of the session state that no Submit registered. Until the library has
// accepted the prompt (the call has just begun) neither exists: it looks again, backing off,
// until one does or the call returned (stop). A turn that starts meanwhile is aborted by
// turnStarted as well.
func (c *sessionCore) cancelDrive(d *driveState, stop <-chan struct{}) {
	c.mu.Lock()
	d.cancelled = true
	c.mu.Unlock()
	var pause time.Duration
	for {
		id, live := c.driveTarget(d)
		if !live {
			return
		}
		if id != 0 {
			_ = c.abortTurn(id)
			return
		}
		pause = 2*pause + 20*time.Microsecond
		if pause > time.Millisecond {
			pause = time.Millisecond
		}
		timer := time.NewTimer(pause)
		select {
		case <-stop:
			timer.Stop()
			return
		case <-timer.C:
		}
	}
}

// driveTarget is the turn of Drive d as far as the binding can tell yet (0: not known), and
// whether d is still in robota_session_run.
func (c *sessionCore) driveTarget(d *driveState) (id uint64, live bool) {
	c.mu.Lock()
	id, live = d.started, c.drive == d
	c.mu.Unlock()
	if !live || id != 0 {
		return id, live
	}
	var st State
	err := c.jsonOut("Drive", &st, func(p *C.robota_session, out **C.char, cerr **C.robota_error) C.robota_status {
		return C.robota_session_state(p, out, cerr)
	})
	if err != nil {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, turn := range []uint64{st.CurrentTurn, st.QueuedTurn} {
		if _, registered := c.turns[turn]; turn != 0 && !registered {
			return turn, c.drive == d
		}
	}
	return d.started, c.drive == d
}

// abortTurn aborts turn id (robota_session_abort); idempotent.
func (c *sessionCore) abortTurn(id uint64) error {
	return c.use("Abort", func(p *C.robota_session) error {
		return statusError("Abort", C.robota_session_abort(p, C.uint64_t(id)))
	})
}
