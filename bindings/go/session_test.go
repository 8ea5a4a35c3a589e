package robota

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestSaveResumeFork(t *testing.T) {
	cfg := scripted(ScriptedTurn{Text: "first answer"})
	// A scripted profile takes no api_key (unknown keys are refused): the secret sits in a
	// second, unused profile the snapshot must not reveal either.
	cfg.Providers["h"] = ProviderConfig{Kind: "anthropic", APIKey: "sk-very-secret"}
	rt := newRuntime(t, cfg)
	s := newSession(t, rt, SessionConfig{SystemPrompt: "sys", Name: "demo"})
	if _, err := s.Run(testCtx(t), "q1"); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Save()
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, string(snap), `"kind":"robota.session"`)
	mustContain(t, string(snap), `"content":"first answer"`)
	if strings.Contains(string(snap), "sk-very-secret") {
		t.Fatal("the snapshot contains the API key")
	}
	r1, err := rt.Resume(ResumeConfig{Snapshot: snap})
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()
	if a, b := conversation(t, s), conversation(t, r1); a != b {
		t.Fatalf("resumed history differs:\n%s\n%s", a, b)
	}
	st, err := r1.State()
	if err != nil {
		t.Fatal(err)
	}
	st0, _ := s.State()
	if st.MessageCount != 1 || st.Name != "demo" || st.SessionID != st0.SessionID {
		t.Fatalf("resumed state = %#v", st)
	}
	// The resumed session continues the conversation (with a fresh scripted provider, which
	// starts its script again).
	if r, err := r1.Run(testCtx(t), "q2"); err != nil || r.Response != "first answer" {
		t.Fatalf("resumed run = %#v, %v", r, err)
	}
	if msgs, _ := r1.Messages(ViewConversation); len(msgs) != 5 || msgs[1].Content != "q1" || msgs[3].Content != "q2" {
		t.Fatalf("resumed conversation = %#v", msgs)
	}

	f, err := s.Fork(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if r, err := f.Run(testCtx(t), "only in fork"); err != nil || r.Response != "first answer" {
		t.Fatalf("fork run = %#v, %v", r, err)
	}
	if strings.Contains(conversation(t, s), "only in fork") {
		t.Fatal("the fork changed its parent")
	}
	fc := conversation(t, f)
	mustContain(t, fc, "only in fork")
	mustContain(t, fc, `"content":"first answer"`)
	fst, _ := f.State()
	if fst.SessionID == st0.SessionID || fst.SessionID == "" {
		t.Fatalf("fork id %q, parent %q", fst.SessionID, st0.SessionID)
	}

	_, err = rt.Resume(ResumeConfig{Snapshot: Snapshot(`{"kind":"other"}`)})
	if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), `snapshot: field "kind" must be "robota.session"`) {
		t.Fatalf("bad snapshot: %v", err)
	}
}

func TestCommandsAndState(t *testing.T) {
	rt := newRuntime(t, scripted())
	s := newSession(t, rt, SessionConfig{PermissionMode: ModePlan})
	st, err := s.State()
	if err != nil || st.PermissionMode != "plan" || st.Executing || st.Delivery != "thread" || st.Model != "m" {
		t.Fatalf("state = %#v, %v", st, err)
	}
	res, err := s.Command("mode", "acceptEdits")
	if err != nil || !res.Success {
		t.Fatalf("mode = %#v, %v", res, err)
	}
	if st, _ := s.State(); st.PermissionMode != "acceptEdits" {
		t.Fatalf("mode after command = %q", st.PermissionMode)
	}
	if err := s.WaitIdle(0); err != nil {
		t.Fatalf("WaitIdle on an idle session: %v", err)
	}
	if _, err := s.Command("no-such-command", ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown command: %v", err)
	}
}

func TestMisuse(t *testing.T) {
	_, err := NewRuntime(RuntimeConfig{Providers: map[string]ProviderConfig{"x": {Kind: "telepathy"}}})
	var re *Error
	if !errors.As(err, &re) || re.Status != StatusInvalidConfig || !strings.Contains(re.Message, `unknown kind "telepathy"`) {
		t.Fatalf("bad kind: %#v", err)
	}
	if re.Op != "NewRuntime" || !strings.HasPrefix(err.Error(), "robota: NewRuntime: ") {
		t.Fatalf("error text %q", err.Error())
	}
	rt := newRuntime(t, scripted(ScriptedTurn{Deltas: []string{"slow"}, Hang: true}))
	if _, err := rt.NewSession(SessionConfig{Provider: "nope", Model: "m"}); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `unknown provider "nope"`) {
		t.Fatalf("unknown provider: %v", err)
	}
	if err := rt.RegisterTool(lookupTool(), nil); !errors.Is(err, ErrNullArg) || !strings.Contains(err.Error(), "handler is nil") {
		t.Fatalf("nil handler: %v", err)
	}
	h := func(ctx context.Context, call ToolCall) (any, error) { return nil, nil }
	if err := rt.RegisterTool(lookupTool(), h); err != nil {
		t.Fatal(err)
	}
	if err := rt.RegisterTool(lookupTool(), h); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), `tool "lookup" is already registered`) {
		t.Fatalf("duplicate tool: %v", err)
	}

	s := newSession(t, rt, SessionConfig{})
	// One running turn, one queued, a third is refused.
	t1, err := s.Submit(testCtx(t), "one")
	if err != nil {
		t.Fatal(err)
	}
	t2, err := s.Submit(testCtx(t), "two")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Submit(testCtx(t), "three"); !errors.Is(err, ErrBusy) {
		t.Fatalf("third submit: %v", err)
	}
	if _, err := s.Dispatch(1, 0); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("Dispatch in thread mode: %v", err)
	}
	if _, err := s.NextEvent(0); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("NextEvent in thread mode: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, turn := range []*Turn{t1, t2} {
		if r, err := turn.Wait(testCtx(t)); !errors.Is(err, ErrAborted) || r.StopReason != StopAborted {
			t.Fatalf("turn %d after close: %#v, %v", turn.ID(), r, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("double close: %v", err)
	}
	if _, err := s.Submit(context.Background(), "late"); !errors.Is(err, ErrClosed) {
		t.Fatalf("submit after close: %v", err)
	}
	if _, err := s.State(); !errors.Is(err, ErrClosed) {
		t.Fatalf("state after close: %v", err)
	}
	if err := s.Abort(); !errors.Is(err, ErrClosed) {
		t.Fatalf("abort after close: %v", err)
	}
	if _, err := s.Fork(Overrides{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("fork after close: %v", err)
	}
	if _, ok := <-s.Events(); ok {
		t.Fatal("events of a closed session must be closed")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s2 := newSession(t, rt, SessionConfig{})
	if _, err := s2.Submit(ctx, "x"); !errors.Is(err, context.Canceled) {
		t.Fatalf("submit with a cancelled context: %v", err)
	}
	if _, err := s2.Submit(context.Background(), "x"); err != nil {
		t.Fatal(err)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rt.Close(); err != nil {
		t.Fatalf("double runtime close: %v", err)
	}
	if _, err := rt.NewSession(SessionConfig{Provider: "s", Model: "m"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("session of a closed runtime: %v", err)
	}
	// The session keeps its runtime alive after rt.Close.
	if st, err := s2.State(); err != nil || !st.Executing {
		t.Fatalf("state with runtime closed: %#v, %v", st, err)
	}
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestVersionAndABI(t *testing.T) {
	if err := CheckABI(); err != nil {
		t.Fatal(err)
	}
	if ABIVersion()>>16 != 1 || Version() == "" {
		t.Fatalf("abi %#x version %q", ABIVersion(), Version())
	}
	if StatusBusy.String() == "" || !strings.Contains(ErrBusy.Error(), "busy") {
		t.Fatalf("status text %q", ErrBusy.Error())
	}
}

// A resumed or forked session gets the delivery the binding asked for (default thread, a
// fork inherits its parent's), never a different one from the snapshot.
func TestResumeAndForkStateTheirDelivery(t *testing.T) {
	rt := newRuntime(t, scripted())
	p := newSession(t, rt, SessionConfig{Delivery: DeliveryPull})
	snap, err := p.Save()
	if err != nil {
		t.Fatal(err)
	}
	r, err := rt.Resume(ResumeConfig{Snapshot: snap})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := p.Fork(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs, _ := r.State()
	fs, _ := f.State()
	if rs.Delivery != "thread" || fs.Delivery != "pull" {
		t.Fatalf("resumed %q, forked %q; want thread, pull", rs.Delivery, fs.Delivery)
	}
	if res, err := r.Run(testCtx(t), "x"); err != nil || res.Response != "offline:x" {
		t.Fatalf("run on the resumed session: %#v, %v", res, err)
	}
}
