package robota

import (
	"reflect"
	"runtime"
	"strconv"
	"testing"
	"unsafe"
)

// TestArenaDeltasSurviveCollection: deltas boxed in the arena keep their turn and text, as
// values of type TextDelta, after the arena moved on to new blocks and the heap was collected.
func TestArenaDeltasSurviveCollection(t *testing.T) {
	var a payloadArena
	var evs []Event
	for i := 0; i < 5*arenaDeltasBlock; i++ {
		text := []byte("delta " + strconv.Itoa(i))
		data := a.copy(unsafe.Pointer(&text[0]), len(text))
		evs = append(evs, a.deltaEvent(TextDelta{turnRef{uint64(i)}, bytesString(data)}))
		text[0] = 'X' // the arena holds a copy
	}
	runtime.GC()
	for i, ev := range evs {
		d, ok := ev.(TextDelta)
		if !ok || ev.Kind() != KindTextDelta || d.Turn() != uint64(i) || d.Text != "delta "+strconv.Itoa(i) {
			t.Fatalf("event %d: %#v", i, ev)
		}
		if ev != Event(TextDelta{turnRef{uint64(i)}, d.Text}) {
			t.Fatalf("event %d does not compare equal to its value", i)
		}
	}
}

// TestArenaEventsSurviveCollection: every kind fastEvent boxes in the arena decodes to what
// ordinary boxing gives — the same dynamic type and value — and keeps it after the arena
// moved on to new blocks and the heap was collected.
func TestArenaEventsSurviveCollection(t *testing.T) {
	var a payloadArena
	var boxed, plain []Event
	for round := 0; round < 3*arenaEventsBlock; round++ {
		for _, c := range fastEventDocs {
			doc := []byte(c.doc)
			ev, ok := fastEvent(&a, c.kind, uint64(round), doc)
			if !ok {
				continue
			}
			want, _ := fastEvent(nil, c.kind, uint64(round), []byte(c.doc))
			boxed, plain = append(boxed, ev), append(plain, want)
		}
	}
	if len(boxed) != 3*arenaEventsBlock*17 {
		t.Fatalf("%d events boxed", len(boxed))
	}
	runtime.GC()
	for i := range boxed {
		if boxed[i].Kind() != plain[i].Kind() || !reflect.DeepEqual(boxed[i], plain[i]) {
			t.Fatalf("event %d: %#v, want %#v", i, boxed[i], plain[i])
		}
	}
	for _, blocks := range []int{len(a.turnsStarted), len(a.messages), len(a.toolStarts), len(a.toolEnds), len(a.contextUpdates), len(a.turnsCompleted)} {
		if blocks >= arenaEventsBlock {
			t.Fatalf("a block tail of %d: the arena was not used", blocks)
		}
	}
}

// TestSessionEventsUseTheArena: a session's events (eventFromC) are boxed, and their
// unescaped strings kept, in the session's arena: a message with an escaped content costs
// well under the two allocations of its own it would otherwise have (the boxed value, the
// unescaped string), and decodes to the same event.
func TestSessionEventsUseTheArena(t *testing.T) {
	c := newSessionCore(nil, DeliveryThread, handlers{})
	defer c.cancel()
	doc := []byte(`{"v":1,"type":"message","role":"tool","content":"{\"sum\":3}","state":"complete","toolCallId":"call_0","name":"add"}`)
	want, ok := fastEvent(nil, KindMessage, 1, doc)
	if !ok {
		t.Fatal("the message is not read by fastEvent")
	}
	var got Event
	n := testing.AllocsPerRun(200, func() {
		got = c.eventFromC(KindMessage, 1, unsafe.Pointer(&doc[0]), len(doc))
	})
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("eventFromC = %#v, want %#v", got, want)
	}
	// Without the arena an event costs at least 2. The race detector's instrumentation adds
	// its own, 0.9–1.0 per event here and varying (testing.AllocsPerRun rounds down): under
	// it the bound only tells the arena from its absence.
	limit := 0.5
	if raceDetector {
		limit = 1.5
	}
	if n >= limit {
		t.Fatalf("%v allocations per event: the arena was not used", n)
	}
}
