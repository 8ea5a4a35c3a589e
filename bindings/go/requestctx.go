package robota

import "context"

// RequestCancelled reports that a pending host request became void: its turn ended (completed,
// failed, aborted), it timed out, or the session closed. The context given to its handler is
// cancelled at the same moment; an answer given later fails with ErrStale.
type RequestCancelled struct {
	turnRef
	RequestID uint64 `json:"request_id"`
	// RequestKind is "permission", "hook", "host_io", "command" or "tool_call".
	RequestKind string `json:"request_kind"`
	// Reason is "aborted", "turn_ended", "timeout" or "session_closed".
	Reason string `json:"reason"`
}

// Kind implements Event.
func (RequestCancelled) Kind() EventKind { return KindRequestCancelled }

// The kinds of pending host requests (RequestCancelled.RequestKind).
const (
	requestPermission = "permission"
	requestHook       = "hook"
	requestHostIO     = "host_io"
	requestCommand    = "command"
	requestToolCall   = "tool_call"
)

// requestKey names a pending host request.
type requestKey struct {
	kind string
	id   uint64
}

// requestCtx is the context of the handler of request (kind, id): it ends when the request is
// cancelled or the session closes. Call done when the handler has answered. Registered before
// it returns, so a cancellation routed after the request always finds it.
func (c *sessionCore) requestCtx(kind string, id uint64) (ctx context.Context, done func()) {
	ctx, cancel := context.WithCancel(c.ctx)
	key := requestKey{kind, id}
	c.mu.Lock()
	if c.pending == nil {
		c.pending = map[requestKey]context.CancelFunc{}
	}
	c.pending[key] = cancel
	c.mu.Unlock()
	return ctx, func() {
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
		cancel()
	}
}

// cancelRequest cancels the context of the handler of request (kind, id), if one runs.
func (c *sessionCore) cancelRequest(kind string, id uint64) {
	c.mu.Lock()
	cancel := c.pending[requestKey{kind, id}]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
