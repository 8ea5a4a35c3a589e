package robota

// Registrations hand the library a handle as user_data; the library calls the free
// trampoline exactly once after the last callback of that registration, which deletes it.
// The count of live handles lets tests prove that nothing leaks after Close.

// #include <stdint.h>
// #include "robota.h"
// extern void robotaGoFree(void *);
// extern void robotaGoEvent(void *, robota_session *, uint32_t, uint64_t, char *, size_t);
// extern void robotaGoTool(void *, robota_session *, uint64_t, char *, char *, size_t);
// extern void robotaGoLog(void *, int32_t, char *, char *, size_t);
// static void *robota_go_ptr(uintptr_t h) { return (void *)h; }
// static robota_free_fn robota_go_free_fn(void) { return robotaGoFree; }
// static robota_event_fn robota_go_event_fn(void) { return (robota_event_fn)robotaGoEvent; }
// static robota_tool_fn robota_go_tool_fn(void) { return (robota_tool_fn)robotaGoTool; }
// static robota_log_fn robota_go_log_fn(void) { return (robota_log_fn)robotaGoLog; }
import "C"

import (
	"sync"
	"unsafe"
)

// freer is implemented by values that must learn when the library released them.
type freer interface{ released() }

// counter is a count that tests can wait on without sleeping.
type counter struct {
	mu      sync.Mutex
	n       int
	changed chan struct{} // closed and replaced on every change
}

func (c *counter) add(d int) {
	c.mu.Lock()
	c.n += d
	if c.changed != nil { // someone waits (get): wake them; the next get makes a new channel
		close(c.changed)
		c.changed = nil
	}
	c.mu.Unlock()
}

// get is the count and a channel closed at the next change.
func (c *counter) get() (int, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.changed == nil {
		c.changed = make(chan struct{})
	}
	return c.n, c.changed
}

// handles counts the handles the library holds; workers counts the binding's goroutines.
var handles, workers counter

// handle is a registration's user_data: a slot of handleTable (never 0). Unlike a
// cgo.Handle, whose every NewHandle allocates in a sync.Map, a slot is reused once deleted,
// so a session's registration costs no allocation once the table has grown.
type handle uintptr

// handleTable holds the published values by slot (slot h is vals[h-1]) and the free slots.
var handleTable struct {
	sync.RWMutex
	vals []any
	free []handle
}

// newHandle publishes v for one registration and returns the user_data to pass.
func newHandle(v any) (handle, unsafe.Pointer) {
	handleTable.Lock()
	var h handle
	if n := len(handleTable.free); n > 0 {
		h = handleTable.free[n-1]
		handleTable.free = handleTable.free[:n-1]
		handleTable.vals[h-1] = v
	} else {
		handleTable.vals = append(handleTable.vals, v)
		h = handle(len(handleTable.vals))
	}
	handleTable.Unlock()
	handles.add(1)
	return h, C.robota_go_ptr(C.uintptr_t(h))
}

// value is the value h publishes; it panics for a handle that is not published, as
// cgo.Handle does (every callback recovers).
func (h handle) value() any {
	handleTable.RLock()
	defer handleTable.RUnlock()
	if h == 0 || int(h) > len(handleTable.vals) || handleTable.vals[h-1] == nil {
		panic("robota: misuse of an invalid handle")
	}
	return handleTable.vals[h-1]
}

// dropHandle deletes a handle the library never took (the registration failed) or released.
func dropHandle(h handle) {
	handleTable.Lock()
	if h == 0 || int(h) > len(handleTable.vals) || handleTable.vals[h-1] == nil {
		handleTable.Unlock()
		panic("robota: misuse of an invalid handle")
	}
	handleTable.vals[h-1] = nil
	handleTable.free = append(handleTable.free, h)
	handleTable.Unlock()
	handles.add(-1)
}

// goTracked runs f on a counted goroutine.
func goTracked(f func()) {
	workers.add(1)
	go func() {
		defer workers.add(-1)
		f()
	}()
}

// handleValue recovers the value behind user_data.
func handleValue(ud unsafe.Pointer) any {
	return handle(uintptr(ud)).value()
}

// Trampolines: C function pointers to the exported Go callbacks.
var (
	freeFn  = C.robota_go_free_fn()
	eventFn = C.robota_go_event_fn()
	toolFn  = C.robota_go_tool_fn()
	logFn   = C.robota_go_log_fn()
)

// releaseHandle is the free_fn: the library released the registration behind ud.
func releaseHandle(ud unsafe.Pointer) {
	h := handle(uintptr(ud))
	if f, ok := h.value().(freer); ok {
		f.released()
	}
	dropHandle(h)
}
