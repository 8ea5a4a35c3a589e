package robota

import (
	"context"
	"encoding/json"
	"fmt"
)

// PermissionDecision answers a permission request.
type PermissionDecision struct {
	// Allow lets the tool run.
	Allow bool
	// Remember allows the tool for the rest of the session.
	Remember bool
}

// Common decisions.
var (
	Allow       = PermissionDecision{Allow: true}
	AllowAlways = PermissionDecision{Allow: true, Remember: true}
	Deny        = PermissionDecision{}
)

// PermissionHandler decides whether a tool may run. It runs on its own goroutine (it may
// prompt a user); ctx ends when the request is withdrawn (RequestCancelled: its turn ended,
// it timed out, the session closed). An error or a panic denies.
type PermissionHandler func(ctx context.Context, req PermissionRequest) (PermissionDecision, error)

// HookResult answers a "host" hook: ExitCode 0 proceeds, 2 blocks (Stderr is the reason the
// model sees), anything else is a non-blocking failure.
type HookResult struct {
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
}

// BlockHook is the result that blocks the action with reason.
func BlockHook(reason string) HookResult { return HookResult{ExitCode: 2, Stderr: reason} }

// HookHandler runs a "host" hook on its own goroutine; ctx ends when the request is withdrawn
// (RequestCancelled). An error or a panic is a non-blocking failure (exit code 1, the message
// on stderr).
type HookHandler func(ctx context.Context, req HookRequest) (HookResult, error)

func (d PermissionDecision) json() string {
	decision := "deny"
	if d.Allow {
		decision = "allow"
	}
	b, _ := json.Marshal(map[string]any{"decision": decision, "remember": d.Remember})
	return string(b)
}

func (r HookResult) json() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// answerPermission routes a permission request (on the delivering thread; must not block).
func (s *sessionCore) answerPermission(e PermissionRequest) {
	h := s.onPermission
	if h == nil {
		if !s.subscribed() {
			_ = s.rt.respond(e.RequestID, Deny.json())
		}
		return
	}
	s.spawn(requestPermission, e.RequestID, func(ctx context.Context) {
		d, err := callPermission(ctx, h, e)
		if err != nil {
			d = Deny
		}
		_ = s.rt.respond(e.RequestID, d.json())
	})
}

func callPermission(ctx context.Context, h PermissionHandler, e PermissionRequest) (d PermissionDecision, err error) {
	defer func() {
		if r := recover(); r != nil {
			d, err = Deny, fmt.Errorf("permission handler panicked: %v", r)
		}
	}()
	return h(ctx, e)
}

// answerHook routes a host hook request (on the delivering thread; must not block).
func (s *sessionCore) answerHook(e HookRequest) {
	h := s.onHook
	if h == nil {
		if !s.subscribed() {
			_ = s.rt.respond(e.RequestID, HookResult{}.json())
		}
		return
	}
	s.spawn(requestHook, e.RequestID, func(ctx context.Context) {
		_ = s.rt.respond(e.RequestID, callHook(ctx, h, e).json())
	})
}

func callHook(ctx context.Context, h HookHandler, e HookRequest) (res HookResult) {
	defer func() {
		if r := recover(); r != nil {
			res = HookResult{ExitCode: 1, Stderr: fmt.Sprintf("hook handler panicked: %v", r)}
		}
	}()
	res, err := h(ctx, e)
	if err != nil {
		return HookResult{ExitCode: 1, Stderr: err.Error()}
	}
	return res
}

// spawn runs the handler f of request (kind, id) on a goroutine that keeps the runtime alive
// (answers need its handle); its ctx ends when the request is cancelled or the session closes.
func (s *sessionCore) spawn(kind string, id uint64, f func(ctx context.Context)) {
	if !s.rt.acquire() {
		return
	}
	ctx, done := s.requestCtx(kind, id)
	goTracked(func() {
		defer s.rt.release()
		defer done()
		f(ctx)
	})
}

// RespondPermission answers a permission request read from Events() (sessions without
// OnPermission). ErrStale when it was already answered, timed out or withdrawn.
func (s *Session) RespondPermission(requestID uint64, d PermissionDecision) error {
	return s.respond(requestID, d.json())
}

// RespondHook answers a host hook request read from Events() (sessions without OnHook).
func (s *Session) RespondHook(requestID uint64, r HookResult) error {
	return s.respond(requestID, r.json())
}

// CommandAnswer answers a CommandRequest: Message is the result; Failed marks a failure;
// Data is structured output; a non-empty Prompt is submitted as a turn instead.
type CommandAnswer struct {
	Message string
	Failed  bool
	Data    any
	Prompt  string
}

func (r CommandAnswer) json() string {
	m := map[string]any{"message": r.Message, "success": !r.Failed}
	if r.Data != nil {
		m["data"] = r.Data
	}
	if r.Prompt != "" {
		m["prompt"] = r.Prompt
	}
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Sprintf(`{"message":%q,"success":false}`, err.Error())
	}
	return string(b)
}

// CommandHandler runs a host command (SessionConfig.Commands) on its own goroutine; ctx ends
// when the request is withdrawn (RequestCancelled). An error or a panic is the command's
// failure (its message).
type CommandHandler func(ctx context.Context, req CommandRequest) (CommandAnswer, error)

// answerCommand routes a host command request (on the delivering thread; must not block).
// Without a handler the host answers it from Events() with RespondCommand.
func (s *sessionCore) answerCommand(e CommandRequest) {
	h := s.onCommand
	if h == nil {
		return
	}
	s.spawn(requestCommand, e.RequestID, func(ctx context.Context) {
		_ = s.rt.respond(e.RequestID, callCommand(ctx, h, e).json())
	})
}

func callCommand(ctx context.Context, h CommandHandler, e CommandRequest) (a CommandAnswer) {
	defer func() {
		if r := recover(); r != nil {
			a = CommandAnswer{Message: fmt.Sprintf("command handler panicked: %v", r), Failed: true}
		}
	}()
	a, err := h(ctx, e)
	if err != nil {
		return CommandAnswer{Message: err.Error(), Failed: true}
	}
	return a
}

// RespondCommand answers a host command request read from Events() (sessions without
// OnCommand).
func (s *Session) RespondCommand(requestID uint64, r CommandAnswer) error {
	return s.respond(requestID, r.json())
}

func (s *Session) respond(requestID uint64, doc string) error {
	c := s.core
	if !c.rt.acquire() {
		return newError("Respond", StatusClosed, "runtime is closed")
	}
	defer c.rt.release()
	return c.rt.respond(requestID, doc)
}
