package robota

import (
	"sync"
	"unsafe"
)

// payloadArena holds a session's event payloads in shared blocks, so that a text delta or an
// event document costs no allocation of its own. A block is never written again where a
// payload was copied: strings made from it stay immutable, and keep it alive.
type payloadArena struct {
	mu     sync.Mutex
	text   []byte      // the unused tail of the current text block
	deltas []TextDelta // the unused tail of the current block of boxed deltas
}

const (
	arenaTextBlock   = 4 << 10
	arenaLargeText   = arenaTextBlock / 8 // larger payloads get an allocation of their own
	arenaDeltasBlock = 32
)

// copy copies n bytes at p (C memory) into the arena; the result has no spare capacity.
func (a *payloadArena) copy(p unsafe.Pointer, n int) []byte {
	var b []byte
	if n > arenaLargeText {
		b = make([]byte, n)
	} else {
		a.mu.Lock()
		if len(a.text) < n {
			a.text = make([]byte, arenaTextBlock)
		}
		b = a.text[:n:n]
		a.text = a.text[n:]
		a.mu.Unlock()
	}
	copy(b, unsafe.Slice((*byte)(p), n))
	return b
}

// deltaEvent is d as an Event whose value lives in a block of the arena instead of an
// allocation of its own (what converting d to Event would make).
func (a *payloadArena) deltaEvent(d TextDelta) Event {
	a.mu.Lock()
	if len(a.deltas) == 0 {
		a.deltas = make([]TextDelta, arenaDeltasBlock)
	}
	p := &a.deltas[0]
	a.deltas = a.deltas[1:]
	a.mu.Unlock()
	*p = d
	ev := textDeltaEvent
	(*ifaceWords)(unsafe.Pointer(&ev)).data = unsafe.Pointer(p)
	return ev
}

// textDeltaEvent is a TextDelta converted to Event: deltaEvent copies its type word.
var textDeltaEvent Event = TextDelta{}

// ifaceWords is the layout of a non-empty interface value: its method table and a pointer to
// its (never modified) value.
type ifaceWords struct {
	tab  unsafe.Pointer
	data unsafe.Pointer
}
