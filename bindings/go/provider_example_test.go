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

// The adapter printed in the README (go_host_provider.go) is the one ExampleRuntime_RegisterProvider runs.
func TestReadmeHostProviderIsTheExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile("provider_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	between := func(s, from, to string) string {
		i := strings.Index(s, from)
		j := strings.Index(s[i+1:], to)
		if i < 0 || j < 0 {
			t.Fatalf("%q ... %q not found", from, to)
		}
		return s[i : i+1+j]
	}
	const from = "// engine stands in for a local inference engine"
	printed := between(string(readme), from, "func main() {")
	run := between(string(self), from, "// A local engine behind a channel as the session's model")
	if printed != run {
		t.Fatalf("the README's adapter differs from the example's:\n%s\n---\n%s", printed, run)
	}
}
