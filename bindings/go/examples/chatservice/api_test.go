package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// call sends one request and decodes the JSON answer.
func call(t *testing.T, method, url, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s %s answered %d %q: %v", method, url, resp.StatusCode, b, err)
	}
	return resp.StatusCode, out
}

// errorCodeOf is the code of an {"error":{"code","message"}} answer.
func errorCodeOf(t *testing.T, out map[string]any) string {
	t.Helper()
	e, ok := out["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error object in %v", out)
	}
	return e["code"].(string)
}

// ids lists the ids of a GET /sessions answer, failing unless it is 200.
func ids(t *testing.T, url string) []string {
	t.Helper()
	status, out := call(t, "GET", url, "")
	list, ok := out["sessions"].([]any)
	if status != http.StatusOK || !ok {
		t.Fatalf("GET %s: %d %v", url, status, out)
	}
	got := []string{}
	for _, s := range list {
		got = append(got, s.(map[string]any)["id"].(string))
	}
	return got
}

// The sessions a node lists are the store's (by cwd, newest first, limit), and a deleted
// session is gone for every node.
func TestListAndDeleteGoThroughTheStore(t *testing.T) {
	dsn := postgresDSN(t)
	f := startFakeModel(t)
	cwd, other := t.TempDir(), t.TempDir()
	a, b := startNode(t, "A", dsn, f.baseURL, cwd), startNode(t, "B", dsn, f.baseURL, other)
	older, newer, elsewhere := "older-"+runID(), "newer-"+runID(), "elsewhere-"+runID()
	for _, turn := range []struct {
		n  *node
		id string
	}{{a, older}, {b, elsewhere}, {a, newer}} {
		f.answer(t, []string{"hi"}, nil)
		runTurn(t, turn.n, turn.id, "hello")
	}

	mustEqual(t, "B lists A's cwd", ids(t, b.url+"/sessions?cwd="+cwd), []string{newer, older})
	mustEqual(t, "limit 1", ids(t, b.url+"/sessions?cwd="+cwd+"&limit=1"), []string{newer})
	mustEqual(t, "the other cwd", ids(t, a.url+"/sessions?cwd="+other), []string{elsewhere})
	_, out := call(t, "GET", a.url+"/sessions?cwd="+other, "")
	s := out["sessions"].([]any)[0].(map[string]any) // one turn: message_count 1
	if s["cwd"] != other || s["message_count"] != float64(1) || s["created_at"] == "" || s["updated_at"] == "" {
		t.Fatalf("listed %v", s)
	}

	status, out := call(t, "DELETE", b.url+"/sessions/"+older, "")
	if status != http.StatusOK || out["deleted"] != older {
		t.Fatalf("DELETE on B: %d %v", status, out)
	}
	mustEqual(t, "A lists after B's delete", ids(t, a.url+"/sessions?cwd="+cwd), []string{newer})
	if status, out = call(t, "DELETE", a.url+"/sessions/"+older, ""); status != http.StatusNotFound || errorCodeOf(t, out) != "NOT_FOUND" {
		t.Fatalf("second DELETE: %d %v", status, out)
	}
}

// Bad requests get a 4xx naming what is wrong, and start no turn.
func TestBadRequestsAreNamed(t *testing.T) {
	dsn := postgresDSN(t)
	f := startFakeModel(t)
	n := startNode(t, "A", dsn, f.baseURL, t.TempDir())
	cases := []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"POST", "/sessions/s1/messages", `{"prompt":""}`, 400, "INVALID_BODY"},
		{"POST", "/sessions/s1/messages", `{"text":"hi"}`, 400, "INVALID_BODY"},
		{"POST", "/sessions/s1/messages", `not json`, 400, "INVALID_BODY"},
		{"POST", "/sessions/bad%20id/messages", `{"prompt":"hi"}`, 400, "INVALID_SESSION_ID"},
		{"GET", "/sessions/s1/messages", ``, 405, "METHOD_NOT_ALLOWED"},
		{"GET", "/sessions?limit=0", ``, 400, "INVALID_LIMIT"},
		{"GET", "/sessionsx", ``, 404, "NOT_FOUND"},
		{"DELETE", "/sessions/never-" + runID(), ``, 404, "NOT_FOUND"},
	}
	for _, c := range cases {
		status, out := call(t, c.method, n.url+c.path, c.body)
		if status != c.status || errorCodeOf(t, out) != c.code {
			t.Errorf("%s %s %s: %d %v, want %d %s", c.method, c.path, c.body, status, out, c.status, c.code)
		}
	}
	if convs := f.conversations(t); len(convs) != 0 {
		t.Fatalf("bad requests reached the model: %q", convs)
	}
}

// The flags name what is missing.
func TestOptionsNameWhatIsMissing(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	t.Setenv("ROBOTA_MODEL", "")
	t.Setenv("ROBOTA_BASE_URL", "")
	cases := map[string][]string{
		"-dsn (or DATABASE_URL) is required":         {"-model", "m", "-base-url", "http://x"},
		"-model (or ROBOTA_MODEL) is required":       {"-dsn", "postgres://x", "-base-url", "http://x"},
		"-base-url (or ROBOTA_BASE_URL) is required": {"-dsn", "postgres://x", "-model", "m"},
		`unexpected argument "extra"`:                {"-dsn", "postgres://x", "-model", "m", "-base-url", "http://x", "extra"},
	}
	for want, args := range cases {
		if _, err := parseOptions(args); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseOptions(%q) = %v, want %q", args, err, want)
		}
	}
	o, err := parseOptions([]string{"-dsn", "postgres://x", "-provider-kind", "anthropic", "-model", "m", "-cwd", "/srv"})
	if err != nil || o.listen != "127.0.0.1:8080" || o.cwd != "/srv" || o.kind != "anthropic" {
		t.Fatalf("parseOptions = %+v, %v", o, err)
	}
}

// allEvents reads a turn's whole stream.
func allEvents(t *testing.T, s *turnStream) []sseEvent {
	t.Helper()
	var out []sseEvent
	for {
		ev, err := s.next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
}

// A turn's tool calls are streamed as tool_start and tool_end between its text, and a failed
// turn ends with an error event carrying the taxonomy code.
func TestToolEventsAndFailuresAreStreamed(t *testing.T) {
	dsn := postgresDSN(t)
	f := startFakeModel(t)
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	n := startNode(t, "A", dsn, f.baseURL, cwd)
	id := "tools-" + runID()
	f.do(t, map[string]any{"cmd": "enqueue", "kind": "openai", "text": []string{"Looking."},
		"tools": [][]string{{"call_1", "Glob", `{"pattern":"*.txt"}`}}})
	f.answer(t, []string{"Found notes.txt."}, nil)
	var got []string
	for _, ev := range allEvents(t, postTurn(t, n, id, "which text files?")) {
		switch ev.Name {
		case "text":
			got = append(got, "text "+ev.Data["text"].(string))
		case "tool_start":
			args, _ := json.Marshal(ev.Data["arguments"])
			got = append(got, fmt.Sprintf("tool_start %s %s %s", ev.Data["tool_call_id"], ev.Data["tool_name"], args))
		case "tool_end":
			got = append(got, fmt.Sprintf("tool_end %s %s %s %v", ev.Data["tool_call_id"], ev.Data["tool_name"], ev.Data["result"],
				strings.Contains(ev.Data["output"].(string), "notes.txt")))
		default:
			got = append(got, ev.Name+" "+fmt.Sprint(ev.Data["response"], ev.Data["stop_reason"]))
		}
	}
	mustEqual(t, "events", got, []string{"text Looking.", `tool_start call_1 Glob {"pattern":"*.txt"}`,
		"tool_end call_1 Glob success true", "text \n\n", "text Found notes.txt.", "done Found notes.txt.complete"})

	f.do(t, map[string]any{"cmd": "enqueue_error", "status": 400, "body": `{"error":{"message":"bad model","type":"invalid_request_error"}}`})
	evs := allEvents(t, postTurn(t, n, id, "again"))
	last := evs[len(evs)-1]
	if last.Name != "error" || last.Data["code"] != "PROVIDER_ERROR" || !strings.Contains(last.Data["message"].(string), "HTTP 400: bad model") {
		t.Fatalf("last event of a failed turn: %+v", last)
	}
}
