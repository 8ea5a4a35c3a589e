package robota

import (
	"testing"
	"unsafe"
)

// A handle gives back its value until it is dropped; a dropped slot is reused, so publishing
// allocates nothing once the table has grown; a dropped or unknown handle panics.
func TestHandlesReuseSlotsAndRefuseStaleOnes(t *testing.T) {
	a, b := &struct{ n int }{1}, &struct{ n int }{2}
	ha, uda := newHandle(a)
	hb, _ := newHandle(b)
	if handleValue(uda) != any(a) || hb.value() != any(b) || ha == hb {
		t.Fatal("a handle does not give back its own value")
	}
	dropHandle(ha)
	mustPanic(t, "a dropped handle", func() { ha.value() })
	mustPanic(t, "dropping twice", func() { dropHandle(ha) })
	mustPanic(t, "handle 0", func() { handleValue(unsafe.Pointer(nil)) })
	hc, _ := newHandle(a)
	if hc != ha || hc.value() != any(a) {
		t.Fatalf("the dropped slot %d was not reused (got %d)", ha, hc)
	}
	v := any(b)
	if n := testing.AllocsPerRun(100, func() {
		h, _ := newHandle(v)
		dropHandle(h)
	}); n != 0 {
		t.Fatalf("%v allocations per handle", n)
	}
	dropHandle(hb)
	dropHandle(hc)
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatalf("%s did not panic", what)
		}
	}()
	f()
}
