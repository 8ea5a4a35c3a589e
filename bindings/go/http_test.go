package robota

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeServer drives the project's fake model server (examples/fake_model_server.rs, built by
// `cargo build --example fake_model_server`): one JSON command per line on stdin, one JSON
// answer per line on stdout.
type fakeServer struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	BaseURL string
}

func startFakeServer(t *testing.T) *fakeServer {
	t.Helper()
	path := os.Getenv("ROBOTA_FAKE_SERVER")
	if path == "" {
		path = filepath.Join("..", "..", "target", "debug", "examples", "fake_model_server")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("fake model server not found at %s (run `cargo build --example fake_model_server` at the repository root, or set ROBOTA_FAKE_SERVER): %v", path, err)
	}
	cmd := exec.Command(path)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f := &fakeServer{cmd: cmd, in: in, out: bufio.NewReader(outPipe)}
	t.Cleanup(func() {
		_ = in.Close() // the server exits when stdin closes
		_ = cmd.Wait()
	})
	var hello struct {
		BaseURL string `json:"base_url"`
	}
	f.read(t, &hello)
	f.BaseURL = hello.BaseURL
	return f
}

func (f *fakeServer) read(t *testing.T, v any) {
	t.Helper()
	line, err := f.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("fake server: %v", err)
	}
	if err := json.Unmarshal(line, v); err != nil {
		t.Fatalf("fake server said %q: %v", line, err)
	}
}

// do sends one command and fails the test unless it is acknowledged.
func (f *fakeServer) do(t *testing.T, cmd map[string]any) json.RawMessage {
	t.Helper()
	b, _ := json.Marshal(cmd)
	if _, err := f.in.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
	var ack map[string]json.RawMessage
	f.read(t, &ack)
	if string(ack["ok"]) != "true" {
		t.Fatalf("fake server refused %s: %s", b, ack["error"])
	}
	return ack["requests"]
}

func httpRuntime(t *testing.T, f *fakeServer, kind, base string) *Runtime {
	zero := 0
	return newRuntime(t, RuntimeConfig{Providers: map[string]ProviderConfig{
		"fake": {Kind: kind, BaseURL: base, APIKey: "test-key", MaxRetries: &zero, TimeoutMS: 30000},
	}})
}

func TestHTTPStreamingAndToolAgainstFakeServer(t *testing.T) {
	f := startFakeServer(t)
	f.do(t, map[string]any{"cmd": "enqueue", "kind": "openai", "text": []string{"Hel", "lo"},
		"tools": [][]string{{"call_1", "lookup", `{"key":"h"}`}}, "usage": []int{10, 5}})
	f.do(t, map[string]any{"cmd": "enqueue", "kind": "openai", "text": []string{"Found ", "it."}})
	rt := httpRuntime(t, f, "openai-compatible", f.BaseURL+"/v1")
	err := rt.RegisterTool(ToolDef{Name: "lookup", Description: "d", ReadOnly: true}, func(ctx context.Context, call ToolCall) (any, error) {
		return map[string]bool{"found": string(call.Arguments) == `{"key":"h"}`}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, rt, SessionConfig{Provider: "fake", Model: "gpt-test"})
	events := s.Events()
	turn, err := s.Submit(testCtx(t), "find h")
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, events, turn.ID())
	var text strings.Builder
	for _, d := range find[TextDelta](evs) {
		text.WriteString(d.Text)
	}
	if text.String() != "Hello\n\nFound it." {
		t.Fatalf("streamed %q", text.String())
	}
	r, err := turn.Wait(testCtx(t))
	if err != nil || r.Response != "Found it." {
		t.Fatalf("result %#v, %v", r, err)
	}
	mustContain(t, conversation(t, s), `"role":"tool","content":"{\"found\":true}"`)
	// The second request carried the tool result to the server.
	var reqs []struct {
		Path string          `json:"path"`
		Body json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(f.do(t, map[string]any{"cmd": "requests"}), &reqs); err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || reqs[1].Path != "/v1/chat/completions" || !strings.Contains(string(reqs[1].Body), `"content":"{\"found\":true}"`) {
		t.Fatalf("requests = %#v", reqs)
	}
}

func TestHTTPContextCancelMidStreamAgainstFakeServer(t *testing.T) {
	f := startFakeServer(t)
	f.do(t, map[string]any{"cmd": "enqueue", "kind": "openai", "text": []string{"part", "ial", "never"}, "hang_after": 3})
	rt := httpRuntime(t, f, "openai-compatible", f.BaseURL+"/v1")
	s := newSession(t, rt, SessionConfig{Provider: "fake", Model: "gpt-test"})
	events := s.Events()
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	res := make(chan error, 1)
	var result Result
	go func() {
		var err error
		result, err = s.Run(ctx, "stall")
		res <- err
	}()
	var seen strings.Builder
	for ev := range events {
		if d, ok := ev.(TextDelta); ok {
			seen.WriteString(d.Text)
			if seen.String() == "partial" {
				cancel()
				break
			}
		}
	}
	if err := recv(t, res); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run error = %v", err)
	}
	if result.StopReason != StopAborted || result.Response != "partial" {
		t.Fatalf("result = %#v", result)
	}
	mustContain(t, conversation(t, s), `"content":"partial","state":"interrupted"`)
}

func TestHTTPAnthropicAgainstFakeServer(t *testing.T) {
	f := startFakeServer(t)
	f.do(t, map[string]any{"cmd": "enqueue", "kind": "anthropic", "text": []string{"Hi ", "there"}, "usage": []int{7, 2}})
	rt := httpRuntime(t, f, "anthropic", f.BaseURL)
	s := newSession(t, rt, SessionConfig{Provider: "fake", Model: "claude-test"})
	r, err := s.Run(testCtx(t), "hello")
	if err != nil || r.Response != "Hi there" || r.Usage == nil || r.Usage.InputTokens != 7 || r.Usage.OutputTokens != 2 {
		t.Fatalf("result %#v (usage %#v), %v", r, r.Usage, err)
	}
}
