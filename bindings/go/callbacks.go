package robota

// The C callbacks. They run on library threads (a dispatcher thread in thread mode, the async
// worker that produced the events in inline mode, inside Dispatch in pump mode) and never
// block: they copy the payload, show it to the session's OnEvent (the only user code they
// run), route it (turn results, cancellations, handler goroutines) and queue it for Events().
// A Go panic must not unwind into Rust frames, so each one recovers.

// #include <stdint.h>
// #include <stddef.h>
// #include "robota.h"
import "C"

import (
	"sync/atomic"
	"unsafe"
)

// callbackHook, when set (by tests), sees every event and tool callback (KindToolCall) of a
// session, on the thread the library called back on.
var callbackHook atomic.Pointer[func(c *sessionCore, kind EventKind)]

//export robotaGoFree
func robotaGoFree(ud unsafe.Pointer) {
	defer func() { _ = recover() }()
	releaseHandle(ud)
}

//export robotaGoEvent
func robotaGoEvent(ud unsafe.Pointer, s *C.robota_session, kind C.uint32_t, turn C.uint64_t, p *C.char, n C.size_t) {
	defer func() { _ = recover() }()
	core, ok := handleValue(ud).(*sessionCore)
	if !ok {
		return
	}
	if h := callbackHook.Load(); h != nil {
		(*h)(core, EventKind(kind))
	}
	if core.onEvent == nil && !routed(EventKind(kind)) && !core.listened(uint64(turn)) {
		return // nothing acts on it and nobody reads it: not worth decoding
	}
	core.route(core.eventFromC(EventKind(kind), uint64(turn), unsafe.Pointer(p), int(n)))
}

// routed reports whether route acts on events of kind (turns, handlers, cancellations);
// the others only feed Events() and turn streams.
func routed(kind EventKind) bool {
	switch kind {
	case KindTextDelta, KindThinkingDelta, KindMessage, KindToolStart, KindToolEnd, KindContextUpdate,
		KindCompacted, KindExecution, KindWarning, KindSubagent, KindServerTool:
		return false
	}
	return true
}

// listened reports whether Events() or the stream of turn reads the session's events.
func (c *sessionCore) listened(turn uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stream != nil || c.queues[turn] != nil
}

//export robotaGoTool
func robotaGoTool(ud unsafe.Pointer, s *C.robota_session, callID C.uint64_t, name *C.char, input *C.char, n C.size_t) {
	defer func() { _ = recover() }()
	t, ok := handleValue(ud).(*toolEntry)
	if !ok {
		return
	}
	core := sessionOf(s)
	if h := callbackHook.Load(); h != nil {
		(*h)(core, KindToolCall)
	}
	var args []byte
	if core != nil {
		args = core.arena.copy(unsafe.Pointer(input), int(n)) // bytes of its own: no other value shares them
	} else {
		args = C.GoBytes(unsafe.Pointer(input), C.int(n))
	}
	t.start(core, uint64(callID), args)
}

//export robotaGoLog
func robotaGoLog(ud unsafe.Pointer, level C.int32_t, target *C.char, msg *C.char, n C.size_t) {
	defer func() { _ = recover() }()
	if l, ok := handleValue(ud).(*logger); ok {
		l.fn(LogLevel(level), C.GoString(target), C.GoStringN(msg, C.int(n)))
	}
}

// eventFromC decodes a callback payload: deltas are raw text, the rest JSON. The payload is
// copied into the session's arena, which no decoded value can change.
func (c *sessionCore) eventFromC(kind EventKind, turn uint64, p unsafe.Pointer, n int) Event {
	data := c.arena.copy(p, n)
	switch kind {
	case KindTextDelta:
		return c.arena.deltaEvent(TextDelta{turnRef{turn}, bytesString(data)})
	case KindThinkingDelta:
		return ThinkingDelta{turnRef{turn}, bytesString(data)}
	}
	if ev, ok := fastEvent(&c.arena, kind, turn, data); ok {
		return ev
	}
	// encoding/json hands out parts of the document (HookRequest.Input, …) as mutable
	// json.RawMessage: it gets a copy of its own.
	own := make([]byte, len(data))
	copy(own, data)
	return decodeWithReflection(kind, turn, own)
}

// route shows one event to OnEvent, acts on it, then queues it for Events().
func (c *sessionCore) route(ev Event) {
	c.callOnEvent(ev)
	c.mu.Lock()
	q := c.queues[ev.Turn()]
	c.mu.Unlock()
	switch e := ev.(type) {
	case TurnStarted:
		c.turnStarted(e.TurnID)
	case ErrorEvent:
		c.turnError(e)
	case TurnCompleted:
		c.completeTurn(e.Result)
	case ToolCallCancelled:
		c.cancelRequest(requestToolCall, e.CallID)
	case ToolCallRequest:
		c.toolCallEvent(e)
	case RequestCancelled:
		c.cancelRequest(e.RequestKind, e.RequestID)
	case PermissionRequest:
		c.answerPermission(e)
	case HookRequest:
		c.answerHook(e)
	case CommandRequest:
		c.answerCommand(e)
	case HostIOEvent:
		c.hostIOEvent(e)
	}
	c.mu.Lock()
	stream := c.stream
	c.mu.Unlock()
	if stream != nil {
		stream.push(ev)
	}
	if q != nil {
		q.push(ev)
		if tc, ok := ev.(TurnCompleted); ok {
			c.mu.Lock()
			delete(c.queues, tc.TurnID)
			c.mu.Unlock()
			q.end()
		}
	}
	if _, ok := ev.(SessionClosed); ok {
		c.abortLeftTurns()
		c.seenOnce.Do(func() { close(c.closedSeen) })
	}
}

// endQueues ends the streams of turns that will deliver no more events (the session closed).
func (c *sessionCore) endQueues() {
	c.mu.Lock()
	queues := c.queues
	c.queues = nil
	c.mu.Unlock()
	for _, q := range queues {
		q.end()
	}
}

// toolCallEvent runs the handler of a tool call that arrived as an event (pull delivery);
// every tool of a Go runtime has a handler, so an unknown name is answered as a failure.
func (c *sessionCore) toolCallEvent(e ToolCallRequest) {
	if t := c.rt.tool(e.ToolName); t != nil {
		t.start(c, e.CallID, e.Arguments)
		return
	}
	_ = c.rt.completeCall(e.CallID, jsonText("no handler is registered for tool "+e.ToolName), true)
}

// subscribed reports whether Events() is being read.
func (c *sessionCore) subscribed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stream != nil
}
