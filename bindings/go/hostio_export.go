package robota

// The host I/O callback (thread, inline and pump delivery): copies the request and hands it to the
// runtime's HostIOHandler on a goroutine. A Go panic must not unwind into Rust frames.

// #include <stdint.h>
// #include <stddef.h>
// #include "robota.h"
import "C"

import "unsafe"

//export robotaGoHostIO
func robotaGoHostIO(ud unsafe.Pointer, s *C.robota_session, ioID C.uint64_t, req *C.char, n C.size_t) {
	defer func() { _ = recover() }()
	h, ok := handleValue(ud).(*hostIOEntry)
	if !ok {
		return
	}
	h.start(sessionOf(s), uint64(ioID), C.GoBytes(unsafe.Pointer(req), C.int(n)))
}
