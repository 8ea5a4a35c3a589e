//go:build !robota_static

package robota

// Default linking: the shared library built by `cargo build --release --lib` at the repository
// root (target/release/librobota.so, .dylib on macOS), found at run time through an rpath, so
// `go test ./...` and `go run ./examples/chat` work with no environment variables. To link a
// library elsewhere, set CGO_LDFLAGS="-L/dir -Wl,-rpath,/dir" (cgo appends it) or build with
// -tags robota_static (link_static.go).

// #cgo CFLAGS: -I${SRCDIR}/../../include
// #cgo LDFLAGS: -L${SRCDIR}/../../target/release -lrobota -Wl,-rpath,${SRCDIR}/../../target/release
import "C"
