package robota

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
)

func permissionScript() RuntimeConfig {
	return scripted(
		ScriptedTurn{ToolCalls: []ScriptedToolCall{{Name: "lookup", Arguments: map[string]any{"key": "a"}}}}, ScriptedTurn{Text: "ok1"},
		ScriptedTurn{ToolCalls: []ScriptedToolCall{{Name: "lookup", Arguments: map[string]any{"key": "b"}}}}, ScriptedTurn{Text: "ok2"},
	)
}

func TestPermissionHandlerAllowsAndDenies(t *testing.T) {
	rt := newRuntime(t, permissionScript())
	var mu sync.Mutex
	var ran []string
	err := rt.RegisterTool(writeTool(), func(ctx context.Context, call ToolCall) (any, error) {
		mu.Lock()
		ran = append(ran, string(call.Arguments))
		mu.Unlock()
		return "written", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var reqs []PermissionRequest
	s := newSession(t, rt, SessionConfig{OnPermission: func(ctx context.Context, req PermissionRequest) (PermissionDecision, error) {
		mu.Lock()
		reqs = append(reqs, req)
		mu.Unlock()
		var args struct{ Key string }
		_ = json.Unmarshal(req.Arguments, &args)
		if args.Key == "a" {
			return Allow, nil
		}
		return Deny, nil
	}})
	events := s.Events()
	for i, want := range []string{"success", "denied"} {
		turn, err := s.Submit(testCtx(t), "go")
		if err != nil {
			t.Fatal(err)
		}
		end := find[ToolEnd](collect(t, events, turn.ID()))
		if len(end) != 1 || end[0].Result != want {
			t.Fatalf("turn %d tool end = %#v, want %s", i, end, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ran) != 1 || ran[0] != `{"key":"a"}` {
		t.Fatalf("tool ran for %v, want only key a", ran)
	}
	if len(reqs) != 2 || reqs[0].ToolName != "lookup" || reqs[0].Reason != `Tool "lookup" needs approval in default mode` {
		t.Fatalf("requests = %#v", reqs)
	}
	mustContain(t, conversation(t, s), "Permission denied. The user did not approve this action.")
}

func TestPermissionAnsweredFromEventsAndDeniedWithoutHandler(t *testing.T) {
	rt := newRuntime(t, permissionScript())
	err := rt.RegisterTool(writeTool(), func(ctx context.Context, call ToolCall) (any, error) { return "written", nil })
	if err != nil {
		t.Fatal(err)
	}
	// Reading Events() and answering with RespondPermission (remembered for the session).
	s := newSession(t, rt, SessionConfig{})
	events := s.Events()
	turn, err := s.Submit(testCtx(t), "go")
	if err != nil {
		t.Fatal(err)
	}
	for ev := range events {
		if req, ok := ev.(PermissionRequest); ok {
			if err := s.RespondPermission(req.RequestID, AllowAlways); err != nil {
				t.Fatal(err)
			}
			if err := s.RespondPermission(req.RequestID, Allow); !isStatus(err, ErrStale) {
				t.Fatalf("second answer = %v, want ErrStale", err)
			}
			break
		}
	}
	if end := find[ToolEnd](collect(t, events, turn.ID())); len(end) != 1 || end[0].Result != "success" {
		t.Fatalf("tool end = %#v", end)
	}
	res, err := s.Command("permissions", "")
	if err != nil || !res.Success {
		t.Fatalf("command = %#v, %v", res, err)
	}
	mustContain(t, res.Message, "Session-approved tools: lookup")

	// No handler and nobody reading events: denied at once.
	s2 := newSession(t, rt, SessionConfig{})
	if _, err := s2.Run(testCtx(t), "go"); err != nil {
		t.Fatal(err)
	}
	mustContain(t, conversation(t, s2), "Permission denied. The user did not approve this action.")
}

// A Bash call's permission request names the sandbox mode its command would run in (the
// session's sandbox.mode, "workspace-write" by default); another tool's request names none.
func TestPermissionRequestNamesBashSandbox(t *testing.T) {
	ask := func(t *testing.T, call ScriptedToolCall, sandbox map[string]any) PermissionRequest {
		t.Helper()
		rt := newRuntime(t, scripted(ScriptedTurn{ToolCalls: []ScriptedToolCall{call}}, ScriptedTurn{Text: "done"}))
		var mu sync.Mutex
		var reqs []PermissionRequest
		cfg := SessionConfig{Tools: []string{"Bash", "Write"}, Cwd: t.TempDir(),
			OnPermission: func(ctx context.Context, req PermissionRequest) (PermissionDecision, error) {
				mu.Lock()
				reqs = append(reqs, req)
				mu.Unlock()
				return Deny, nil
			}}
		if sandbox != nil {
			cfg.Extra = map[string]any{"sandbox": sandbox}
		}
		s := newSession(t, rt, cfg)
		res, err := s.Run(testCtx(t), "go")
		if err != nil || res.Response != "done" {
			t.Fatalf("run = %#v, %v", res, err)
		}
		mustContain(t, conversation(t, s), "Permission denied. The user did not approve this action.")
		mu.Lock()
		defer mu.Unlock()
		if len(reqs) != 1 || reqs[0].ToolName != call.Name {
			t.Fatalf("requests = %#v, want one for %s", reqs, call.Name)
		}
		return reqs[0]
	}
	bash := ScriptedToolCall{ID: "c1", Name: "Bash", Arguments: map[string]any{"command": "true"}}
	if got := ask(t, bash, nil).Sandbox; got != "workspace-write" {
		t.Fatalf("default session: Sandbox = %q, want workspace-write", got)
	}
	if got := ask(t, bash, map[string]any{"mode": "read-only"}).Sandbox; got != "read-only" {
		t.Fatalf("read-only session: Sandbox = %q, want read-only", got)
	}
	write := ScriptedToolCall{ID: "c1", Name: "Write", Arguments: map[string]any{"filePath": "a.txt", "content": "x"}}
	if got := ask(t, write, nil).Sandbox; got != "" {
		t.Fatalf("Write: Sandbox = %q, want empty", got)
	}
}

func TestHostHookBlocksTool(t *testing.T) {
	rt := newRuntime(t, scripted(toolTurn("secret"), ScriptedTurn{Deltas: []string{"Done."}}))
	ran := make(chan struct{}, 1)
	err := rt.RegisterTool(lookupTool(), func(ctx context.Context, call ToolCall) (any, error) {
		ran <- struct{}{}
		return "x", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []HookRequest
	var mu sync.Mutex
	s := newSession(t, rt, SessionConfig{
		Hooks: Hooks{"PreToolUse": {{Matcher: "look", Hooks: []HookDefinition{HostHook()}}}},
		OnHook: func(ctx context.Context, req HookRequest) (HookResult, error) {
			mu.Lock()
			got = append(got, req)
			mu.Unlock()
			return BlockHook("not allowed here"), nil
		},
	})
	if _, err := s.Run(testCtx(t), "go"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ran:
		t.Fatal("the blocked tool ran")
	default:
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].HookEventName != "PreToolUse" || got[0].ToolName != "lookup" || string(got[0].ToolInput) != `{"key":"secret"}` {
		t.Fatalf("hook requests = %#v", got)
	}
	mustContain(t, conversation(t, s), "Blocked by hook: not allowed here")
}

func TestHookHandlerErrorDoesNotBlock(t *testing.T) {
	rt := newRuntime(t, scripted(toolTurn("k"), ScriptedTurn{Deltas: []string{"Done."}}))
	err := rt.RegisterTool(lookupTool(), func(ctx context.Context, call ToolCall) (any, error) { return "tool ran", nil })
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, rt, SessionConfig{
		Hooks: Hooks{"PreToolUse": {{Hooks: []HookDefinition{HostHook()}}}},
		OnHook: func(ctx context.Context, req HookRequest) (HookResult, error) {
			panic("hook bug")
		},
	})
	if _, err := s.Run(testCtx(t), "go"); err != nil {
		t.Fatal(err)
	}
	mustContain(t, conversation(t, s), `"content":"tool ran"`)
}

func isStatus(err error, target error) bool {
	e, ok := err.(*Error)
	return ok && e.Is(target)
}

func TestHostCommandAnsweredFromEvents(t *testing.T) {
	rt := newRuntime(t, scripted(ScriptedTurn{Text: "shipping"}))
	s := newSession(t, rt, SessionConfig{Tools: []string{},
		Commands: []HostCommand{{Name: "deploy", Description: "Ship it", ArgumentHint: "<env>"}}})
	help, err := s.Command("help", "")
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, help.Message, "Host commands:\n  /deploy — Ship it")
	events := s.Events()
	type out struct {
		res CommandResult
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := s.Command("deploy", "prod")
		done <- out{res, err}
	}()
	for ev := range events {
		if req, ok := ev.(CommandRequest); ok {
			if req.Name != "deploy" || req.Args != "prod" {
				t.Fatalf("request = %#v", req)
			}
			if err := s.RespondCommand(req.RequestID, CommandAnswer{Message: "Deployed prod."}); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	got := <-done
	if got.err != nil || !got.res.Success || got.res.Message != "Deployed prod." {
		t.Fatalf("command = %#v, %v", got.res, got.err)
	}
	// "/deploy" input: the answer's prompt becomes the turn.
	turn, err := s.Submit(testCtx(t), "/deploy")
	if err != nil {
		t.Fatal(err)
	}
	for ev := range events {
		if req, ok := ev.(CommandRequest); ok {
			if err := s.RespondCommand(req.RequestID, CommandAnswer{Prompt: "Ship it now."}); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	evs := collect(t, events, turn.ID())
	if done := find[TurnCompleted](evs); len(done) != 1 || done[0].Response != "shipping" {
		t.Fatalf("turn = %#v", done)
	}
	mustContain(t, conversation(t, s), "Ship it now.")
}

func TestOnCommandAnswersHostCommands(t *testing.T) {
	rt := newRuntime(t, scripted(ScriptedTurn{Text: "shipping"}))
	s := newSession(t, rt, SessionConfig{Tools: []string{},
		Commands: []HostCommand{{Name: "deploy", Description: "Ship it"}, {Name: "broken", Description: "Fails"}},
		OnCommand: func(ctx context.Context, req CommandRequest) (CommandAnswer, error) {
			switch {
			case req.Name == "broken":
				return CommandAnswer{}, errors.New("no target configured")
			case req.Args == "":
				return CommandAnswer{Prompt: "Ship it now."}, nil
			}
			return CommandAnswer{Message: "Deployed " + req.Args + "."}, nil
		}})
	res, err := s.CommandContext(testCtx(t), "deploy", "prod")
	if err != nil || !res.Success || res.Message != "Deployed prod." {
		t.Fatalf("deploy: %#v, %v", res, err)
	}
	res, err = s.Command("broken", "")
	if err != nil || res.Success || res.Message != "no target configured" {
		t.Fatalf("broken: %#v, %v", res, err)
	}
	// "/deploy" input: the handler's prompt becomes the turn.
	r, err := s.Run(testCtx(t), "/deploy")
	if err != nil || r.Response != "shipping" {
		t.Fatalf("turn: %#v, %v", r, err)
	}
	mustContain(t, conversation(t, s), "Ship it now.")
}
