package robota

import (
	"bytes"
	"context"
	"log"
	"os"
	"strings"
	"sync"
	"testing"
)

// eventLog is what a session's OnEvent saw: each event and the goroutine it ran on.
type eventLog struct {
	mu  sync.Mutex
	evs []Event
	gs  []uint64
}

func (l *eventLog) see(ev Event) {
	g := goid()
	l.mu.Lock()
	l.evs = append(l.evs, ev)
	l.gs = append(l.gs, g)
	l.mu.Unlock()
}

func (l *eventLog) snapshot() ([]Event, []uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.evs...), append([]uint64(nil), l.gs...)
}

// OnEvent sees every event of the turn, in the order Events() gets them, before Run or Drive
// returns; under Drive with inline delivery it runs on the goroutine calling Drive, under
// thread delivery on a library thread.
func TestOnEventSeesEveryEventBeforeTheTurnReturns(t *testing.T) {
	for _, c := range []struct {
		name     string
		delivery Delivery
		drive    bool
	}{{"Run thread", DeliveryThread, false}, {"Drive inline", DeliveryInline, true}} {
		t.Run(c.name, func(t *testing.T) {
			var seen eventLog
			s := newSession(t, toolRuntime(t), SessionConfig{Delivery: c.delivery, OnEvent: seen.see})
			events := s.Events()
			me := goid()
			var r Result
			var err error
			if c.drive {
				r, err = s.Drive(testCtx(t), "look k up")
			} else {
				r, err = s.Run(testCtx(t), "look k up")
			}
			evs, gs := seen.snapshot() // what OnEvent saw before the turn returned
			if err != nil || r.Response != "Done." {
				t.Fatalf("turn = %#v, %v", r, err)
			}
			want := kinds(collect(t, events, r.TurnID))
			if got := kinds(evs); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("OnEvent saw %v before the turn returned\nEvents() got %v", got, want)
			}
			if want[0] != "turn_started" || want[len(want)-1] != "turn_completed" || len(find[TextDelta](evs)) != 4 {
				t.Fatalf("unexpected turn %v", want)
			}
			for i, g := range gs {
				if onCaller := g == me; onCaller != c.drive {
					t.Fatalf("%s on the calling goroutine: %v", evs[i].Kind(), onCaller)
				}
			}
			var text strings.Builder
			for _, d := range find[TextDelta](evs) {
				text.WriteString(d.Text)
			}
			if text.String() != "Calling.\n\nDone." {
				t.Fatalf("OnEvent's deltas %q", text.String())
			}
		})
	}
}

// A panicking OnEvent is logged and loses nothing: the turn completes and Events() gets every
// event.
func TestOnEventPanicIsLoggedAndLosesNothing(t *testing.T) {
	var out bytes.Buffer
	var outMu sync.Mutex
	log.SetOutput(&lockedWriter{w: &out, mu: &outMu})
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	panicky := func(ev Event) {
		if _, ok := ev.(TextDelta); ok {
			panic("boom")
		}
	}
	s := newSession(t, toolRuntime(t), SessionConfig{OnEvent: panicky})
	events := s.Events()
	r, err := s.Run(testCtx(t), "look k up")
	if err != nil || r.Response != "Done." || r.StopReason != StopComplete {
		t.Fatalf("Run = %#v, %v", r, err)
	}
	if n := len(find[TextDelta](collect(t, events, r.TurnID))); n != 4 {
		t.Fatalf("Events() got %d text deltas, want 4", n)
	}
	outMu.Lock()
	logged := out.String()
	outMu.Unlock()
	if strings.Count(logged, "robota: OnEvent panicked on a text_delta event: boom") != 4 {
		t.Fatalf("log: %s", logged)
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// A fork keeps its parent's OnEvent unless its Overrides name another.
func TestForkInheritsOrReplacesOnEvent(t *testing.T) {
	rt := newRuntime(t, scripted(ScriptedTurn{Deltas: []string{"a"}}, ScriptedTurn{Deltas: []string{"b"}}, ScriptedTurn{Deltas: []string{"c"}}))
	var parent, other eventLog
	s := newSession(t, rt, SessionConfig{OnEvent: parent.see})
	if _, err := s.Run(testCtx(t), "one"); err != nil {
		t.Fatal(err)
	}
	inherit, err := s.Fork(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	defer inherit.Close()
	replace, err := s.Fork(Overrides{OnEvent: other.see})
	if err != nil {
		t.Fatal(err)
	}
	defer replace.Close()
	if _, err := inherit.Run(testCtx(t), "two"); err != nil {
		t.Fatal(err)
	}
	if _, err := replace.Run(testCtx(t), "three"); err != nil {
		t.Fatal(err)
	}
	prompts := func(l *eventLog) (p []string) {
		evs, _ := l.snapshot()
		for _, e := range find[TurnStarted](evs) {
			p = append(p, e.Input.Text)
		}
		return p
	}
	if got := prompts(&parent); strings.Join(got, ",") != "one,two" {
		t.Fatalf("the parent's OnEvent saw the turns %v, want the parent's and the inheriting fork's", got)
	}
	if got := prompts(&other); strings.Join(got, ",") != "three" {
		t.Fatalf("the replacing fork's OnEvent saw the turns %v", got)
	}
}

// An Inline tool runs on the thread that delivers its call (under Drive with inline delivery,
// the goroutine calling Drive), with the session's context; its answer, error or panic
// reaches the model as any tool's does.
func TestInlineToolRunsOnTheDeliveringThread(t *testing.T) {
	rt := newRuntime(t, scripted(toolTurn("k"), ScriptedTurn{Deltas: []string{"Done."}},
		toolTurn("boom"), ScriptedTurn{Deltas: []string{"Failed."}}))
	def := lookupTool()
	def.Inline = true
	var mu sync.Mutex
	var gs []uint64
	var ctxs []context.Context
	err := rt.RegisterTool(def, func(ctx context.Context, call ToolCall) (any, error) {
		mu.Lock()
		gs = append(gs, goid())
		ctxs = append(ctxs, ctx)
		mu.Unlock()
		var in struct{ Key string }
		if err := call.Decode(&in); err != nil {
			return nil, err
		}
		if in.Key == "boom" {
			panic("inline boom")
		}
		return "value of " + in.Key, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := rt.NewSession(SessionConfig{Provider: "s", Model: "m", Delivery: DeliveryInline})
	if err != nil {
		t.Fatal(err)
	}
	me := goid()
	if r, err := s.Drive(testCtx(t), "look k up"); err != nil || r.Response != "Done." {
		t.Fatalf("Drive = %#v, %v", r, err)
	}
	if r, err := s.Drive(testCtx(t), "look boom up"); err != nil || r.Response != "Failed." {
		t.Fatalf("Drive = %#v, %v", r, err)
	}
	conv := conversation(t, s)
	mustContain(t, conv, `"role":"tool","content":"value of k"`)
	mustContain(t, conv, `tool \"lookup\" panicked: inline boom`)
	mu.Lock()
	calls, ctx := append([]uint64(nil), gs...), ctxs[0]
	mu.Unlock()
	if len(calls) != 2 || calls[0] != me || calls[1] != me {
		t.Fatalf("the inline tool ran on goroutines %v, the caller is %d", calls, me)
	}
	if ctx.Err() != nil {
		t.Fatal("the inline tool's context ended before the session closed")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() == nil {
		t.Fatal("the inline tool's context did not end when the session closed")
	}
}
