package robota

// #include "robota.h"
import "C"

import (
	"context"
	"errors"
	"time"
)

// idleSlice bounds one robota_session_wait of WaitIdleContext: how late it sees ctx end.
const idleSlice = 50 * time.Millisecond

// WaitIdleContext blocks until the session has no running or queued turn (robota_session_wait
// with turn 0), or returns ctx's error once ctx ends (within 50 ms; the turns go on). It
// returns the library's status otherwise: nil, or the failure of a turn it waited for. It
// blocks an OS thread; prefer Turn.Wait or a TurnStream.
func (s *Session) WaitIdleContext(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		slice := time.Duration(-1)
		if ctx.Done() != nil {
			slice = idleSlice
			if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < slice {
				slice = time.Until(deadline)
				if slice < 0 {
					slice = 0
				}
			}
		}
		err := s.core.use("WaitIdle", func(p *C.robota_session) error {
			var cerr *C.robota_error
			st := C.robota_session_wait(p, 0, timeoutMS(slice), &cerr)
			return takeError("WaitIdle", st, cerr)
		})
		if !errors.Is(err, ErrTimeout) || slice < 0 {
			return err
		}
	}
}

// CommandContext is Command bounded by ctx: the commands that block ("compact", which asks
// the model for a summary, and host commands, which wait for RespondCommand) return ctx's
// error once ctx ends. The library cannot interrupt them: the command still completes, and
// its result is dropped.
func (s *Session) CommandContext(ctx context.Context, name, args string) (CommandResult, error) {
	return untilDone(ctx, func() (CommandResult, error) { return s.Command(name, args) })
}

// QueryContext is Query bounded by ctx: it returns ctx's error once ctx ends. The library
// cannot interrupt robota_query: its turn still runs to the end, and its answer is dropped.
func (rt *Runtime) QueryContext(ctx context.Context, cfg SessionConfig, prompt string) (*QueryResult, error) {
	return untilDone(ctx, func() (*QueryResult, error) { return rt.Query(cfg, prompt) })
}

// untilDone runs the blocking call f, returning its outcome or, when ctx ends first, ctx's
// error (f's outcome is then dropped when it arrives).
func untilDone[T any](ctx context.Context, f func() (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	if ctx.Done() == nil {
		return f()
	}
	ch := make(chan outcome[T], 1)
	goTracked(func() {
		v, err := f()
		ch <- outcome[T]{v, err}
	})
	select {
	case o := <-ch:
		return o.v, o.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// outcome is what a blocking call returned.
type outcome[T any] struct {
	v   T
	err error
}
