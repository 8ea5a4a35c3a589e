package main

// #include <stdint.h>
import "C"

import "sync/atomic"

// forwarded counts the callbacks host.c handed to Go.
var forwarded atomic.Int64

// floor_forward is what the C host calls for every event and tool call: the least a binding
// does with a callback, entering Go and leaving it.
//
//export floor_forward
func floor_forward(kind C.uint32_t) {
	forwarded.Add(1)
}
