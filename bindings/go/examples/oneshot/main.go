// Command oneshot answers one prompt and exits: the smallest complete use of the binding.
//
//	go run ./examples/oneshot "What is 2+2?"
//
// Offline (scripted provider) unless ANTHROPIC_API_KEY is set.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	robota "github.com/robota-ai/robota-native/bindings/go"
)

func main() {
	prompt := strings.Join(os.Args[1:], " ")
	if prompt == "" {
		prompt = "hello"
	}
	provider := robota.ProviderConfig{Kind: "scripted"} // answers "offline:<prompt>"
	model := "scripted"
	if os.Getenv("ANTHROPIC_API_KEY") != "" {
		provider, model = robota.ProviderConfig{Kind: "anthropic", APIKey: "$ENV:ANTHROPIC_API_KEY"}, "claude-sonnet-4-5"
	}
	rt, err := robota.NewRuntime(robota.RuntimeConfig{Providers: map[string]robota.ProviderConfig{"main": provider}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer rt.Close()
	s, err := rt.NewSession(robota.SessionConfig{Provider: "main", Model: model})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer s.Close()
	r, err := s.Run(context.Background(), prompt)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(r.Response)
}
