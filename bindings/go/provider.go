package robota

// #include <stdint.h>
// #include <stdlib.h>
// #include "robota.h"
// extern void robotaGoProvider(void *, uint64_t, char *, size_t);
// static robota_provider_fn robota_go_provider_fn(void) { return (robota_provider_fn)robotaGoProvider; }
import "C"

import (
	"context"
	"encoding/json"
	"sync"
	"unsafe"
)

// Provider is a model the host implements: on-device inference, its own HTTP client or a
// gateway. Sessions, agents, compaction and Runtime.Query use it by the name it was registered
// under (Runtime.RegisterProvider), like a profile of RuntimeConfig.Providers.
//
// Stream is called on its own goroutine for each model call. It returns a channel of the
// call's events and closes it when the call is over; the binding pushes each event to the
// library, then DoneEvent("") unless the channel carried a DoneEvent or an error event. An
// error returned by Stream fails the call (the channel is then ignored): its class when it is a
// *ProviderError, else ClassProvider. A panic in Stream fails the call without a retry. ctx is cancelled when the library cancels the call (the turn was
// aborted, the session closed, the call timed out: CancelReason says which) or the call ended;
// the binding reads the channel until it is closed, so a sender never blocks.
type Provider interface {
	Stream(ctx context.Context, req *ModelRequest) (<-chan ModelEvent, error)
}

// ProviderFunc adapts a function to Provider.
type ProviderFunc func(ctx context.Context, req *ModelRequest) (<-chan ModelEvent, error)

// Stream implements Provider.
func (f ProviderFunc) Stream(ctx context.Context, req *ModelRequest) (<-chan ModelEvent, error) {
	return f(ctx, req)
}

// ProviderCapabilities tell the library what a host provider can do.
type ProviderCapabilities struct {
	// Models are the model ids it serves (nil = any).
	Models []string `json:"models,omitempty"`
	// ContextWindow and MaxOutputTokens in tokens (0 = the library's defaults).
	ContextWindow   int `json:"context_window,omitempty"`
	MaxOutputTokens int `json:"max_output_tokens,omitempty"`
	// Vision: it reads image parts; Thinking: it streams thinking.
	Vision   bool `json:"vision,omitempty"`
	Thinking bool `json:"thinking,omitempty"`
	// MaxRetries of a call failed with a retried class (nil = 2).
	MaxRetries *int `json:"max_retries,omitempty"`
	// TimeoutMS fails a call that sends no event for that long (0 = 300000).
	TimeoutMS int `json:"timeout_ms,omitempty"`
	// Extra holds keys this struct does not name.
	Extra map[string]any `json:"-"`
}

// cancelReasonKey is the context key of a call's cancellation reason.
type cancelReasonKey struct{}

// cancelReason is set once, before the call's context is cancelled.
type cancelReason struct {
	once   sync.Once
	reason string
}

// CancelReason is why the library cancelled the model call of ctx (a Provider's ctx):
// "aborted", "session_closed", "timeout", or "" while it is not cancelled or when it ended.
func CancelReason(ctx context.Context) string {
	if r, ok := ctx.Value(cancelReasonKey{}).(*cancelReason); ok && ctx.Err() != nil {
		return r.reason
	}
	return ""
}

// providerEntry is the registration behind a provider's handle.
type providerEntry struct {
	name     string
	provider Provider
	rt       *runtimeCore

	mu    sync.Mutex
	calls map[uint64]*providerCall // calls whose channel is still read
	gone  bool                     // the runtime released the registration
}

// providerCall is one model call in progress.
type providerCall struct {
	id     uint64
	ctx    context.Context
	cancel context.CancelFunc
	reason *cancelReason
}

// RegisterProvider makes p a provider named name: sessions select it with
// SessionConfig.Provider = name. A name already used by a profile of the runtime config or an
// earlier registration is ErrInvalidConfig.
func (rt *Runtime) RegisterProvider(name string, caps ProviderCapabilities, p Provider) error {
	const op = "RegisterProvider"
	if p == nil {
		return newError(op, StatusNullArg, "provider %q is nil", name)
	}
	core, err := rt.live(op)
	if err != nil {
		return err
	}
	defer core.release()
	capsDoc, err := merged(caps, caps.Extra)
	if err != nil {
		return newError(op, encodeStatus(err), "provider %q: cannot encode the capabilities: %v", name, err)
	}
	b, err := json.Marshal(capsDoc)
	if err != nil {
		return newError(op, encodeStatus(err), "provider %q: cannot encode the capabilities: %v", name, err)
	}
	entry := &providerEntry{name: name, provider: p, rt: core, calls: map[uint64]*providerCall{}}
	h, ud := newHandle(entry)
	cname, ccaps := C.CString(name), C.CString(string(b))
	defer C.free(unsafe.Pointer(cname))
	defer C.free(unsafe.Pointer(ccaps))
	var cerr *C.robota_error
	st := C.robota_runtime_register_provider(core.ptr, cname, ccaps, C.robota_go_provider_fn(), ud, freeFn, &cerr)
	if st != C.ROBOTA_OK {
		dropHandle(h)
		return takeError(op, st, cerr)
	}
	return nil
}

// released implements freer: the runtime is gone, so are its calls.
func (e *providerEntry) released() {
	e.mu.Lock()
	e.gone = true
	calls := e.calls
	e.calls = map[uint64]*providerCall{}
	e.mu.Unlock()
	for _, c := range calls {
		c.cancel()
	}
}

// start begins call id on a new goroutine. Called on a library thread: it must not block.
func (e *providerEntry) start(id uint64, doc []byte) {
	ctx, cancel := context.WithCancel(context.Background())
	reason := &cancelReason{}
	call := &providerCall{id: id, ctx: context.WithValue(ctx, cancelReasonKey{}, reason), cancel: cancel, reason: reason}
	e.mu.Lock()
	if e.gone {
		e.mu.Unlock()
		cancel()
		return
	}
	e.calls[id] = call // before returning: the call's cancellation finds it
	e.mu.Unlock()
	goTracked(func() {
		defer e.finish(call)
		e.run(call, doc)
	})
}

// cancelCall cancels the context of call id (the library's cancel document).
func (e *providerEntry) cancelCall(id uint64, reason string) {
	e.mu.Lock()
	call := e.calls[id]
	e.mu.Unlock()
	if call == nil {
		return
	}
	call.reason.once.Do(func() { call.reason.reason = reason })
	call.cancel()
}

// finish forgets the call and releases its context.
func (e *providerEntry) finish(call *providerCall) {
	e.mu.Lock()
	delete(e.calls, call.id)
	e.mu.Unlock()
	call.reason.once.Do(func() {}) // a cancellation from now on has no reason to tell
	call.cancel()
}

// run streams the call: the events of the channel, then the end the channel did not send.
func (e *providerEntry) run(call *providerCall, doc []byte) {
	events, end := e.open(call, doc)
	if end != nil {
		e.push(call, end)
		return
	}
	ended := false
	for ev := range events {
		if ended {
			continue // after the end: drain, so the sender never blocks
		}
		ended = e.pushEvent(call, ev)
		if ended {
			call.reason.once.Do(func() {})
			call.cancel() // tell the producer the call is over
		}
	}
	if !ended {
		e.push(call, DoneEvent(""))
	}
}

// open decodes the request and calls Stream; end is the error document when there is no stream.
func (e *providerEntry) open(call *providerCall, doc []byte) (events <-chan ModelEvent, end any) {
	defer func() {
		if r := recover(); r != nil {
			events, end = nil, fatalDoc("Stream panicked: %v", r)
		}
	}()
	req, err := decodeModelRequest(call.id, doc)
	if err != nil {
		return nil, fatalDoc("cannot read the request document: %v", err)
	}
	events, err = e.provider.Stream(call.ctx, req)
	if err != nil {
		return nil, errorDoc(err)
	}
	if events == nil {
		return nil, fatalDoc("Stream returned neither a channel nor an error")
	}
	return events, nil
}

// pushEvent pushes one event of the channel; true when the call is over (the event was its end,
// or the library refused it: the call was cancelled or the event ended it as invalid).
func (e *providerEntry) pushEvent(call *providerCall, ev ModelEvent) bool {
	b, err := ev.MarshalJSON()
	if err != nil {
		e.push(call, fatalDoc("%v", err))
		return true
	}
	if err := e.pushDoc(call, b); err != nil {
		if !endedBy(err) { // the call may still be open: end it, never leave the turn waiting
			e.push(call, fatalDoc("the library refused an event: %v", err))
		}
		return true
	}
	return ev.ends()
}

// endedBy reports whether a refused push means the call is over: it was cancelled or ended
// (ErrStale, ErrNotFound, ErrClosed), or the library ended it for an invalid event
// (ErrInvalidConfig, ErrInvalidJSON).
func endedBy(err error) bool {
	e, ok := err.(*Error)
	if !ok {
		return false
	}
	switch e.Status {
	case StatusStale, StatusNotFound, StatusClosed, StatusInvalidConfig, StatusInvalidJSON:
		return true
	}
	return false
}

// push sends one event document for the call (errors: the call is over, nothing to report).
func (e *providerEntry) push(call *providerCall, ev any) {
	if b, err := json.Marshal(ev); err == nil {
		_ = e.pushDoc(call, b)
	}
}

// pushDoc sends one encoded event for the call; the error is the library's refusal.
func (e *providerEntry) pushDoc(call *providerCall, doc []byte) error {
	if !e.rt.acquire() {
		return newError("ProviderPush", StatusClosed, "runtime is closed")
	}
	defer e.rt.release()
	cdoc := C.CString(string(doc))
	defer C.free(unsafe.Pointer(cdoc))
	var cerr *C.robota_error
	st := C.robota_provider_push(e.rt.ptr, C.uint64_t(call.id), cdoc, &cerr)
	return takeError("ProviderPush", st, cerr)
}
