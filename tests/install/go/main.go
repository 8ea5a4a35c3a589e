// Command robota-consumer is the Go consumer of the installed library: it requires the binding
// by version (go.mod, no replace directive) and runs the turn tests/install/drive.py describes.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	robota "github.com/robota-ai/robota-native/bindings/go"
)

var addTool = robota.ToolDef{
	Name:        "add",
	Description: "Adds two integers",
	ReadOnly:    true,
	InputSchema: map[string]any{
		"type":       "object",
		"properties": map[string]any{"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "integer"}},
		"required":   []string{"a", "b"},
	},
}

// add prints the arguments as received and answers their sum as text.
func add(ctx context.Context, call robota.ToolCall) (any, error) {
	fmt.Printf("tool add %s\n", call.Arguments)
	var args struct{ A, B int }
	if err := call.Decode(&args); err != nil {
		return nil, err
	}
	return strconv.Itoa(args.A + args.B), nil
}

func run() error {
	baseURL := os.Getenv("ROBOTA_BASE_URL")
	if baseURL == "" {
		return fmt.Errorf("ROBOTA_BASE_URL is not set")
	}
	rt, err := robota.NewRuntime(robota.RuntimeConfig{Providers: map[string]robota.ProviderConfig{
		"fake": {Kind: "openai-compatible", BaseURL: baseURL, APIKey: "test"},
	}})
	if err != nil {
		return err
	}
	defer rt.Close()
	if err := rt.RegisterTool(addTool, add); err != nil {
		return err
	}
	s, err := rt.NewSession(robota.SessionConfig{Provider: "fake", Model: "fake-model"})
	if err != nil {
		return err
	}
	events := s.Events()
	text := make(chan string)
	go func() { // every text delta, in order, until the channel closes after s.Close()
		var b strings.Builder
		for ev := range events {
			if d, ok := ev.(robota.TextDelta); ok {
				b.WriteString(d.Text)
			}
		}
		text <- b.String()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = s.Run(ctx, "What is 2 + 3?")
	s.Close()
	streamed := <-text
	if err != nil {
		return err
	}
	fmt.Printf("text %s\n", streamed)
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "robota-consumer:", err)
		os.Exit(1)
	}
}
