package robota

// #include <stdlib.h>
// #include "robota.h"
import "C"

import (
	"context"
	"encoding/json"
	"runtime"
	"sync"
	"unsafe"
)

// Session is one conversation. All methods are safe for concurrent use. Close it when done;
// a finalizer releases a forgotten session, but only Close delivers the last events.
type Session struct {
	core *sessionCore
}

// sessionCore is what the library's callbacks reach through the session's handle. The
// public *Session is not reachable from it, so a forgotten Session can be finalized.
type sessionCore struct {
	rt       *runtimeCore
	delivery Delivery
	handlers
	ctx    context.Context // ends at close: handler contexts derive from it
	cancel context.CancelFunc

	// ptrMu guards ptr: C calls hold it for reading, freeing takes it for writing, so no call
	// ever reaches a freed (or reused) address.
	ptrMu sync.RWMutex
	ptr   *C.robota_session

	mu          sync.Mutex
	turns       map[uint64]*turnState
	drive       *driveState                       // the Drive whose robota_session_run is in progress (drive.go)
	pending     map[requestKey]context.CancelFunc // the contexts of running request handlers
	queues      map[uint64]*turnQueue             // by turn id: the streamed turns not completed yet
	stream      *eventStream
	arena       payloadArena // the copies of event payloads (callbacks.go)
	closing     bool
	gone        bool // the library released the session
	closeOnce   sync.Once
	closedSeen  chan struct{} // closed when session_closed was routed
	seenOnce    sync.Once
	freed       chan struct{} // closed when the library released the registration
	releaseOnce sync.Once
}

// sessions maps live C session pointers to their cores (tool callbacks receive the pointer).
var sessions = struct {
	sync.Mutex
	m map[uintptr]*sessionCore
}{m: map[uintptr]*sessionCore{}}

func sessionOf(p *C.robota_session) *sessionCore {
	sessions.Lock()
	defer sessions.Unlock()
	return sessions.m[uintptr(unsafe.Pointer(p))]
}

// handlers are a session's request handlers (nil: the host answers from Events()).
type handlers struct {
	onPermission PermissionHandler
	onHook       HookHandler
	onCommand    CommandHandler
	onEvent      EventHandler
}

func newSessionCore(rt *runtimeCore, delivery Delivery, h handlers) *sessionCore {
	delivery = deliveryOr(delivery)
	ctx, cancel := context.WithCancel(context.Background())
	return &sessionCore{
		rt: rt, delivery: delivery, handlers: h,
		ctx: ctx, cancel: cancel,
		turns:      map[uint64]*turnState{}, // pending and queues are made at their first entry
		closedSeen: make(chan struct{}), freed: make(chan struct{}),
	}
}

// open creates the C session with make (session_new, resume or fork) and publishes it.
// core holds a runtime reference, released when the session is closed.
func open(op string, core *sessionCore, make func(ud unsafe.Pointer, out **C.robota_session, cerr **C.robota_error) C.robota_status) (*Session, error) {
	h, ud := newHandle(core)
	var ptr *C.robota_session
	var cerr *C.robota_error
	if st := make(ud, &ptr, &cerr); st != C.ROBOTA_OK {
		dropHandle(h)
		core.cancel()
		core.rt.release()
		return nil, takeError(op, st, cerr)
	}
	core.ptr = ptr
	sessions.Lock()
	sessions.m[uintptr(unsafe.Pointer(ptr))] = core
	sessions.Unlock()
	s := &Session{core: core}
	runtime.SetFinalizer(s, func(s *Session) { s.core.shutdown(false) })
	return s, nil
}

// NewSession creates a session.
func (rt *Runtime) NewSession(cfg SessionConfig) (*Session, error) {
	doc, err := cfg.json()
	return rt.openDoc("NewSession", doc, err, cfg.Delivery, handlers{cfg.OnPermission, cfg.OnHook, cfg.OnCommand, cfg.OnEvent},
		func(rp *C.robota_runtime, d *C.char, ud unsafe.Pointer, out **C.robota_session, cerr **C.robota_error) C.robota_status {
			return C.robota_session_new(rp, d, eventFn, ud, freeFn, out, cerr)
		})
}

// Resume opens a saved session (same session id) from cfg.Snapshot or cfg.SessionID.
func (rt *Runtime) Resume(cfg ResumeConfig) (*Session, error) {
	base := map[string]any{}
	if len(cfg.Snapshot) > 0 {
		base["snapshot"] = json.RawMessage(cfg.Snapshot)
	}
	if cfg.SessionID != "" {
		base["session_id"] = cfg.SessionID
	}
	doc, err := cfg.Overrides.json(base, cfg.Delivery)
	return rt.openDoc("Resume", doc, err, cfg.Delivery, handlers{cfg.OnPermission, cfg.OnHook, cfg.OnCommand, cfg.OnEvent},
		func(rp *C.robota_runtime, d *C.char, ud unsafe.Pointer, out **C.robota_session, cerr **C.robota_error) C.robota_status {
			return C.robota_session_resume(rp, d, eventFn, ud, freeFn, out, cerr)
		})
}

// openDoc opens a session of this runtime from a JSON document (docErr: it did not encode).
func (rt *Runtime) openDoc(op, doc string, docErr error, d Delivery, h handlers,
	call func(rp *C.robota_runtime, doc *C.char, ud unsafe.Pointer, out **C.robota_session, cerr **C.robota_error) C.robota_status) (*Session, error) {
	if docErr != nil {
		return nil, newError(op, encodeStatus(docErr), "cannot encode the session document: %v", docErr)
	}
	rc, err := rt.live(op)
	if err != nil {
		return nil, err
	}
	core := newSessionCore(rc, d, h)
	cdoc := C.CString(doc)
	defer C.free(unsafe.Pointer(cdoc))
	return open(op, core, func(ud unsafe.Pointer, out **C.robota_session, cerr **C.robota_error) C.robota_status {
		return call(rc.ptr, cdoc, ud, out, cerr)
	})
}

// Fork creates an independent copy (history, mode, approvals) with a new session id; safe
// while a turn runs (the copy holds the committed history). Handlers are inherited unless o
// sets them.
func (s *Session) Fork(o Overrides) (*Session, error) {
	const op = "Fork"
	c := s.core
	if !c.rt.acquire() {
		return nil, newError(op, StatusClosed, "runtime is closed")
	}
	h, delivery := handlers{o.OnPermission, o.OnHook, o.OnCommand, o.OnEvent}, o.Delivery
	if h.onPermission == nil {
		h.onPermission = c.onPermission
	}
	if h.onHook == nil {
		h.onHook = c.onHook
	}
	if h.onCommand == nil {
		h.onCommand = c.onCommand
	}
	if h.onEvent == nil {
		h.onEvent = c.onEvent
	}
	if delivery == "" {
		delivery = c.delivery
	}
	doc, err := o.json(nil, delivery)
	if err != nil {
		c.rt.release()
		return nil, newError(op, encodeStatus(err), "cannot encode the overrides: %v", err)
	}
	core := newSessionCore(c.rt, delivery, h)
	cdoc := C.CString(doc)
	defer C.free(unsafe.Pointer(cdoc))
	var result *Session
	ran := false
	err = c.use(op, func(p *C.robota_session) error {
		ran = true
		var oerr error
		result, oerr = open(op, core, func(ud unsafe.Pointer, out **C.robota_session, cerr **C.robota_error) C.robota_status {
			return C.robota_session_fork(p, cdoc, eventFn, ud, freeFn, out, cerr)
		})
		return oerr
	})
	if !ran {
		core.cancel()
		core.rt.release() // open never ran, so it did not release the reference
	}
	return result, err
}

// use runs f with the live C pointer, or fails with ErrClosed.
func (c *sessionCore) use(op string, f func(p *C.robota_session) error) error {
	c.ptrMu.RLock()
	defer c.ptrMu.RUnlock()
	if c.ptr == nil {
		return newError(op, StatusClosed, "session is closed")
	}
	return f(c.ptr)
}

// jsonOut runs a C call writing one owned JSON string and decodes it into v.
func (c *sessionCore) jsonOut(op string, v any, call func(p *C.robota_session, out **C.char, cerr **C.robota_error) C.robota_status) error {
	return c.use(op, func(p *C.robota_session) error {
		var out *C.char
		var cerr *C.robota_error
		if st := call(p, &out, &cerr); st != C.ROBOTA_OK {
			return takeError(op, st, cerr)
		}
		text := C.GoString(out)
		C.robota_string_free(out)
		if err := json.Unmarshal([]byte(text), v); err != nil {
			return newError(op, StatusInternal, "the library answered JSON this binding cannot read: %v", err)
		}
		return nil
	})
}

// Close closes the session: aborts a running turn, drops a queued prompt, delivers the last
// events (ending with SessionClosed; Events() is then closed), cancels the contexts of
// running handlers and releases everything. It returns once the library has let go of the
// session. Closing twice is a no-op.
func (s *Session) Close() error {
	runtime.SetFinalizer(s, nil)
	s.core.shutdown(true)
	return nil
}

// shutdown closes (graceful: wait for the last events and the release) or, from a finalizer,
// only frees.
func (c *sessionCore) shutdown(graceful bool) {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closing = true
		c.mu.Unlock()
		ok := false
		_ = c.use("Close", func(p *C.robota_session) error {
			ok = C.robota_session_close(p) == C.ROBOTA_OK
			return nil
		})
		if graceful && ok && c.delivery.callsBack() {
			<-c.closedSeen // close always ends with session_closed; routing never blocks
		}
		c.ptrMu.Lock()
		p := c.ptr
		c.ptr = nil
		C.robota_session_free(p)
		c.ptrMu.Unlock()
		sessions.Lock()
		if sessions.m[uintptr(unsafe.Pointer(p))] == c {
			delete(sessions.m, uintptr(unsafe.Pointer(p)))
		}
		sessions.Unlock()
		if graceful {
			<-c.freed // free_fn follows the last callback, which never blocks
		} else {
			c.abandon()
		}
		c.rt.release()
	})
}

// released implements freer: the library delivered its last callback.
func (c *sessionCore) released() {
	c.releaseOnce.Do(func() {
		c.cancel()
		c.mu.Lock()
		c.gone = true
		turns := c.turns
		c.turns = map[uint64]*turnState{}
		stream := c.stream
		c.mu.Unlock()
		for _, t := range turns {
			t.finish(Result{TurnID: t.id, StopReason: StopAborted}, newError("Wait", StatusClosed, "session closed before turn %d completed", t.id))
		}
		c.endQueues()
		if stream != nil {
			stream.close()
		}
		close(c.freed)
	})
}

// abandon stops event forwarding nobody can read any more (finalizer path).
func (c *sessionCore) abandon() {
	c.mu.Lock()
	stream := c.stream
	c.mu.Unlock()
	if stream != nil {
		stream.abandon()
	}
}
