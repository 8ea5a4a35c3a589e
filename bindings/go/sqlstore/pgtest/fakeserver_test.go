package pgtest

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// fakeServer drives the project's fake model server (examples/fake_model_server.rs, built by
// `cargo build --example fake_model_server`; ROBOTA_FAKE_SERVER names it): one JSON command per
// line on stdin, one JSON answer per line on stdout.
type fakeServer struct {
	in      io.WriteCloser
	out     *bufio.Reader
	BaseURL string
}

func startFakeServer(t testing.TB) *fakeServer {
	t.Helper()
	path := os.Getenv("ROBOTA_FAKE_SERVER")
	if path == "" {
		path = filepath.Join("..", "..", "..", "..", "target", "debug", "examples", "fake_model_server")
	}
	cmd := exec.Command(path)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("fake model server %s (cargo build --example fake_model_server, or set ROBOTA_FAKE_SERVER): %v", path, err)
	}
	t.Cleanup(func() {
		_ = in.Close() // the server exits when stdin closes
		_ = cmd.Wait()
	})
	f := &fakeServer{in: in, out: bufio.NewReader(out)}
	var hello struct {
		BaseURL string `json:"base_url"`
	}
	f.read(t, &hello)
	f.BaseURL = hello.BaseURL
	return f
}

func (f *fakeServer) read(t testing.TB, v any) {
	t.Helper()
	line, err := f.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("fake server: %v", err)
	}
	if err := json.Unmarshal(line, v); err != nil {
		t.Fatalf("fake server said %q: %v", line, err)
	}
}

// do sends one command, fails the test unless it is acknowledged, and returns "requests".
func (f *fakeServer) do(t testing.TB, cmd map[string]any) json.RawMessage {
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

// enqueueText queues one plain text answer per text.
func (f *fakeServer) enqueueText(t testing.TB, texts ...string) {
	t.Helper()
	for _, text := range texts {
		f.do(t, map[string]any{"cmd": "enqueue", "kind": "openai", "text": []string{text}})
	}
}

// requestBodies returns the bodies of the requests the server received.
func (f *fakeServer) requestBodies(t testing.TB) []string {
	t.Helper()
	var reqs []struct {
		Body json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(f.do(t, map[string]any{"cmd": "requests"}), &reqs); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = string(r.Body)
	}
	return out
}
