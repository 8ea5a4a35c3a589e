package robota_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"
	"testing"

	robota "github.com/robota-ai/robota-native/bindings/go"
)

// engine stands in for a local inference engine (llama.cpp or ONNX Runtime through cgo):
// Generate streams a completion's tokens and stops when ctx ends.
type engine struct{}

func (engine) Generate(ctx context.Context, prompt string) <-chan string {
	tokens := make(chan string)
	go func() {
		defer close(tokens)
		for _, tok := range []string{"Hello", " from", " the", " local", " model."} {
			select {
			case tokens <- tok:
			case <-ctx.Done():
				return // aborted: stop generating
			}
		}
	}()
	return tokens
}

// localModel adapts the engine to robota.Provider.
type localModel struct{ engine engine }

func (m localModel) Stream(ctx context.Context, req *robota.ModelRequest) (<-chan robota.ModelEvent, error) {
	var prompt strings.Builder // the model's chat template
	for _, msg := range req.Messages {
		fmt.Fprintf(&prompt, "<|%s|>\n%s\n", msg.Role, msg.Content)
	}
	events := make(chan robota.ModelEvent)
	go func() {
		defer close(events) // the binding then ends the call
		n := 0
		for tok := range m.engine.Generate(ctx, prompt.String()) {
			events <- robota.TextEvent(tok)
			n++
		}
		events <- robota.UsageEvent(prompt.Len()/4, n)
	}()
	return events, nil
}

// A local engine behind a channel as the session's model (the README's go_host_provider.go).
func ExampleRuntime_RegisterProvider() {
	rt, err := robota.NewRuntime(robota.RuntimeConfig{})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	caps := robota.ProviderCapabilities{Models: []string{"tiny"}, ContextWindow: 4096}
	if err := rt.RegisterProvider("on-device", caps, localModel{}); err != nil {
		log.Fatal(err)
	}
	s, err := rt.NewSession(robota.SessionConfig{Provider: "on-device", Model: "tiny"})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	res, err := s.Run(context.Background(), "Hi!")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Response)
	// Output: Hello from the local model.
}

// rules is the model: it asks the host tool "add" for a sum, then says the result. Its
// answer is ready at once, so the channel is filled and closed before Stream returns.
type rules struct{}

func (rules) Stream(ctx context.Context, req *robota.ModelRequest) (<-chan robota.ModelEvent, error) {
	last := req.Messages[len(req.Messages)-1]
	events := make(chan robota.ModelEvent, 1)
	defer close(events)
	var a, b int
	if last.Role == robota.RoleTool {
		events <- robota.TextEvent("The sum is " + last.Content + ".")
	} else if _, err := fmt.Sscanf(last.Content, "what is %d+%d", &a, &b); err == nil {
		events <- robota.ToolCallEvent("call-1", "add", map[string]int{"a": a, "b": b})
	} else {
		return nil, &robota.ProviderError{Class: robota.ClassInvalidRequest, Message: "I can only add"}
	}
	return events, nil
}

// AddArgs are the arguments of the host tool "add".
type AddArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

// A rule-based model that calls a host tool (docs/host-providers.md's docs_host_provider_rules.go).
func ExampleRuntime_RegisterProvider_tools() {
	rt, err := robota.NewRuntime(robota.RuntimeConfig{})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	add := robota.NewTool("add", "Adds two integers", func(ctx context.Context, args AddArgs) (int, error) {
		return args.A + args.B, nil
	})
	add.Def.ReadOnly = true
	if err := rt.AddTool(add); err != nil {
		log.Fatal(err)
	}
	if err := rt.RegisterProvider("rules", robota.ProviderCapabilities{Models: []string{"rules-1"}}, rules{}); err != nil {
		log.Fatal(err)
	}
	s, err := rt.NewSession(robota.SessionConfig{Provider: "rules", Model: "rules-1", Tools: []string{"add"}})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	res, err := s.Run(context.Background(), "what is 2+3")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Response)
	_, err = s.Run(context.Background(), "what is love")
	fmt.Println(err)
	// Output:
	// The sum is 5.
	// robota: Run: turn 2 failed: Provider Error (rules): host provider "rules": I can only add
}

// The models printed in the README (go_host_provider.go) and in docs/host-providers.md
// (docs_host_provider_rules.go) are the ones the examples above run.
func TestPrintedHostProvidersAreTheExamples(t *testing.T) {
	self, err := os.ReadFile("provider_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	between := func(s, from, to string) string {
		i := strings.Index(s, from)
		if i < 0 {
			t.Fatalf("%q not found", from)
		}
		j := strings.Index(s[i:], to)
		if j < 0 {
			t.Fatalf("%q not found after %q", to, from)
		}
		return s[i : i+j]
	}
	for _, tc := range []struct{ doc, from, docEnd, selfEnd string }{
		{"README.md", "// engine stands in for a local inference engine", "func main() {", "// A local engine behind a channel as the session's model"},
		{"../../docs/host-providers.md", "// rules is the model:", "func main() {", "// A rule-based model that calls a host tool"},
	} {
		doc, err := os.ReadFile(tc.doc)
		if err != nil {
			t.Fatal(err)
		}
		if printed, run := between(string(doc), tc.from, tc.docEnd), between(string(self), tc.from, tc.selfEnd); printed != run {
			t.Fatalf("%s prints another model than the example runs:\n%s\n---\n%s", tc.doc, printed, run)
		}
	}
}
