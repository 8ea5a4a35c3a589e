package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/robota-ai/robota-native/bindings/go/sqlstore"
)

// The harness of the two-node tests: the service binary built once, its processes, the fake
// model server, an SSE client, and the store read back from PostgreSQL.

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// serviceBinary builds this command once per test run (into a directory removed at exit).
func serviceBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "chatservice-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "chatservice")
		out, err := exec.Command("go", "build", "-race", "-o", builtBin, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// postgresDSN is the test database (.ci/postgres.sh exports it). Outside CI a missing one
// skips; under CI it fails.
func postgresDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("ROBOTA_PG_DSN")
	if dsn == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("ROBOTA_PG_DSN is not set: source .ci/postgres.sh to start a PostgreSQL server")
		}
		t.Skip("ROBOTA_PG_DSN is not set (source .ci/postgres.sh to start a PostgreSQL server)")
	}
	return dsn
}

// node is one service process.
type node struct {
	name string
	url  string
	cmd  *exec.Cmd
}

func startNode(t *testing.T, name, dsn, baseURL, cwd string) *node {
	t.Helper()
	cmd := exec.Command(serviceBinary(t), "-listen", "127.0.0.1:0", "-dsn", dsn,
		"-base-url", baseURL, "-api-key", "test-key", "-model", "gpt-test", "-cwd", cwd)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	const prefix = "chatservice: listening on "
	if err != nil || !strings.HasPrefix(line, prefix) {
		t.Fatalf("node %s did not start: %q, %v", name, line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return &node{name: name, url: strings.TrimSpace(strings.TrimPrefix(line, prefix)), cmd: cmd}
}

// kill ends the process with SIGKILL: no shutdown, no save.
func (n *node) kill(t *testing.T) {
	t.Helper()
	if err := n.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = n.cmd.Wait()
}

// sseEvent is one Server-Sent Event of a turn.
type sseEvent struct {
	Name string
	Data map[string]any
}

// client bounds every request of the tests, streams included: a node that stops answering
// fails the test instead of hanging it.
var client = &http.Client{Timeout: 2 * time.Minute}

// turnStream is a POST /sessions/{id}/messages whose response headers arrived: the node has
// opened the session (loaded it from the store) and streams the turn.
type turnStream struct {
	resp *http.Response
	sc   *bufio.Scanner
}

func postTurn(t *testing.T, n *node, id, prompt string) *turnStream {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"prompt": prompt})
	resp, err := client.Post(n.url+"/sessions/"+id+"/messages", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("node %s: %v", n.name, err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("node %s answered %d %s: %s", n.name, resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return &turnStream{resp: resp, sc: bufio.NewScanner(resp.Body)}
}

// next reads the next event; io.EOF when the stream ended.
func (s *turnStream) next() (sseEvent, error) {
	var ev sseEvent
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			ev.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.Data); err != nil {
				return ev, fmt.Errorf("data of event %q: %v", ev.Name, err)
			}
		case line == "" && ev.Name != "":
			return ev, nil
		default:
			return ev, fmt.Errorf("unexpected SSE line %q", line)
		}
	}
	if err := s.sc.Err(); err != nil {
		return ev, err
	}
	return ev, io.EOF
}

// finish reads the rest of the stream: the streamed text and the final event, which must be
// the last one.
func (s *turnStream) finish() (text string, final sseEvent, err error) {
	var b strings.Builder
	for {
		ev, err := s.next()
		if errors.Is(err, io.EOF) {
			return b.String(), final, errors.New("the stream ended without a done or error event")
		}
		if err != nil {
			return b.String(), final, err
		}
		switch ev.Name {
		case "text":
			b.WriteString(fmt.Sprint(ev.Data["text"]))
		case "done", "error":
			if extra, err := s.next(); !errors.Is(err, io.EOF) {
				return b.String(), ev, fmt.Errorf("event %q after the final %q", extra.Name, ev.Name)
			}
			return b.String(), ev, nil
		}
	}
}

// runTurn posts one turn and requires it to succeed; it returns the streamed text.
func runTurn(t *testing.T, n *node, id, prompt string) string {
	t.Helper()
	text, final, err := postTurn(t, n, id, prompt).finish()
	if err != nil || final.Name != "done" {
		t.Fatalf("turn %q on node %s: %v, final event %+v", prompt, n.name, err, final)
	}
	if final.Data["response"] != text || final.Data["session_id"] != id {
		t.Fatalf("done event %+v does not match the streamed text %q of session %s", final.Data, text, id)
	}
	return text
}

// fakeModel drives the project's fake model server (examples/fake_model_server.rs).
type fakeModel struct {
	in      io.WriteCloser
	out     *bufio.Reader
	baseURL string
}

func startFakeModel(t *testing.T) *fakeModel {
	t.Helper()
	path := os.Getenv("ROBOTA_FAKE_SERVER")
	if path == "" {
		path = filepath.Join("..", "..", "..", "..", "target", "debug", "examples", "fake_model_server")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("fake model server not found at %s (cargo build --example fake_model_server, or set ROBOTA_FAKE_SERVER): %v", path, err)
	}
	cmd := exec.Command(path)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.Close(); _ = cmd.Wait() }) // it exits when stdin closes
	f := &fakeModel{in: in, out: bufio.NewReader(out)}
	var hello struct {
		BaseURL string `json:"base_url"`
	}
	f.read(t, &hello)
	f.baseURL = hello.BaseURL + "/v1"
	return f
}

func (f *fakeModel) read(t *testing.T, v any) {
	t.Helper()
	line, err := f.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("fake model server: %v", err)
	}
	if err := json.Unmarshal(line, v); err != nil {
		t.Fatalf("fake model server said %q: %v", line, err)
	}
}

func (f *fakeModel) do(t *testing.T, cmd map[string]any) json.RawMessage {
	t.Helper()
	b, _ := json.Marshal(cmd)
	if _, err := f.in.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
	var ack map[string]json.RawMessage
	f.read(t, &ack)
	if string(ack["ok"]) != "true" {
		t.Fatalf("fake model server refused %s: %s", b, ack["error"])
	}
	return ack["requests"]
}

// answer queues one streamed answer (OpenAI wire format); extra adds delay_ms, hang_after, ….
func (f *fakeModel) answer(t *testing.T, text []string, extra map[string]any) {
	t.Helper()
	cmd := map[string]any{"cmd": "enqueue", "kind": "openai", "text": text}
	for k, v := range extra {
		cmd[k] = v
	}
	f.do(t, cmd)
}

// conversations are the messages each model request carried, as "role: text" (the system
// prompt left out), in the order the requests arrived.
func (f *fakeModel) conversations(t *testing.T) [][]string {
	t.Helper()
	var reqs []struct {
		Body json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(f.do(t, map[string]any{"cmd": "requests"}), &reqs); err != nil {
		t.Fatal(err)
	}
	out := make([][]string, len(reqs))
	for i, r := range reqs {
		var body struct {
			Messages []message `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatalf("request %d: %v: %s", i, err, r.Body)
		}
		out[i] = lines(body.Messages)
	}
	return out
}

// message is a chat message of a request body or of a snapshot.
type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// lines renders messages as "role: text", the system prompt left out; content given as a
// list of parts is their text joined.
func lines(msgs []message) []string {
	out := []string{}
	for _, m := range msgs {
		if m.Role == "system" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) != nil {
			var parts []struct {
				Text string `json:"text"`
			}
			_ = json.Unmarshal(m.Content, &parts)
			for _, p := range parts {
				s += p.Text
			}
		}
		out = append(out, m.Role+": "+s)
	}
	return out
}

// stored reads session id back from PostgreSQL: its version and its messages.
func stored(t *testing.T, dsn, id string) (uint64, []string) {
	t.Helper()
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := sqlstore.New(db).Load(ctx, id)
	if err != nil {
		t.Fatalf("loading %s from PostgreSQL: %v", id, err)
	}
	var snap struct {
		Messages []message `json:"messages"`
	}
	if err := json.Unmarshal(s.Snapshot, &snap); err != nil {
		t.Fatalf("stored snapshot of %s: %v", id, err)
	}
	return s.Version, lines(snap.Messages)
}
