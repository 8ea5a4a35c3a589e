package robota

// The store callback: copies the request and hands it to the runtime's Store on a goroutine.
// A Go panic must not unwind into Rust frames.

// #include <stdint.h>
// #include <stddef.h>
// #include "robota.h"
import "C"

import "unsafe"

//export robotaGoStore
func robotaGoStore(ud unsafe.Pointer, id C.uint64_t, req *C.char, n C.size_t) {
	defer func() { _ = recover() }()
	e, ok := handleValue(ud).(*storeEntry)
	if !ok {
		return
	}
	e.start(uint64(id), C.GoBytes(unsafe.Pointer(req), C.int(n)))
}
