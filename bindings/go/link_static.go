//go:build robota_static

package robota

// Static linking (`go build -tags robota_static`): links the installed librobota.a into the Go
// binary, for hosts that cannot load a shared library at run time. pkg-config --static gives
// the header, the library's directory and the system libraries a Rust static library needs
// (robota.pc's Libs.private), but also -lrobota, which the linker would resolve to
// librobota.so: -l:librobota.a comes first and defines every robota_* symbol, and
// --as-needed then keeps librobota.so out of the binary's needed libraries (no symbol is left
// for it to define). GNU ld and LLVM lld (Linux) understand both flags.

// #cgo LDFLAGS: -l:librobota.a -Wl,--as-needed
// #cgo pkg-config: --static robota
import "C"
