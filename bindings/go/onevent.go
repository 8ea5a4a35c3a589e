package robota

import (
	"log"
	"runtime/debug"
)

// EventHandler is SessionConfig.OnEvent: it sees every event of its session, in the order
// the library delivered them, on the thread that delivers them — the library's dispatcher
// thread (DeliveryThread), the library worker that produced them (DeliveryInline; under
// Session.Drive that is the goroutine calling Drive), or the goroutine in Session.Dispatch or
// Session.NextEvent — before Events() and the turn streams get them. It is the cheapest way
// to watch a session: no goroutine is woken per event, as a reader of Events() is.
//
// It holds up the session's delivery while it runs: keep it quick, never block in it, and
// never call the session's blocking methods (Run, Drive, Turn.Wait, WaitIdle, Close) from
// it. Events may be kept after the call. A panic in it is recovered and logged with the
// standard log package; the event still reaches the session and Events().
type EventHandler func(Event)

// callOnEvent runs the session's OnEvent handler, if any, on ev.
func (c *sessionCore) callOnEvent(ev Event) {
	if c.onEvent == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			log.Printf("robota: OnEvent panicked on a %s event: %v\n%s", ev.Kind(), r, debug.Stack())
		}
	}()
	c.onEvent(ev)
}
