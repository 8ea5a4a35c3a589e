package robota

import "sync"

// eventStream feeds Session.Events(). The library's thread appends without ever blocking (a
// slow reader must not stall the session or its handlers); one goroutine forwards to the
// channel in order and closes it after the last event.
type eventStream struct {
	mu      sync.Mutex
	items   []Event
	spare   []Event
	closed  bool
	wake    chan struct{}
	gone    chan struct{}
	goneOne sync.Once
	out     chan Event
}

func newEventStream() *eventStream {
	q := &eventStream{
		wake: make(chan struct{}, 1),
		gone: make(chan struct{}),
		out:  make(chan Event, 64),
	}
	goTracked(q.forward)
	return q
}

func (q *eventStream) push(ev Event) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.items = append(q.items, ev)
	q.mu.Unlock()
	q.signal()
}

// close ends the stream after the queued events.
func (q *eventStream) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

// abandon stops forwarding at once (nobody can read the channel any more).
func (q *eventStream) abandon() { q.goneOne.Do(func() { close(q.gone) }) }

func (q *eventStream) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *eventStream) forward() {
	defer close(q.out)
	for {
		q.mu.Lock()
		batch := q.items
		q.items = q.spare[:0]
		closed := q.closed
		q.mu.Unlock()
		for i, ev := range batch {
			select {
			case q.out <- ev:
				batch[i] = nil
			case <-q.gone:
				return
			}
		}
		q.mu.Lock()
		q.spare = batch[:0]
		q.mu.Unlock()
		if len(batch) == 0 {
			if closed {
				return
			}
			select {
			case <-q.wake:
			case <-q.gone:
				return
			}
		}
	}
}
