package robota

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// goid is the id of the calling goroutine. A callback the library makes on a thread that is
// inside a cgo call runs on the goroutine that made the call, so equal ids mean "on the
// calling thread, during the call".
func goid() uint64 {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	f := strings.Fields(string(buf)) // "goroutine 42 [running]: ..."
	id, _ := strconv.ParseUint(f[1], 10, 64)
	return id
}

// seenCallback is one callback of a session: its kind (KindToolCall for a tool call) and the
// goroutine it ran on.
type seenCallback struct {
	kind EventKind
	g    uint64
}

// callbackLog records the callbacks of one session (callbackHook) until the test ends.
type callbackLog struct {
	mu   sync.Mutex
	seen []seenCallback
}

func watchCallbacks(t *testing.T, s *Session) *callbackLog {
	l := &callbackLog{}
	h := func(c *sessionCore, kind EventKind) {
		if c != s.core {
			return
		}
		g := goid()
		l.mu.Lock()
		l.seen = append(l.seen, seenCallback{kind, g})
		l.mu.Unlock()
	}
	callbackHook.Store(&h)
	t.Cleanup(func() { callbackHook.Store(nil) })
	return l
}

func (l *callbackLog) snapshot() []seenCallback {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]seenCallback(nil), l.seen...)
}

// eventKinds are the kinds of the recorded event callbacks (tool calls left out).
func eventKinds(seen []seenCallback) []string {
	var k []string
	for _, c := range seen {
		if c.kind != KindToolCall {
			k = append(k, c.kind.String())
		}
	}
	return k
}

// toolRuntime is a scripted model that calls lookup, then streams "Do", "ne." with usage.
func toolRuntime(t *testing.T) *Runtime {
	first := toolTurn("k")
	first.Usage = &ScriptedUsage{InputTokens: 11, OutputTokens: 3}
	rt := newRuntime(t, scripted(first, ScriptedTurn{Deltas: []string{"Do", "ne."}, Usage: &ScriptedUsage{InputTokens: 20, OutputTokens: 2}}))
	err := rt.RegisterTool(lookupTool(), func(ctx context.Context, call ToolCall) (any, error) {
		var in struct{ Key string }
		if err := call.Decode(&in); err != nil {
			return nil, err
		}
		return "value of " + in.Key, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// Drive returns what Run returns for the same scripted turn with a host tool, every event of
// the turn was delivered before it returned, and with inline delivery every event and tool
// callback ran on the calling thread (thread delivery keeps its library threads).
func TestDriveMatchesRun(t *testing.T) {
	for _, d := range []Delivery{DeliveryThread, DeliveryInline} {
		t.Run(string(d), func(t *testing.T) {
			s := newSession(t, toolRuntime(t), SessionConfig{Delivery: d})
			events := s.Events()
			want, err := s.Run(testCtx(t), "look k up")
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			wantKinds := kinds(collect(t, events, want.TurnID))

			s = newSession(t, toolRuntime(t), SessionConfig{Delivery: d})
			events = s.Events()
			log := watchCallbacks(t, s)
			me := goid()
			got, err := s.Drive(testCtx(t), "look k up")
			seen := log.snapshot() // what the callbacks saw before Drive returned
			if err != nil {
				t.Fatalf("Drive: %v", err)
			}
			if got.TurnID != 1 || got.Response != "Done." || got.StopReason != StopComplete {
				t.Fatalf("Drive = %#v", got)
			}
			if got.Usage == nil || *got.Usage != (Usage{InputTokens: 31, OutputTokens: 5, TotalTokens: 36}) {
				t.Fatalf("usage %#v", got.Usage)
			}
			if len(got.ToolSummaries) != 1 || got.ToolSummaries[0].Name != "lookup" || string(got.ToolSummaries[0].Args) != `{"key":"k"}` {
				t.Fatalf("tool summaries %#v", got.ToolSummaries)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Drive = %#v\nRun   = %#v", got, want)
			}
			mustContain(t, conversation(t, s), `"role":"tool","content":"value of k"`)

			// Every event of the turn had reached the binding when Drive returned.
			if strings.Join(eventKinds(seen), ",") != strings.Join(wantKinds, ",") {
				t.Fatalf("callbacks before Drive returned %v\nRun's events %v", eventKinds(seen), wantKinds)
			}
			if gotKinds := kinds(collect(t, events, got.TurnID)); strings.Join(gotKinds, ",") != strings.Join(wantKinds, ",") {
				t.Fatalf("Events() %v, want %v", gotKinds, wantKinds)
			}
			tools := 0
			for _, c := range seen {
				if c.kind == KindToolCall {
					tools++
				}
				if onCaller := c.g == me; onCaller != (d == DeliveryInline) {
					t.Fatalf("%s callback on the calling goroutine: %v (delivery %s)", c.kind, onCaller, d)
				}
			}
			if tools != 1 {
				t.Fatalf("%d tool callbacks, want 1", tools)
			}

			// The session goes on: Run after Drive, then Drive again.
			if r, err := s.Run(testCtx(t), "next"); err != nil || r.TurnID != 2 || r.Response != "offline:next" {
				t.Fatalf("Run after Drive = %#v, %v", r, err)
			}
			if r, err := s.Drive(testCtx(t), "last"); err != nil || r.TurnID != 3 || r.Response != "offline:last" || r.StopReason != StopComplete {
				t.Fatalf("second Drive = %#v, %v", r, err)
			}
		})
	}
}

// An HTTP turn with a host tool, driven on the calling thread against the fake model server
// (streaming, the tool's answer sent back), twice on the same session.
func TestDriveHTTPAgainstFakeServer(t *testing.T) {
	f := startFakeServer(t)
	for i := 0; i < 2; i++ {
		f.do(t, map[string]any{"cmd": "enqueue", "kind": "openai", "text": []string{"Hel", "lo"},
			"tools": [][]string{{"call_1", "lookup", `{"key":"h"}`}}, "usage": []int{10, 5}})
		f.do(t, map[string]any{"cmd": "enqueue", "kind": "openai", "text": []string{"Found ", "it."}, "usage": []int{20, 4}})
	}
	rt := httpRuntime(t, f, "openai-compatible", f.BaseURL+"/v1")
	err := rt.RegisterTool(ToolDef{Name: "lookup", Description: "d", ReadOnly: true}, func(ctx context.Context, call ToolCall) (any, error) {
		return map[string]bool{"found": string(call.Arguments) == `{"key":"h"}`}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, rt, SessionConfig{Provider: "fake", Model: "gpt-test", Delivery: DeliveryInline})
	events := s.Events()
	for turn := uint64(1); turn <= 2; turn++ {
		r, err := s.Drive(testCtx(t), "find h")
		if err != nil || r.TurnID != turn || r.Response != "Found it." || r.StopReason != StopComplete {
			t.Fatalf("Drive %d = %#v, %v", turn, r, err)
		}
		if r.Usage == nil || r.Usage.InputTokens != 30 || r.Usage.OutputTokens != 9 {
			t.Fatalf("usage %#v", r.Usage)
		}
		var text strings.Builder
		for _, d := range find[TextDelta](collect(t, events, turn)) {
			text.WriteString(d.Text)
		}
		if text.String() != "Hello\n\nFound it." {
			t.Fatalf("streamed %q", text.String())
		}
	}
	var reqs []struct {
		Path string          `json:"path"`
		Body json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(f.do(t, map[string]any{"cmd": "requests"}), &reqs); err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	for _, i := range []int{1, 3} {
		if reqs[i].Path != "/v1/chat/completions" || !strings.Contains(string(reqs[i].Body), `"content":"{\"found\":true}"`) {
			t.Fatalf("request %d = %s %s", i, reqs[i].Path, reqs[i].Body)
		}
	}
}

// driveAsync runs Drive on a new goroutine.
func driveAsync(ctx context.Context, s *Session, text string) <-chan driven {
	out := make(chan driven, 1)
	go func() {
		r, err := s.Drive(ctx, text)
		out <- driven{r, err}
	}()
	return out
}

type driven struct {
	r   Result
	err error
}

// awaitDelta reads events until a TextDelta, which must be want.
func awaitDelta(t *testing.T, events <-chan Event, want string) {
	t.Helper()
	for ev := range events {
		if d, ok := ev.(TextDelta); ok {
			if d.Text != want {
				t.Fatalf("delta %q, want %q", d.Text, want)
			}
			return
		}
	}
	t.Fatal("events closed")
}

// Cancelling Drive's context, or Session.Abort from another goroutine, aborts the driven turn
// mid-stream (on both deliveries); the session then goes on.
func TestDriveAbort(t *testing.T) {
	for _, d := range []Delivery{DeliveryThread, DeliveryInline} {
		t.Run(string(d), func(t *testing.T) {
			rt := newRuntime(t, scripted(
				ScriptedTurn{Deltas: []string{"partial"}, Hang: true},
				ScriptedTurn{Deltas: []string{"again"}, Hang: true},
			))
			s := newSession(t, rt, SessionConfig{Delivery: d})
			events := s.Events()

			ctx, cancel := context.WithCancel(testCtx(t))
			defer cancel()
			res := driveAsync(ctx, s, "one")
			awaitDelta(t, events, "partial")
			cancel()
			o := recv(t, res)
			if !errors.Is(o.err, context.Canceled) || o.r.TurnID != 1 || o.r.StopReason != StopAborted || o.r.Response != "partial" {
				t.Fatalf("cancelled Drive = %#v, %v", o.r, o.err)
			}

			res = driveAsync(testCtx(t), s, "two")
			awaitDelta(t, events, "again")
			if err := s.Abort(); err != nil {
				t.Fatal(err)
			}
			o = recv(t, res)
			var e *Error
			if !errors.Is(o.err, ErrAborted) || !errors.As(o.err, &e) || e.Op != "Drive" || e.Message != "turn 2 was aborted" {
				t.Fatalf("aborted Drive error = %#v", o.err)
			}
			if o.r.TurnID != 2 || o.r.StopReason != StopAborted || o.r.Response != "again" {
				t.Fatalf("aborted Drive = %#v", o.r)
			}
			msgs, err := s.Messages(ViewConversation)
			if err != nil || len(msgs) != 4 || msgs[1].Content != "partial" || msgs[1].State != "interrupted" {
				t.Fatalf("conversation %#v, %v", msgs, err)
			}
			if r, err := s.Drive(testCtx(t), "three"); err != nil || r.TurnID != 3 || r.Response != "offline:three" {
				t.Fatalf("Drive after the aborts = %#v, %v", r, err)
			}
		})
	}
}

// blockingTool registers lookup, whose calls report their key on called and answer once
// release is closed.
func blockingTool(t *testing.T, rt *Runtime) (called <-chan string, release chan struct{}) {
	ch := make(chan string, 4)
	release = make(chan struct{})
	err := rt.RegisterTool(lookupTool(), func(ctx context.Context, call ToolCall) (any, error) {
		var in struct{ Key string }
		_ = call.Decode(&in)
		ch <- in.Key
		select {
		case <-release:
			return "value of " + in.Key, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return ch, release
}

// awaitQueued waits until the session shows a queued prompt (the state changes when the
// other goroutine's call queues it; nothing to receive meanwhile, so it yields).
func awaitQueued(t *testing.T, s *Session) uint64 {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for time.Now().Before(deadline) {
		st, err := s.State()
		if err != nil {
			t.Fatal(err)
		}
		if st.QueuedTurn != 0 {
			return st.QueuedTurn
		}
		runtime.Gosched()
	}
	t.Fatal("no prompt was queued")
	return 0
}

// While a turn runs: a Drive while a prompt is queued is refused with ErrBusy; a Drive is
// queued, and cancelling its context while it waits drops only it (the running turn goes on);
// a queued Drive returns after its own turn. After Close, Drive fails with ErrClosed.
func TestDriveQueuedBusyAndClosed(t *testing.T) {
	rt := newRuntime(t, scripted(toolTurn("a"), ScriptedTurn{Text: "first done"}))
	called, release := blockingTool(t, rt)
	s := newSession(t, rt, SessionConfig{})
	first, err := s.Submit(testCtx(t), "first")
	if err != nil {
		t.Fatal(err)
	}
	if key := recv(t, called); key != "a" {
		t.Fatalf("tool key %q", key)
	}
	busy := func(what string) {
		t.Helper()
		var e *Error
		if r, err := s.Drive(testCtx(t), "refused"); !errors.As(err, &e) || e.Status != StatusBusy || e.Op != "Drive" || !reflect.DeepEqual(r, Result{}) {
			t.Fatalf("Drive with %s queued = %#v, %v", what, r, err)
		}
	}

	queued, err := s.Submit(testCtx(t), "queued") // turn 2
	if err != nil {
		t.Fatal(err)
	}
	busy("a submitted prompt")
	if err := queued.Abort(); err != nil {
		t.Fatal(err)
	}
	if r, err := queued.Wait(testCtx(t)); !errors.Is(err, ErrAborted) || r.TurnID != 2 {
		t.Fatalf("dropped prompt = %#v, %v", r, err)
	}

	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	res := driveAsync(ctx, s, "queued then cancelled")
	if q := awaitQueued(t, s); q != 3 { // refused calls issue no turn id
		t.Fatalf("queued turn %d, want 3", q)
	}
	busy("a driven prompt")
	cancel()
	o := recv(t, res)
	if !errors.Is(o.err, context.Canceled) || o.r.TurnID != 3 || o.r.StopReason != StopAborted {
		t.Fatalf("Drive cancelled in the queue = %#v, %v", o.r, o.err)
	}
	if st, err := s.State(); err != nil || st.CurrentTurn != 1 || st.QueuedTurn != 0 {
		t.Fatalf("state %#v, %v", st, err)
	}

	res = driveAsync(testCtx(t), s, "after first")
	if q := awaitQueued(t, s); q != 4 {
		t.Fatalf("queued turn %d, want 4", q)
	}
	close(release)
	if r, err := first.Wait(testCtx(t)); err != nil || r.Response != "first done" {
		t.Fatalf("first turn = %#v, %v", r, err)
	}
	o = recv(t, res)
	if o.err != nil || o.r.TurnID != 4 || o.r.Response != "offline:after first" || o.r.StopReason != StopComplete {
		t.Fatalf("queued Drive = %#v, %v", o.r, o.err)
	}

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Drive(testCtx(t), "late"); !errors.Is(err, ErrClosed) || !reflect.DeepEqual(r, Result{}) {
		t.Fatalf("Drive after Close = %#v, %v", r, err)
	}
	done, stop := context.WithCancel(context.Background())
	stop()
	if _, err := s.Drive(done, "x"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Drive with a cancelled context: %v", err)
	}
}

// Two Drives at once on one session: the second waits in the queue and each returns its own
// turn's result.
func TestConcurrentDrives(t *testing.T) {
	rt := newRuntime(t, scripted(toolTurn("a"), ScriptedTurn{Text: "first done"}))
	called, release := blockingTool(t, rt)
	s := newSession(t, rt, SessionConfig{Delivery: DeliveryInline})
	one := driveAsync(testCtx(t), s, "one")
	recv(t, called)
	two := driveAsync(testCtx(t), s, "two")
	awaitQueued(t, s)
	close(release)
	if o := recv(t, one); o.err != nil || o.r.TurnID != 1 || o.r.Response != "first done" {
		t.Fatalf("first Drive = %#v, %v", o.r, o.err)
	}
	if o := recv(t, two); o.err != nil || o.r.TurnID != 2 || o.r.Response != "offline:two" {
		t.Fatalf("second Drive = %#v, %v", o.r, o.err)
	}
}

// A failed turn gives the *Error that Run gives: StatusProvider, the library's message and
// the taxonomy; scripted and over HTTP.
func TestDriveProviderFailure(t *testing.T) {
	failing := func() *Session {
		rt := newRuntime(t, scripted(ScriptedTurn{Error: &ScriptedError{Kind: "provider", Message: "boom"}}))
		return newSession(t, rt, SessionConfig{Delivery: DeliveryInline})
	}
	want, wantErr := failing().Run(testCtx(t), "x")
	got, err := failing().Drive(testCtx(t), "x")
	var we, ge *Error
	if !errors.As(wantErr, &we) || !errors.As(err, &ge) || !errors.Is(err, ErrProvider) {
		t.Fatalf("Run error %#v, Drive error %#v", wantErr, err)
	}
	if ge.Op != "Drive" || ge.Status != StatusProvider || ge.Message != we.Message || !strings.Contains(ge.Message, "boom") {
		t.Fatalf("Drive error %#v, Run error %#v", ge, we)
	}
	if ge.Code != "PROVIDER_ERROR" || ge.Category != "provider" || !ge.Recoverable {
		t.Fatalf("taxonomy = %q %q %v", ge.Code, ge.Category, ge.Recoverable)
	}
	if got.StopReason != StopError || !reflect.DeepEqual(got, want) {
		t.Fatalf("Drive = %#v\nRun   = %#v", got, want)
	}

	f := startFakeServer(t)
	rt := httpRuntime(t, f, "anthropic", f.BaseURL)
	s := newSession(t, rt, SessionConfig{Provider: "fake", Model: "claude-test", Delivery: DeliveryInline})
	f.do(t, map[string]any{"cmd": "enqueue_error", "status": 500, "body": `{"type":"error","error":{"type":"api_error","message":"overloaded here"}}`})
	r, err := s.Drive(testCtx(t), "fails")
	if !errors.As(err, &ge) || ge.Status != StatusProvider || !strings.Contains(ge.Message, "overloaded here") || ge.Code == "" {
		t.Fatalf("HTTP failure error %#v", err)
	}
	if r.TurnID != 1 || r.StopReason != StopError {
		t.Fatalf("HTTP failure result %#v", r)
	}
	f.do(t, map[string]any{"cmd": "enqueue", "kind": "anthropic", "text": []string{"ok"}})
	if r, err := s.Drive(testCtx(t), "works"); err != nil || r.TurnID != 2 || r.Response != "ok" {
		t.Fatalf("Drive after the failure = %#v, %v", r, err)
	}
}

// With pump or pull delivery the turn's events (its tool call too) flow through the host's
// Dispatch or NextEvent on another goroutine; Drive returns once that routed TurnCompleted.
func TestDrivePumpAndPull(t *testing.T) {
	for _, d := range []Delivery{DeliveryPump, DeliveryPull} {
		t.Run(string(d), func(t *testing.T) {
			s := newSession(t, toolRuntime(t), SessionConfig{Delivery: d})
			stop := make(chan struct{})
			dispatched := make(chan []string, 1)
			go func() {
				runtime.LockOSThread() // like a UI loop
				defer runtime.UnlockOSThread()
				var seen []string
				defer func() { dispatched <- seen }()
				for {
					select {
					case <-stop:
						return
					default:
					}
					if d == DeliveryPump {
						if _, err := s.Dispatch(0, 50*time.Millisecond); err != nil {
							t.Errorf("Dispatch: %v", err)
							return
						}
						continue
					}
					ev, err := s.NextEvent(50 * time.Millisecond)
					if errors.Is(err, ErrTimeout) {
						continue
					}
					if err != nil {
						t.Errorf("NextEvent: %v", err)
						return
					}
					seen = append(seen, ev.Kind().String())
				}
			}()
			r, err := s.Drive(testCtx(t), "look k up")
			close(stop)
			seen := recv(t, dispatched)
			if err != nil || r.TurnID != 1 || r.Response != "Done." || r.StopReason != StopComplete {
				t.Fatalf("Drive = %#v, %v", r, err)
			}
			mustContain(t, conversation(t, s), `"role":"tool","content":"value of k"`)
			if d == DeliveryPull && (len(seen) == 0 || seen[0] != "turn_started" || seen[len(seen)-1] != "turn_completed") {
				t.Fatalf("pulled %v", seen)
			}
		})
	}
}
