package robota

import (
	"encoding/json"
	"strings"
	"testing"
)

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func TestConfigDocuments(t *testing.T) {
	doc, err := SessionConfig{Provider: "s", Model: "m", Tools: []string{},
		Extra: map[string]any{"temperature": 0.5, "model": "not me"}}.json()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	if m["v"] != 1.0 || m["model"] != "m" || m["temperature"] != 0.5 || m["delivery"] != "thread" {
		t.Fatalf("session document %s", doc)
	}
	if tools, ok := m["tools"].([]any); !ok || len(tools) != 0 {
		t.Fatalf("an empty Tools list must be sent as []: %s", doc)
	}
	if _, ok := m["on_permission"]; ok {
		t.Fatalf("handlers leaked into the document: %s", doc)
	}
	doc, _ = SessionConfig{Provider: "s", Model: "m", Transcript: true, Budget: &Budget{MaxCostUSD: 1.5},
		Commands: []HostCommand{{Name: "deploy", Description: "Ship it"}}}.json()
	if want := `"commands":[{"name":"deploy","description":"Ship it"}]`; !contains(doc, want) {
		t.Fatalf("commands: %s", doc)
	}
	if !contains(doc, `"budget":{"max_cost_usd":1.5}`) {
		t.Fatalf("budget: %s", doc)
	}
	if !contains(doc, `"transcript":true`) {
		t.Fatalf("transcript: %s", doc)
	}
	m = nil
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["tools"]; ok {
		t.Fatalf("nil Tools must be omitted (default tools): %s", doc)
	}
	doc, err = RuntimeConfig{Providers: map[string]ProviderConfig{
		"r": {Kind: "replay", Extra: map[string]any{"file": "x.jsonl", "kind": "not me"}},
	}, Extra: map[string]any{"worker_threads": 9007199254740993}}.json()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"providers":{"r":{"file":"x.jsonl","kind":"replay"}},"v":1,"worker_threads":9007199254740993}`
	if doc != want {
		t.Fatalf("runtime document\n got %s\nwant %s", doc, want)
	}
}
