package robota

import (
	"context"
	"errors"
	"testing"
)

// blocker is a handler body that blocks until its context ends and reports that it did.
type blocker struct {
	entered  chan struct{}
	returned chan error
}

func newBlocker() *blocker {
	return &blocker{entered: make(chan struct{}, 1), returned: make(chan error, 1)}
}

func (b *blocker) block(ctx context.Context) error {
	b.entered <- struct{}{}
	<-ctx.Done()
	b.returned <- ctx.Err()
	return ctx.Err()
}

// Each kind of pending host request: its handler, blocked on <-ctx.Done(), returns when the
// turn is aborted, and the stream shows RequestCancelled after the request, before the end.
func TestHandlerContextsEndWhenTheirTurnIsAborted(t *testing.T) {
	cases := []struct {
		kind  string
		setup func(t *testing.T, b *blocker) *Session
		input string
	}{
		{"permission", func(t *testing.T, b *blocker) *Session {
			rt := newRuntime(t, scripted(toolTurn("a")))
			if err := rt.RegisterTool(writeTool(), func(ctx context.Context, c ToolCall) (any, error) { return "x", nil }); err != nil {
				t.Fatal(err)
			}
			return newSession(t, rt, SessionConfig{OnPermission: func(ctx context.Context, r PermissionRequest) (PermissionDecision, error) {
				return Deny, b.block(ctx)
			}})
		}, "go"},
		{"hook", func(t *testing.T, b *blocker) *Session {
			rt := newRuntime(t, scripted(toolTurn("a")))
			if err := rt.RegisterTool(lookupTool(), func(ctx context.Context, c ToolCall) (any, error) { return "x", nil }); err != nil {
				t.Fatal(err)
			}
			return newSession(t, rt, SessionConfig{
				Hooks: Hooks{"PreToolUse": {{Hooks: []HookDefinition{HostHook()}}}},
				OnHook: func(ctx context.Context, r HookRequest) (HookResult, error) {
					return HookResult{}, b.block(ctx)
				}})
		}, "go"},
		{"tool_call", func(t *testing.T, b *blocker) *Session {
			rt := newRuntime(t, scripted(toolTurn("a")))
			if err := rt.RegisterTool(lookupTool(), func(ctx context.Context, c ToolCall) (any, error) { return nil, b.block(ctx) }); err != nil {
				t.Fatal(err)
			}
			return newSession(t, rt, SessionConfig{})
		}, "go"},
		{"host_io", func(t *testing.T, b *blocker) *Session {
			rt := newRuntime(t, scripted(ScriptedTurn{ToolCalls: []ScriptedToolCall{{Name: "Read", Arguments: map[string]any{"filePath": "/vfs/a.txt"}}}}))
			if err := rt.SetHostIO(func(ctx context.Context, r HostIORequest) (any, error) { return nil, b.block(ctx) }); err != nil {
				t.Fatal(err)
			}
			return newSession(t, rt, SessionConfig{HostIO: true, Cwd: "/vfs", PermissionMode: ModeBypassPermissions})
		}, "go"},
		{"command", func(t *testing.T, b *blocker) *Session {
			rt := newRuntime(t, scripted())
			return newSession(t, rt, SessionConfig{Tools: []string{}, Commands: []HostCommand{{Name: "deploy", Description: "d"}},
				OnCommand: func(ctx context.Context, r CommandRequest) (CommandAnswer, error) {
					return CommandAnswer{}, b.block(ctx)
				}})
		}, "/deploy"},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			b := newBlocker()
			s := c.setup(t, b)
			ctx, cancel := context.WithCancel(testCtx(t))
			defer cancel()
			st := s.Stream(ctx, c.input)
			evs := drain(st)
			recv(t, b.entered)
			cancel()
			if err := recv(t, b.returned); !errors.Is(err, context.Canceled) {
				t.Fatalf("handler ctx: %v", err)
			}
			got := recv(t, evs)
			var cancelled []RequestCancelled
			at := -1
			for i, ev := range got {
				if rc, ok := ev.(RequestCancelled); ok && rc.RequestKind == c.kind {
					cancelled, at = append(cancelled, rc), i
				}
			}
			if len(cancelled) != 1 || cancelled[0].RequestKind != c.kind || cancelled[0].Reason != "aborted" || cancelled[0].Turn() != st.Turn().ID() {
				t.Fatalf("request_cancelled events %#v in %v", cancelled, kinds(got))
			}
			if at < 0 || at == len(got)-1 || got[len(got)-1].Kind() != KindTurnCompleted {
				t.Fatalf("order: %v", kinds(got))
			}
			if !errors.Is(st.Err(), ErrAborted) || st.Result().StopReason != StopAborted {
				t.Fatalf("stream: %#v, %v", st.Result(), st.Err())
			}
		})
	}
}
