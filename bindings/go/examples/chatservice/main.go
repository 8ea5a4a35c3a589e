// Command chatservice is an HTTP chat service over the Go binding whose sessions live in
// PostgreSQL: run several processes on different ports behind a load balancer and any of them
// serves any session (README.md).
//
//	POST   /sessions/{id}/messages  {"prompt":"…"}  one turn, streamed as Server-Sent Events
//	GET    /sessions?cwd=DIR&limit=N                the stored sessions, newest first
//	DELETE /sessions/{id}                           deletes a stored session
//
// Each request resumes its session from the store by id (or creates it), runs one turn and
// frees it: the processes keep no session state. Two processes advancing the same session at
// once cannot both win: the later save fails with a CONFLICT error event and the store keeps
// the first one's turn.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	_ "github.com/lib/pq" // the PostgreSQL driver of database/sql

	robota "github.com/robota-ai/robota-native/bindings/go"
	"github.com/robota-ai/robota-native/bindings/go/sqlstore"
)

// options are the command line flags (each defaults to an environment variable).
type options struct {
	listen, dsn, kind, baseURL, apiKey, model, cwd string
}

func parseOptions(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("chatservice", flag.ContinueOnError)
	fs.StringVar(&o.listen, "listen", envOr("LISTEN", "127.0.0.1:8080"), "address to serve on, host:port (env LISTEN)")
	fs.StringVar(&o.dsn, "dsn", os.Getenv("DATABASE_URL"), "PostgreSQL connection string (env DATABASE_URL)")
	fs.StringVar(&o.kind, "provider-kind", envOr("ROBOTA_PROVIDER_KIND", "openai-compatible"), "provider kind: openai-compatible, openai, anthropic, gemini (env ROBOTA_PROVIDER_KIND)")
	fs.StringVar(&o.baseURL, "base-url", os.Getenv("ROBOTA_BASE_URL"), "model server base URL, e.g. http://127.0.0.1:8000/v1 (env ROBOTA_BASE_URL)")
	fs.StringVar(&o.apiKey, "api-key", os.Getenv("ROBOTA_API_KEY"), "API key of the provider, or $ENV:NAME to read it from variable NAME (env ROBOTA_API_KEY)")
	fs.StringVar(&o.model, "model", os.Getenv("ROBOTA_MODEL"), "model id (env ROBOTA_MODEL)")
	fs.StringVar(&o.cwd, "cwd", "", "working directory of new sessions (default: the process's)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.dsn == "":
		return o, errors.New("-dsn (or DATABASE_URL) is required: the PostgreSQL database holding the sessions")
	case o.model == "":
		return o, errors.New("-model (or ROBOTA_MODEL) is required")
	case o.kind == "openai-compatible" && o.baseURL == "":
		return o, errors.New("-base-url (or ROBOTA_BASE_URL) is required for provider kind openai-compatible")
	}
	if o.cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return o, err
		}
		o.cwd = wd
	}
	return o, nil
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func main() {
	o, err := parseOptions(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err == nil {
		err = run(o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "chatservice:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	db, err := sql.Open("postgres", o.dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	store := sqlstore.New(db)
	if err := store.CreateSchema(ctx); err != nil {
		return fmt.Errorf("creating the session table: %w", err)
	}
	rt, err := robota.NewRuntime(robota.RuntimeConfig{Providers: map[string]robota.ProviderConfig{
		providerName: {Kind: o.kind, BaseURL: o.baseURL, APIKey: o.apiKey, MaxRetries: robota.Int(0)},
	}})
	if err != nil {
		return err
	}
	defer rt.Close()
	if err := rt.SetStore(store); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: newService(rt, o.model, o.cwd)}
	stopped := make(chan error, 1)
	go func() {
		<-ctx.Done() // SIGINT/SIGTERM: stop accepting, let running turns finish
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		stopped <- srv.Shutdown(shutdown)
	}()
	// The address actually bound (port 0 picks a free one), on stdout for scripts and tests.
	fmt.Printf("chatservice: listening on http://%s\n", ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	// Serve returns as soon as shutdown begins: wait until the running turns are done before
	// the runtime and the database close.
	return <-stopped
}
