// Command cgofloor is the floor of a Go binding's cost: benches/floor/host.c, unchanged,
// running inside a Go program, where each of its callbacks (every event and tool call) also
// enters Go through cgo and leaves it (floor_forward). Beside the C host, in the same run, it
// measures what Go itself charges a C library that calls back: cgo's transitions, and on
// library threads the binding of a Go thread to each callback, with the Go runtime's own
// threads (its monitor, its idle threads) around them. A Go binding can cost no less.
//
//	cgofloor MODE KIND BASE_URL PATTERN   (as floor_host; built by benches/bindings/build_go.sh cgofloor)
//
// It exits 3 when host.c's callbacks did not all reach Go: 53 text deltas and 3 tool calls
// per scenario at least.
package main

// #cgo CFLAGS: -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -DFLOOR_HOST_FORWARD -Dmain=floor_host_main
// #cgo pkg-config: robota
// #cgo LDFLAGS: -lpthread
// #include <stdlib.h>
// #include "../../floor/host.c"
import "C"

import (
	"fmt"
	"os"
	"unsafe"
)

// scenarios is how many scenarios host.c runs in mode.
var scenarios = map[string]int64{"single": 1, "warm": 51, "conc": 100}

func main() {
	argv := make([]*C.char, len(os.Args)+1)
	for i, a := range os.Args {
		argv[i] = C.CString(a)
	}
	argc := C.int(len(os.Args))
	code := int(C.floor_host_main(argc, (**C.char)(unsafe.Pointer(&argv[0]))))
	for _, a := range argv[:len(os.Args)] {
		C.free(unsafe.Pointer(a))
	}
	if code == 0 {
		n := scenarios[os.Args[1]]
		if got := forwarded.Load(); got < n*(53+3) {
			fmt.Fprintf(os.Stderr, "cgofloor: %d callbacks reached Go, expected at least %d\n", got, n*(53+3))
			code = 3
		}
	}
	os.Exit(code)
}
