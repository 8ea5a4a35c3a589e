//go:build !robota_static

package robota

// Default linking: the installed library, through pkg-config (`pkg-config --cflags --libs
// robota`: robota.h and librobota.so). Install it first (packaging/install.sh --prefix
// /usr/local, or a package); for a prefix pkg-config does not search, set
// PKG_CONFIG_PATH=<prefix>/lib/pkgconfig. pkg-config gives no rpath: outside the loader's
// path, find the library at run time with CGO_LDFLAGS="-Wl,-rpath,<prefix>/lib" at build time
// or LD_LIBRARY_PATH=<prefix>/lib at run time. On macOS the same finds librobota.dylib.
// -tags robota_static links the static library instead (link_static.go).

// #cgo pkg-config: robota
import "C"
