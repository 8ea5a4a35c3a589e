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
	// the unused tails of the blocks of the other boxed events every turn carries
	turnsStarted   []TurnStarted
	messages       []MessageEvent
	toolStarts     []ToolStart
	toolEnds       []ToolEnd
	contextUpdates []ContextUpdate
	turnsCompleted []TurnCompleted
}

const (
	arenaTextBlock   = 4 << 10
	arenaLargeText   = arenaTextBlock / 8 // larger payloads get an allocation of their own
	arenaDeltasBlock = 32
	arenaEventsBlock = 8
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

// keep copies b (Go memory) into the arena, as copy does C memory.
func (a *payloadArena) keep(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return a.copy(unsafe.Pointer(&b[0]), len(b))
}

// deltaEvent is d as an Event whose value lives in a block of the arena instead of an
// allocation of its own (what converting d to Event would make).
func (a *payloadArena) deltaEvent(d TextDelta) Event {
	return boxEvent(a, deltasTail, arenaDeltasBlock, d, textDeltaEvent)
}

// textDeltaEvent is a TextDelta converted to Event: deltaEvent copies its type word.
var textDeltaEvent Event = TextDelta{}

// boxEvent is v as an Event whose value lives in a block of a's (tail(a): the unused part of
// that type's current block; a new one holds block values) instead of an allocation of its
// own; like is a T converted to Event, whose type word it copies. A nil arena, or a T stored
// in the interface word itself (pointer-sized), boxes v as Go does.
func boxEvent[T Event](a *payloadArena, tail func(*payloadArena) *[]T, block int, v T, like Event) Event {
	if a == nil || unsafe.Sizeof(v) <= unsafe.Sizeof(uintptr(0)) {
		return v
	}
	a.mu.Lock()
	blocks := tail(a)
	if len(*blocks) == 0 {
		*blocks = make([]T, block)
	}
	p := &(*blocks)[0]
	*blocks = (*blocks)[1:]
	a.mu.Unlock()
	*p = v
	ev := like
	(*ifaceWords)(unsafe.Pointer(&ev)).data = unsafe.Pointer(p)
	return ev
}

// The tails boxEvent takes its blocks from.
func deltasTail(a *payloadArena) *[]TextDelta             { return &a.deltas }
func turnsStartedTail(a *payloadArena) *[]TurnStarted     { return &a.turnsStarted }
func messagesTail(a *payloadArena) *[]MessageEvent        { return &a.messages }
func toolStartsTail(a *payloadArena) *[]ToolStart         { return &a.toolStarts }
func toolEndsTail(a *payloadArena) *[]ToolEnd             { return &a.toolEnds }
func contextUpdatesTail(a *payloadArena) *[]ContextUpdate { return &a.contextUpdates }
func turnsCompletedTail(a *payloadArena) *[]TurnCompleted { return &a.turnsCompleted }

// The type words boxEvent copies.
var (
	turnStartedEvent   Event = TurnStarted{}
	messageEvent       Event = MessageEvent{}
	toolStartEvent     Event = ToolStart{}
	toolEndEvent       Event = ToolEnd{}
	contextUpdateEvent Event = ContextUpdate{}
	turnCompletedEvent Event = TurnCompleted{}
)

// ifaceWords is the layout of a non-empty interface value: its method table and a pointer to
// its (never modified) value.
type ifaceWords struct {
	tab  unsafe.Pointer
	data unsafe.Pointer
}
