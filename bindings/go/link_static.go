//go:build robota_static

package robota

// Static linking (`go build -tags robota_static`): links target/release/librobota.a into the
// Go binary, for hosts that cannot load a shared library at run time. The extra system
// libraries are what a Rust staticlib needs on Linux.

// #cgo CFLAGS: -I${SRCDIR}/../../include
// #cgo LDFLAGS: ${SRCDIR}/../../target/release/librobota.a -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc
import "C"
