package robota

// #include <stdlib.h>
// #include "robota.h"
import "C"

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"unsafe"
)

// ToolDef describes a host tool to the model.
type ToolDef struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// InputSchema is a JSON Schema (a map, a struct or json.RawMessage); nil means an object
	// with any properties.
	InputSchema any `json:"input_schema"`
	// ReadOnly tools run without a permission prompt.
	ReadOnly bool `json:"read_only,omitempty"`
	// TimeoutMS fails the call when the handler has not answered in time.
	TimeoutMS int `json:"timeout_ms,omitempty"`
	// Inline runs the handler on the library thread that delivers the call, as a C host's
	// tool callback runs, instead of on a goroutine of its own: for handlers that return at
	// once and never block (arithmetic, a lookup in memory), which then cost no goroutine
	// and no thread hand-off. Its ctx is the session's (cancelled when the session closes);
	// the call cannot be withdrawn while it runs.
	Inline bool `json:"-"`
}

// ToolCall is one call of a host tool.
type ToolCall struct {
	// ID is unique per runtime.
	ID uint64
	// Name of the tool.
	Name string
	// Arguments as the model wrote them (a JSON object).
	Arguments json.RawMessage
}

// Decode unmarshals the arguments into v.
func (c ToolCall) Decode(v any) error { return json.Unmarshal(c.Arguments, v) }

// ToolHandler runs a host tool. It runs on its own goroutine (unless ToolDef.Inline), so it
// may block (network, disk, waiting for another goroutine); its ctx is cancelled when the call is withdrawn
// (turn aborted, context cancelled, session closed). The returned value is JSON-encoded for
// the model (a string stays a string; json.RawMessage passes as is); an error, or a panic,
// is reported to the model as the tool's failure.
type ToolHandler func(ctx context.Context, call ToolCall) (any, error)

// toolEntry is the registration behind a tool's handle.
type toolEntry struct {
	name    string
	handler ToolHandler
	inline  bool // ToolDef.Inline
	rt      *runtimeCore
}

// released implements freer: the runtime is gone.
func (t *toolEntry) released() {}

// RegisterTool adds a host tool for sessions created afterwards.
func (rt *Runtime) RegisterTool(def ToolDef, handler ToolHandler) error {
	const op = "RegisterTool"
	if handler == nil {
		return newError(op, StatusNullArg, "tool %q: handler is nil", def.Name)
	}
	core, err := rt.live(op)
	if err != nil {
		return err
	}
	defer core.release()
	if def.InputSchema == nil {
		def.InputSchema = map[string]any{"type": "object"}
	}
	doc, err := json.Marshal(def)
	if err != nil {
		return newError(op, encodeStatus(err), "tool %q: cannot encode the definition: %v", def.Name, err)
	}
	entry := &toolEntry{name: def.Name, handler: handler, inline: def.Inline, rt: core}
	h, ud := newHandle(entry)
	cdoc := C.CString(string(doc))
	defer C.free(unsafe.Pointer(cdoc))
	var cerr *C.robota_error
	st := C.robota_runtime_register_tool(core.ptr, cdoc, toolFn, ud, freeFn, &cerr)
	if st != C.ROBOTA_OK {
		dropHandle(h)
		return takeError(op, st, cerr)
	}
	core.mu.Lock()
	core.tools[def.Name] = entry
	core.mu.Unlock()
	return nil
}

// tool is the registration of a tool name (pull delivery routes tool_call events by name).
func (c *runtimeCore) tool(name string) *toolEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tools[name]
}

// start runs the handler of call callID on a new goroutine (inline: on this thread) and
// answers the call with its outcome. Called on a library thread: it must not block.
func (t *toolEntry) start(s *sessionCore, callID uint64, args []byte) {
	if !t.rt.acquire() {
		return // the runtime is gone: nobody could receive the answer
	}
	if t.inline {
		defer t.rt.release()
		ctx := context.Background()
		if s != nil {
			ctx = s.ctx
		}
		out, isErr := t.invoke(ctx, ToolCall{ID: callID, Name: t.name, Arguments: args})
		_ = t.rt.completeCall(callID, out, isErr)
		return
	}
	ctx, done := context.WithCancel(context.Background())
	if s != nil {
		ctx, done = s.requestCtx(requestToolCall, callID)
	}
	call := ToolCall{ID: callID, Name: t.name, Arguments: args}
	goTracked(func() {
		defer t.rt.release()
		defer done()
		out, isErr := t.invoke(ctx, call)
		// ErrStale after a cancellation is expected: the turn no longer waits for it.
		_ = t.rt.completeCall(callID, out, isErr)
	})
}

// invoke calls the handler, turning an error or a panic into the tool's failure.
func (t *toolEntry) invoke(ctx context.Context, call ToolCall) (out string, isErr bool) {
	defer func() {
		if r := recover(); r != nil {
			out, isErr = jsonText(fmt.Sprintf("tool %q panicked: %v", t.name, r)), true
		}
	}()
	v, err := t.handler(ctx, call)
	if err != nil {
		return jsonText(err.Error()), true
	}
	out, err = resultJSON(v)
	if err != nil {
		return jsonText(fmt.Sprintf("tool %q returned a value that cannot be encoded as JSON: %v", t.name, err)), true
	}
	return out, false
}

// resultJSON is v encoded as encoding/json encodes it; integers and bools, the commonest
// answers, without its encoder.
func resultJSON(v any) (string, error) {
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case uint64:
		return strconv.FormatUint(x, 10), nil
	case bool:
		return strconv.FormatBool(x), nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// jsonText encodes s as a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
