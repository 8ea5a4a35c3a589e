package robota

// #include <stdint.h>
// #include <stdlib.h>
// #include "robota.h"
// extern void robotaGoHostIO(void *, robota_session *, uint64_t, char *, size_t);
// static robota_host_io_fn robota_go_host_io_fn(void) { return (robota_host_io_fn)robotaGoHostIO; }
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unsafe"
)

// HostIORequest is one request of the host I/O port: the built-in tools of a session created
// with SessionConfig.HostIO read, write, stat, list and execute through the runtime's
// HostIOHandler instead of the operating system. Paths are absolute, normalized and
// permission-checked by the library.
type HostIORequest struct {
	// ID is unique per runtime.
	ID uint64 `json:"-"`
	// Op is "read", "write", "stat", "list" or "exec".
	Op      string `json:"op"`
	Path    string `json:"path,omitempty"`
	Content string `json:"content,omitempty"`
	// Command, Cwd, TimeoutMS and Env describe an "exec".
	Command   string            `json:"command,omitempty"`
	Cwd       string            `json:"cwd,omitempty"`
	TimeoutMS int64             `json:"timeout_ms,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
}

// HostIOHandler answers host I/O requests. It runs on its own goroutine and may block. Answers:
// read → HostIOContent (or {"content"}), write → nil, stat → HostIOStat, list →
// HostIOList, exec → HostIOExec. An error is reported to the model as the tool's failure;
// ErrHostIOUnsupported says the host does not offer the op.
type HostIOHandler func(ctx context.Context, req HostIORequest) (any, error)

// ErrHostIOUnsupported answers an op the host does not offer ({"error":"unsupported"}).
var ErrHostIOUnsupported = errors.New("unsupported")

// HostIOContent answers a "read".
type HostIOContent struct {
	Content string `json:"content"`
}

// HostIOStat answers a "stat".
type HostIOStat struct {
	Exists  bool   `json:"exists"`
	IsDir   bool   `json:"is_dir"`
	Size    uint64 `json:"size"`
	MtimeMS uint64 `json:"mtime_ms,omitempty"`
}

// HostIOEntry is one entry of a HostIOList.
type HostIOEntry struct {
	Name  string `json:"name"`
	IsDir bool   `json:"is_dir"`
}

// HostIOList answers a "list".
type HostIOList struct {
	Entries []HostIOEntry `json:"entries"`
}

// HostIOExec answers an "exec".
type HostIOExec struct {
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
}

// HostIOEvent is a host I/O request that arrived as an event (pull delivery); NextEvent hands
// it to the runtime's HostIOHandler.
type HostIOEvent struct {
	turnRef
	IOID    uint64          `json:"io_id"`
	Request json.RawMessage `json:"request"`
}

// Kind implements Event.
func (HostIOEvent) Kind() EventKind { return KindHostIO }

// hostIOEntry is the registration behind the host I/O callback's handle.
type hostIOEntry struct {
	handler HostIOHandler
	rt      *runtimeCore
}

// released implements freer.
func (h *hostIOEntry) released() {}

// SetHostIO sets the runtime's host I/O handler (sessions with SessionConfig.HostIO need it
// unless they use DeliveryPull with NextEvent, which routes requests to it too).
func (rt *Runtime) SetHostIO(handler HostIOHandler) error {
	const op = "SetHostIO"
	if handler == nil {
		return newError(op, StatusNullArg, "handler is nil")
	}
	core, err := rt.live(op)
	if err != nil {
		return err
	}
	defer core.release()
	entry := &hostIOEntry{handler: handler, rt: core}
	h, ud := newHandle(entry)
	var cerr *C.robota_error
	st := C.robota_runtime_set_host_io(core.ptr, C.robota_go_host_io_fn(), ud, freeFn, &cerr)
	if st != C.ROBOTA_OK {
		dropHandle(h)
		return takeError(op, st, cerr)
	}
	core.mu.Lock()
	core.hostIO = entry
	core.mu.Unlock()
	return nil
}

// CompleteHostIO answers host I/O request id with a JSON document (for hosts that answer
// HostIOEvents themselves). ErrStale when the request was withdrawn (turn aborted).
func (rt *Runtime) CompleteHostIO(id uint64, answer any) error {
	core, err := rt.live("CompleteHostIO")
	if err != nil {
		return err
	}
	defer core.release()
	b, err := json.Marshal(answer)
	if err != nil {
		return newError("CompleteHostIO", encodeStatus(err), "cannot encode the answer: %v", err)
	}
	return core.completeHostIO(id, string(b))
}

func (c *runtimeCore) completeHostIO(id uint64, doc string) error {
	cdoc := C.CString(doc)
	defer C.free(unsafe.Pointer(cdoc))
	var cerr *C.robota_error
	st := C.robota_host_io_complete(c.ptr, C.uint64_t(id), cdoc, &cerr)
	return takeError("CompleteHostIO", st, cerr)
}

// hostIOEvent answers a request that arrived as an event with the runtime's handler.
func (c *sessionCore) hostIOEvent(e HostIOEvent) {
	c.rt.mu.Lock()
	h := c.rt.hostIO
	c.rt.mu.Unlock()
	if h != nil {
		h.start(c, e.IOID, e.Request)
	}
}

// start runs the handler on a new goroutine and answers request id. Must not block.
func (h *hostIOEntry) start(s *sessionCore, id uint64, req []byte) {
	if !h.rt.acquire() {
		return
	}
	ctx, done := context.WithCancel(context.Background())
	if s != nil {
		ctx, done = s.requestCtx(requestHostIO, id)
	}
	goTracked(func() {
		defer h.rt.release()
		defer done()
		// ErrStale after an abort is expected: the turn no longer waits for it.
		_ = h.rt.completeHostIO(id, h.invoke(ctx, id, req))
	})
}

// invoke calls the handler and encodes its answer (errors and panics as {"error"}).
func (h *hostIOEntry) invoke(ctx context.Context, id uint64, raw []byte) (out string) {
	fail := func(msg string) string {
		b, _ := json.Marshal(map[string]string{"error": msg})
		return string(b)
	}
	defer func() {
		if r := recover(); r != nil {
			out = fail(fmt.Sprintf("host I/O handler panicked: %v", r))
		}
	}()
	var req HostIORequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return fail("unreadable request: " + err.Error())
	}
	req.ID = id
	v, err := h.handler(ctx, req)
	if errors.Is(err, ErrHostIOUnsupported) {
		return fail("unsupported")
	}
	if err != nil {
		return fail(err.Error())
	}
	if v == nil {
		return "{}"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fail("cannot encode the answer: " + err.Error())
	}
	return string(b)
}
