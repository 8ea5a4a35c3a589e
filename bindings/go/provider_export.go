package robota

// The host provider callback: a model call or its cancellation. It runs on a library thread and
// must return quickly: a call is started on a goroutine, a cancellation cancels its context. A Go
// panic must not unwind into Rust frames.

// #include <stdint.h>
// #include <stddef.h>
// #include "robota.h"
import "C"

import (
	"encoding/json"
	"sync/atomic"
	"unsafe"
)

// providerCancelHook, when set (by tests), sees every cancel document, on the library's thread.
var providerCancelHook atomic.Pointer[func(callID uint64, reason string)]

//export robotaGoProvider
func robotaGoProvider(ud unsafe.Pointer, callID C.uint64_t, req *C.char, n C.size_t) {
	defer func() { _ = recover() }()
	e, ok := handleValue(ud).(*providerEntry)
	if !ok {
		return
	}
	doc := C.GoBytes(unsafe.Pointer(req), C.int(n))
	var head struct {
		Type   string `json:"type"`
		Reason string `json:"reason"`
	}
	_ = json.Unmarshal(doc, &head)
	if head.Type == "cancel" {
		if h := providerCancelHook.Load(); h != nil {
			(*h)(uint64(callID), head.Reason)
		}
		e.cancelCall(uint64(callID), head.Reason)
		return
	}
	e.start(uint64(callID), doc)
}
