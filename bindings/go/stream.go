package robota

import "sync"

// eventStream feeds Session.Events(). The library's thread appends without ever blocking (a
// slow reader must not stall the session or its handlers). While the reader keeps up, push
// hands each event straight to the channel's buffer; otherwise one goroutine forwards the
// backlog in order, and closes the channel after the last event.
type eventStream struct {
	mu         sync.Mutex
	items      []Event
	spare      []Event
	forwarding bool // the forwarding goroutine holds a batch: push must queue behind it
	closed     bool
	wake       chan struct{}
	gone       chan struct{}
	goneOne    sync.Once
	out        chan Event
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
	if !q.forwarding && len(q.items) == 0 {
		select {
		case q.out <- ev: // nothing queued before it: in order, and no goroutine to wake
			q.mu.Unlock()
			return
		default:
		}
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
	defer func() {
		q.mu.Lock()
		q.closed = true // push sends to out under mu: none can follow the close
		q.mu.Unlock()
		close(q.out)
	}()
	for {
		q.mu.Lock()
		batch := q.items
		q.items = q.spare[:0]
		q.forwarding = len(batch) > 0
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
