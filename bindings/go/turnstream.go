package robota

import (
	"context"
	"sync"
)

// TurnStream is the event stream of one turn (Session.Stream):
//
//	stream := s.Stream(ctx, "Summarize the README")
//	for stream.Next() {
//		if d, ok := stream.Event().(robota.TextDelta); ok {
//			fmt.Print(d.Text)
//		}
//	}
//	if err := stream.Err(); err != nil { … }
//	res := stream.Result()
//
// It yields that turn's events only, in order, from TurnStarted to its TurnCompleted (the
// last), buffered without bound so the library never waits for the reader. Use it from one
// goroutine. With DeliveryPump or DeliveryPull, events flow only while another goroutine calls
// Dispatch or NextEvent.
type TurnStream struct {
	ctx  context.Context
	turn *Turn
	q    *turnQueue
	cur  Event
	err  error
	res  Result
	done bool
}

// Stream submits text as a turn (queued while another turn runs, like Submit) and returns its
// event stream. Cancelling ctx aborts this turn only; the stream then ends with the turn's
// aborted TurnCompleted and Err matches both ErrAborted and ctx's error. A refused submit
// (ErrBusy, ErrClosed, …) is the stream's Err, with no event.
func (s *Session) Stream(ctx context.Context, text string) *TurnStream {
	return s.StreamInput(ctx, Input{Text: text})
}

// StreamInput is Stream with the display and raw variants of the input.
func (s *Session) StreamInput(ctx context.Context, in Input) *TurnStream {
	t, err := s.submit(ctx, "Stream", in, true)
	if err != nil {
		return &TurnStream{ctx: ctx, err: err, done: true}
	}
	return &TurnStream{ctx: ctx, turn: t, q: t.queue}
}

// Next waits for the turn's next event and reports whether there is one; false once the
// turn's TurnCompleted was read (or the turn was never issued): then see Err and Result.
func (st *TurnStream) Next() bool {
	if st.done {
		st.cur = nil
		return false
	}
	ev, ok := st.q.next()
	if !ok {
		st.finish()
		return false
	}
	st.cur = ev
	return true
}

// Event is the event Next moved to.
func (st *TurnStream) Event() Event { return st.cur }

// Turn is the streamed turn (nil when the submit was refused): its ID, Abort, Done.
func (st *TurnStream) Turn() *Turn { return st.turn }

// Err is nil while events flow and for a turn that completed (StopComplete, StopMaxRounds,
// StopContextLimit); once Next returned false it is the turn's failure as Turn.Wait reports
// it (Op "Stream"): ErrProvider with the taxonomy Code, ErrAborted, ErrBudget, ErrClosed, or
// the refused submit's error.
func (st *TurnStream) Err() error {
	if !st.done {
		return nil
	}
	return st.err
}

// Result is the turn's result (its TurnCompleted payload) once Next returned false.
func (st *TurnStream) Result() Result { return st.res }

// finish records the outcome of the ended turn.
func (st *TurnStream) finish() {
	st.done, st.cur = true, nil
	r, err := st.turn.Wait(context.Background()) // the turn has completed: returns at once
	st.res = r
	if ctxErr := st.ctx.Err(); ctxErr != nil && r.StopReason == StopAborted {
		err = &Error{Op: "Stream", Status: StatusAborted, Message: "turn aborted: " + ctxErr.Error(), cause: ctxErr}
	}
	st.err = relabel(err, "Stream")
}

// turnQueue buffers the events of one streamed turn: the library's thread appends without
// blocking, the stream's reader takes them in order.
type turnQueue struct {
	mu    sync.Mutex
	items []Event
	ended bool
	wake  chan struct{}
}

func newTurnQueue() *turnQueue { return &turnQueue{wake: make(chan struct{}, 1)} }

func (q *turnQueue) push(ev Event) {
	q.mu.Lock()
	if !q.ended {
		q.items = append(q.items, ev)
	}
	q.mu.Unlock()
	q.signal()
}

// end lets the reader finish after the queued events.
func (q *turnQueue) end() {
	q.mu.Lock()
	q.ended = true
	q.mu.Unlock()
	q.signal()
}

func (q *turnQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// next is the next event, waiting for it; false after the last.
func (q *turnQueue) next() (Event, bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			ev := q.items[0]
			q.items[0] = nil
			q.items = q.items[1:]
			q.mu.Unlock()
			return ev, true
		}
		ended := q.ended
		q.mu.Unlock()
		if ended {
			return nil, false
		}
		<-q.wake
	}
}
