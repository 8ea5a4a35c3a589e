package main

import (
	"fmt"
	"reflect"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Two service processes share one PostgreSQL and one fake model server; every test session
// id is new (the database may outlive a run).

func runID() string { return fmt.Sprintf("%d", time.Now().UnixNano()) }

func mustEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got  %q\n want %q", what, got, want)
	}
}

// history is a conversation's lines: prompts and answers alternating, then the next prompt
// (when given).
func history(pairs [][2]string, next string) []string {
	out := []string{}
	for _, p := range pairs {
		out = append(out, "user: "+p[0], "assistant: "+p[1])
	}
	if next != "" {
		out = append(out, "user: "+next)
	}
	return out
}

// Turns of one session alternate between the nodes (A, B, A) and each model request carries
// the whole history so far: each node resumed what the other saved.
func TestTurnsAlternateBetweenNodesWithTheWholeHistory(t *testing.T) {
	dsn := postgresDSN(t)
	f := startFakeModel(t)
	cwd := t.TempDir()
	a, b := startNode(t, "A", dsn, f.baseURL, cwd), startNode(t, "B", dsn, f.baseURL, cwd)
	id := "alternate-" + runID()

	var done [][2]string
	for i, n := range []*node{a, b, a} {
		prompt, answer := fmt.Sprintf("question %d", i+1), fmt.Sprintf("answer %d from %s", i+1, n.name)
		f.answer(t, []string{answer[:4], answer[4:]}, nil)
		mustEqual(t, "streamed text", runTurn(t, n, id, prompt), answer)
		convs := f.conversations(t)
		if len(convs) != i+1 {
			t.Fatalf("%d model requests after turn %d", len(convs), i+1)
		}
		mustEqual(t, fmt.Sprintf("messages of turn %d's request (node %s)", i+1, n.name), convs[i], history(done, prompt))
		done = append(done, [2]string{prompt, answer})
		version, msgs := stored(t, dsn, id)
		mustEqual(t, "stored version", version, uint64(i+1))
		mustEqual(t, "stored messages", msgs, history(done, ""))
	}
}

// Both nodes advance the same session from the same version: one turn commits, the other
// ends with a CONFLICT error event, and the store holds the winner's history.
func TestConcurrentTurnsOnTwoNodesGiveOneConflict(t *testing.T) {
	dsn := postgresDSN(t)
	f := startFakeModel(t)
	cwd := t.TempDir()
	a, b := startNode(t, "A", dsn, f.baseURL, cwd), startNode(t, "B", dsn, f.baseURL, cwd)
	concurrentTurns(t, dsn, f, a, b)
}

// Two requests for one session on the same node are two sessions loaded from the store: the
// same outcome as on two nodes.
func TestConcurrentTurnsOnOneNodeGiveOneConflict(t *testing.T) {
	dsn := postgresDSN(t)
	f := startFakeModel(t)
	a := startNode(t, "A", dsn, f.baseURL, t.TempDir())
	concurrentTurns(t, dsn, f, a, a)
}

func concurrentTurns(t *testing.T, dsn string, f *fakeModel, a, b *node) {
	t.Helper()
	id := "race-" + runID()
	f.answer(t, []string{"first"}, nil)
	runTurn(t, a, id, "hello") // version 1

	// Both answers take several seconds (a delay before each frame): both turns load
	// version 1 (their response headers arrived) long before either can save.
	slow := map[string]any{"delay_ms": 500}
	f.answer(t, []string{"one ", "answer"}, slow)
	f.answer(t, []string{"another ", "answer"}, slow)
	streams := []*turnStream{postTurn(t, a, id, "from A")}
	streams = append(streams, postTurn(t, b, id, "from B"))
	type outcome struct {
		text  string
		final sseEvent
		err   error
	}
	outcomes := make([]outcome, 2)
	var wg sync.WaitGroup
	for i, s := range streams {
		wg.Add(1)
		go func(i int, s *turnStream) {
			defer wg.Done()
			text, final, err := s.finish()
			outcomes[i] = outcome{text, final, err}
		}(i, s)
	}
	wg.Wait()

	won, lost := -1, -1
	for i, o := range outcomes {
		if o.err != nil {
			t.Fatalf("node %d: %v", i, o.err)
		}
		switch {
		case o.final.Name == "done":
			won = i
		case o.final.Name == "error" && o.final.Data["code"] == "CONFLICT":
			lost = i
		}
	}
	if won < 0 || lost < 0 {
		t.Fatalf("want one done and one CONFLICT error, got %+v and %+v", outcomes[0].final, outcomes[1].final)
	}
	convs := f.conversations(t)
	if len(convs) != 3 {
		t.Fatalf("%d model requests, want 3", len(convs))
	}
	base := [][2]string{{"hello", "first"}}
	prompts := []string{"from A", "from B"}
	// Both requests carried version 1's history (in either order of arrival).
	for _, c := range convs[1:] {
		if !reflect.DeepEqual(c, history(base, prompts[0])) && !reflect.DeepEqual(c, history(base, prompts[1])) {
			t.Fatalf("a concurrent request carried %q, not version 1's history", c)
		}
	}
	version, msgs := stored(t, dsn, id)
	mustEqual(t, "stored version", version, uint64(2))
	mustEqual(t, "stored messages", msgs, history(append(base, [2]string{prompts[won], outcomes[won].text}), ""))
	if outcomes[lost].text == outcomes[won].text {
		t.Fatalf("both nodes streamed %q", outcomes[won].text)
	}

	// The loser's node resumes the winner's version and goes on.
	f.answer(t, []string{"after the race"}, nil)
	runTurn(t, []*node{a, b}[lost], id, "again")
	version, msgs = stored(t, dsn, id)
	mustEqual(t, "stored version", version, uint64(3))
	mustEqual(t, "stored messages", msgs, history(append(base, [2]string{prompts[won], outcomes[won].text}, [2]string{"again", "after the race"}), ""))
}

// A node killed (SIGKILL) while its turn waits at the model leaves the committed version
// intact, and the other node continues from it.
func TestKilledNodeLosesNoCommittedTurn(t *testing.T) {
	dsn := postgresDSN(t)
	f := startFakeModel(t)
	cwd := t.TempDir()
	a, b := startNode(t, "A", dsn, f.baseURL, cwd), startNode(t, "B", dsn, f.baseURL, cwd)
	id := "killed-" + runID()
	f.answer(t, []string{"one"}, nil)
	runTurn(t, a, id, "first")
	f.answer(t, []string{"two"}, nil)
	runTurn(t, b, id, "second")
	committed := history([][2]string{{"first", "one"}, {"second", "two"}}, "")
	version, msgs := stored(t, dsn, id)
	mustEqual(t, "stored version", version, uint64(2))
	mustEqual(t, "stored messages", msgs, committed)

	// A's answer streams one text frame, then never ends: A is mid-turn once that text
	// arrives.
	f.answer(t, []string{"partial ", "never"}, map[string]any{"hang_after": 2})
	s := postTurn(t, a, id, "lost")
	ev, err := s.next()
	if err != nil || ev.Name != "text" || ev.Data["text"] != "partial " {
		t.Fatalf("first event of the hanging turn: %+v, %v", ev, err)
	}
	a.kill(t)
	if _, _, err := s.finish(); err == nil {
		t.Fatal("the killed node's stream ended with a final event")
	}
	version, msgs = stored(t, dsn, id)
	mustEqual(t, "stored version after the kill", version, uint64(2))
	mustEqual(t, "stored messages after the kill", msgs, committed)

	f.answer(t, []string{"three"}, nil)
	runTurn(t, b, id, "third")
	convs := f.conversations(t)
	mustEqual(t, "messages of B's request after the kill", convs[len(convs)-1], append(committed, "user: third"))
	version, msgs = stored(t, dsn, id)
	mustEqual(t, "stored version", version, uint64(3))
	mustEqual(t, "stored messages", msgs, append(committed, "user: third", "assistant: three"))
}

// SIGTERM stops a node gracefully: the turn it is streaming finishes and is saved, then the
// process exits 0.
func TestSIGTERMLetsTheRunningTurnFinish(t *testing.T) {
	dsn := postgresDSN(t)
	f := startFakeModel(t)
	a := startNode(t, "A", dsn, f.baseURL, t.TempDir())
	id := "term-" + runID()
	f.answer(t, []string{"slow ", "answer"}, map[string]any{"delay_ms": 300})
	s := postTurn(t, a, id, "take your time")
	if ev, err := s.next(); err != nil || ev.Name != "text" || ev.Data["text"] != "slow " {
		t.Fatalf("first event: %+v, %v", ev, err)
	}
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	text, final, err := s.finish()
	if err != nil || final.Name != "done" || text != "answer" || final.Data["response"] != "slow answer" {
		t.Fatalf("after SIGTERM: %q %+v %v", text, final, err)
	}
	if err := a.cmd.Wait(); err != nil {
		t.Fatalf("the node exited with %v", err)
	}
	version, msgs := stored(t, dsn, id)
	mustEqual(t, "stored version", version, uint64(1))
	mustEqual(t, "stored messages", msgs, history([][2]string{{"take your time", "slow answer"}}, ""))
}
