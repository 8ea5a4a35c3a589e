package robota

import (
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
