package robota

// #include <stdlib.h>
// #include "robota.h"
//
// // robota_go_completed is robota_tool_call_complete's status and error as one value, so that
// // no Go variable's address goes to C (it would move to the heap on every call).
// typedef struct { robota_status status; robota_error *error; } robota_go_completed;
// static robota_go_completed robota_go_tool_call_complete(robota_runtime *rt, uint64_t id, const char *result, int32_t is_error) {
// 	robota_go_completed r = { ROBOTA_OK, NULL };
// 	r.status = robota_tool_call_complete(rt, id, result, is_error, &r.error);
// 	return r;
// }
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// HeaderABIVersion is the ABI version of the header this binding was built against,
// (major << 16) | minor.
const HeaderABIVersion = uint32(C.ROBOTA_ABI_VERSION)

// ABIVersion is the ABI version of the loaded library.
func ABIVersion() uint32 { return uint32(C.robota_abi_version()) }

// Version is the library version, e.g. "0.1.0".
func Version() string { return C.GoString(C.robota_version()) }

var abiCheck struct {
	once sync.Once
	err  error
}

// CheckABI fails when the loaded library has another major ABI version or a lower minor one
// than the header the binding was built with. NewRuntime calls it.
func CheckABI() error {
	abiCheck.once.Do(func() {
		lib, want := ABIVersion(), HeaderABIVersion
		if lib>>16 != want>>16 || lib&0xffff < want&0xffff {
			abiCheck.err = newError("CheckABI", StatusVersionMismatch,
				"library ABI %d.%d is incompatible with the binding's %d.%d (same major, minor at least)",
				lib>>16, lib&0xffff, want>>16, want&0xffff)
		}
	})
	return abiCheck.err
}

// Runtime owns providers, the HTTP pool, worker threads and host tools; sessions share it.
// It is safe for concurrent use. Close it when done (a finalizer is only a safety net).
type Runtime struct {
	core   *runtimeCore
	once   sync.Once
	closed atomic.Bool
}

// runtimeCore is what sessions and tool goroutines reference; the C runtime is freed when the
// Runtime is closed and the last of them let go (answers need a live runtime handle).
type runtimeCore struct {
	ptr  *C.robota_runtime
	refs atomic.Int64

	mu     sync.Mutex
	tools  map[string]*toolEntry
	hostIO *hostIOEntry
}

// NewRuntime creates a runtime from its config.
func NewRuntime(cfg RuntimeConfig) (*Runtime, error) {
	if err := CheckABI(); err != nil {
		return nil, err
	}
	doc, err := cfg.json()
	if err != nil {
		return nil, newError("NewRuntime", encodeStatus(err), "cannot encode the config: %v", err)
	}
	cdoc := C.CString(doc)
	defer C.free(unsafe.Pointer(cdoc))
	var ptr *C.robota_runtime
	var cerr *C.robota_error
	if st := C.robota_runtime_new(cdoc, &ptr, &cerr); st != C.ROBOTA_OK {
		return nil, takeError("NewRuntime", st, cerr)
	}
	core := &runtimeCore{ptr: ptr, tools: map[string]*toolEntry{}}
	core.refs.Store(1)
	rt := &Runtime{core: core}
	runtime.SetFinalizer(rt, (*Runtime).Close)
	return rt, nil
}

// Close releases the runtime. Sessions keep it alive until they are closed, so the order of
// Close calls does not matter. Closing twice is a no-op.
func (rt *Runtime) Close() error {
	rt.once.Do(func() {
		rt.closed.Store(true)
		runtime.SetFinalizer(rt, nil)
		rt.core.release()
	})
	return nil
}

// acquire keeps the C runtime alive; false when it is already gone.
func (c *runtimeCore) acquire() bool {
	for {
		n := c.refs.Load()
		if n <= 0 {
			return false
		}
		if c.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// release drops one reference and frees the C runtime with the last.
func (c *runtimeCore) release() {
	if c.refs.Add(-1) == 0 {
		C.robota_runtime_free(c.ptr)
	}
}

// live returns the core for a new session, or ErrClosed.
func (rt *Runtime) live(op string) (*runtimeCore, error) {
	if rt == nil {
		return nil, newError(op, StatusNullArg, "runtime is nil")
	}
	if rt.closed.Load() || !rt.core.acquire() {
		return nil, newError(op, StatusClosed, "runtime is closed")
	}
	return rt.core, nil
}

// completeCall answers a host tool call.
func (c *runtimeCore) completeCall(callID uint64, result string, isError bool) error {
	cres := C.CString(result)
	flag := C.int32_t(0)
	if isError {
		flag = 1
	}
	r := C.robota_go_tool_call_complete(c.ptr, C.uint64_t(callID), cres, flag)
	C.free(unsafe.Pointer(cres))
	return takeError("CompleteToolCall", r.status, r.error)
}

// respond answers a permission or hook request.
func (c *runtimeCore) respond(requestID uint64, doc string) error {
	cdoc := C.CString(doc)
	defer C.free(unsafe.Pointer(cdoc))
	var cerr *C.robota_error
	st := C.robota_request_respond(c.ptr, C.uint64_t(requestID), cdoc, &cerr)
	return takeError("Respond", st, cerr)
}

func (c *runtimeCore) String() string { return fmt.Sprintf("robota.Runtime(%p)", c.ptr) }
