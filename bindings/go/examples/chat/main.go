// Command chat is a streaming terminal agent over the Go binding.
//
//	go run ./examples/chat               interactive (/help lists commands, Ctrl-C aborts a turn, EOF quits)
//	go run ./examples/chat "a prompt"    one-shot: answers and exits
//
// It uses a real model when ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL is set
// (ROBOTA_MODEL picks the model) and the offline scripted provider otherwise. It streams
// text, runs the built-in file tools and two host tools (get_time, save_note), and asks y/n
// before tools that change things. Without a terminal, end of input declines and exits.
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	robota "github.com/robota-ai/robota-native/bindings/go"
)

var (
	stdin   = bufio.NewReader(os.Stdin)
	outMu   sync.Mutex            // the event printer and the prompt share the terminal
	printed = make(chan struct{}) // the printer finished a turn's output
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "chat:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg, provider, model := config()
	rt, err := robota.NewRuntime(cfg)
	if err != nil {
		return err
	}
	defer rt.Close()
	if err := registerTools(rt); err != nil {
		return err
	}
	cwd, _ := os.Getwd()
	s, err := rt.NewSession(robota.SessionConfig{
		Provider: provider, Model: model, Cwd: cwd,
		SystemPrompt: "You are a helpful terminal assistant. Use tools when useful.",
		// No OnPermission: the printer below answers permission requests in stream order,
		// so the question appears after the text that led to it.
	})
	if err != nil {
		return err
	}
	defer s.Close()
	printerDone := make(chan struct{})
	go func() { // print the stream; exits when Close ends it
		defer close(printerDone)
		printEvents(s, s.Events())
	}()
	if len(os.Args) > 1 {
		err = turn(s, strings.Join(os.Args[1:], " "))
	} else {
		err = repl(s)
	}
	s.Close()
	<-printerDone
	return err
}

func repl(s *robota.Session) error {
	for {
		outMu.Lock()
		fmt.Print("> ")
		outMu.Unlock()
		line, err := stdin.ReadString('\n')
		line = strings.TrimSpace(line)
		if line != "" {
			if strings.HasPrefix(line, "/") {
				name, args, _ := strings.Cut(line[1:], " ")
				res, cerr := s.Command(name, args)
				if cerr != nil {
					fmt.Println(cerr)
				} else {
					fmt.Println(res.Message)
				}
			} else if terr := turn(s, line); terr != nil {
				fmt.Println(terr)
			}
		}
		if err != nil { // EOF
			fmt.Println()
			return nil
		}
	}
}

// turn runs one prompt; Ctrl-C cancels its context, which aborts it.
func turn(s *robota.Session, text string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r, err := s.Run(ctx, text)
	if r.TurnID != 0 {
		<-printed // the turn's stream is on screen
	}
	if errors.Is(err, context.Canceled) {
		fmt.Println("\n[aborted]")
		return nil
	}
	if err == nil && r.Usage != nil {
		outMu.Lock()
		fmt.Printf("[%s, %d tokens]\n", r.StopReason, r.Usage.TotalTokens)
		outMu.Unlock()
	}
	return err
}

func printEvents(s *robota.Session, events <-chan robota.Event) {
	for ev := range events {
		outMu.Lock()
		switch e := ev.(type) {
		case robota.PermissionRequest:
			_ = s.RespondPermission(e.RequestID, askPermission(e))
		case robota.TextDelta:
			fmt.Print(e.Text)
		case robota.ToolStart:
			fmt.Printf("\n  ⟳ %s(%s)\n", e.ToolName, e.FirstArg)
		case robota.ToolEnd:
			fmt.Printf("  %s %s\n", map[string]string{"success": "✓", "error": "✗", "denied": "⊘"}[e.Result], e.ToolName)
		case robota.Warning:
			fmt.Printf("\n[warning] %s\n", e.Message)
		case robota.ErrorEvent:
			fmt.Printf("\n[error] %s\n", e.Message)
		case robota.TurnCompleted:
			fmt.Println()
		}
		outMu.Unlock()
		if _, ok := ev.(robota.TurnCompleted); ok {
			printed <- struct{}{}
		}
	}
}

// askPermission asks y/n on the terminal; end of input means no.
func askPermission(req robota.PermissionRequest) robota.PermissionDecision {
	fmt.Printf("\nAllow %s %s? [y/N] ", req.ToolName, req.Arguments)
	answer, _ := stdin.ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(answer)); a == "y" || a == "yes" {
		return robota.Allow
	}
	if answer == "" {
		fmt.Println("(no terminal: declined)")
	}
	return robota.Deny
}

func registerTools(rt *robota.Runtime) error {
	err := rt.RegisterTool(robota.ToolDef{
		Name: "get_time", Description: "Current UTC time", ReadOnly: true,
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{}},
	}, func(ctx context.Context, call robota.ToolCall) (any, error) {
		return time.Now().UTC().Format("2006-01-02 15:04:05 UTC"), nil
	})
	if err != nil {
		return err
	}
	return rt.RegisterTool(robota.ToolDef{
		Name: "save_note", Description: "Saves a note for the user",
		InputSchema: map[string]any{"type": "object",
			"properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []string{"text"}},
	}, func(ctx context.Context, call robota.ToolCall) (any, error) {
		var args struct{ Text string }
		if err := call.Decode(&args); err != nil {
			return nil, err
		}
		outMu.Lock()
		fmt.Printf("  (note: %s)\n", args.Text)
		outMu.Unlock()
		return "saved", nil
	})
}

// config picks a real provider from the environment, or the offline script.
func config() (robota.RuntimeConfig, string, string) {
	model := os.Getenv("ROBOTA_MODEL")
	if os.Getenv("ANTHROPIC_API_KEY") != "" {
		if model == "" {
			model = "claude-sonnet-4-5"
		}
		fmt.Printf("[robota chat] using Anthropic (%s)\n", model)
		return robota.RuntimeConfig{Providers: map[string]robota.ProviderConfig{
			"main": {Kind: "anthropic", APIKey: "$ENV:ANTHROPIC_API_KEY"}}}, "main", model
	}
	if key, base := os.Getenv("OPENAI_API_KEY"), os.Getenv("OPENAI_BASE_URL"); key != "" || base != "" {
		p := robota.ProviderConfig{Kind: "openai", BaseURL: base}
		if base != "" {
			p.Kind = "openai-compatible"
		}
		if key != "" {
			p.APIKey = "$ENV:OPENAI_API_KEY"
		}
		if model == "" {
			model = "gpt-4o-mini"
		}
		fmt.Printf("[robota chat] using %s (%s)\n", p.Kind, model)
		return robota.RuntimeConfig{Providers: map[string]robota.ProviderConfig{"main": p}}, "main", model
	}
	fmt.Println("[robota chat] offline: scripted provider (set ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL for a real model)")
	return robota.RuntimeConfig{Providers: map[string]robota.ProviderConfig{"offline": {
		Kind: "scripted", Fallback: "echo",
		Turns: []robota.ScriptedTurn{
			{Deltas: []string{"Hello! ", "I am running ", "offline on the scripted provider. ", "Let me check the time and look at the Go files here."},
				DelayMS: 40, ToolCalls: []robota.ScriptedToolCall{
					{Name: "get_time", Arguments: map[string]any{}},
					{Name: "Glob", Arguments: map[string]any{"pattern": "*.go"}}}},
			{Deltas: []string{"Got it. ", "Now I will save a note ", "(this asks for permission)."}, DelayMS: 40,
				ToolCalls: []robota.ScriptedToolCall{{Name: "save_note", Arguments: map[string]any{"text": "hello from chat"}}}},
			{Deltas: []string{"Done. ", "Ask me anything; ", "offline I echo it back."}, DelayMS: 40},
		},
	}}}, "offline", "scripted"
}
