// Command floorhost is the Go binding's host for the floor benchmark (benches/floor): the
// scenario of benches/floor/host.c — a runtime with one host tool add(a,b), and per scenario a
// new session running one turn in which the model calls the tool in 3 rounds and then streams
// a 50-delta answer — driven through the binding's idiomatic API, so the bench can set the
// binding's CPU per turn and allocations per text delta beside the C host's.
//
//	floorhost MODE KIND BASE_URL PATTERN
//	  MODE     single: one scenario; prints {"first_delta_ns","done_ns","peak_rss_kb"}
//	           (CLOCK_MONOTONIC ns, comparable across processes)
//	           warm: one warm-up scenario, then 50 in a row; prints {"wall_ns","cpu_ns",
//	           "scenarios","peak_rss_kb","allocs","deltas"}
//	           conc: 100 scenarios at once; prints {"wall_ns","cpu_ns","scenarios","peak_rss_kb"}
//	  KIND     anthropic | openai
//	  PATTERN  run:   a goroutine per session calling Session.Run (default thread delivery)
//	           drive: a goroutine per session calling Session.Drive (inline delivery)
//	           one:   one goroutine submits every turn (Session.Submit), then waits for each
//	           each with the suffix -events (run-events, …): the deltas are read from Events()
//
// Text deltas are counted as a Go user sees them, into an atomic counter (the "\n\n" the
// library streams between rounds is not a model delta): by the session's OnEvent handler, on
// the thread that delivers them, as the C host counts them in its callback; or, with -events,
// from each session's Events() channel, read by a goroutine per session. The host exits 3
// unless every scenario saw 53 deltas and 3 tool calls.
//
// allocs is the runtime.MemStats.Mallocs delta over the 50 warm scenarios: everything Go's heap
// allocated, the binding's side (the host's per-delta path allocates nothing; its own share is
// a few objects per scenario). FLOORHOST_CPUPROFILE=FILE writes a CPU profile of the whole run,
// FLOORHOST_MEMPROFILE=FILE an allocation profile with every allocation sampled (slower):
// go tool pprof -sample_index=alloc_objects floorhost FILE.
package main

// #include <time.h>
// static long long floor_now_ns(void) {
//	struct timespec ts;
//	clock_gettime(CLOCK_MONOTONIC, &ts);
//	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
// }
import "C"

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	robota "github.com/robota-ai/robota-native/bindings/go"
)

const (
	warmRuns        = 50
	concRuns        = 100
	deltasPerTurn   = 53
	toolCallsPerRun = 3
	prompt          = "Add 1 and 2, three times."
	addSchema       = `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`
)

// AddArgs are the arguments of the add tool.
type AddArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

var (
	toolCalls   atomic.Int64
	totalDeltas atomic.Int64
	ctx         = context.Background()
)

// scenario is one session and what its event reader saw.
type scenario struct {
	s       *robota.Session
	turn    *robota.Turn
	deltas  atomic.Int64
	firstNS atomic.Int64
	reader  sync.WaitGroup
	driven  sync.WaitGroup      // the goroutine running the scenario (run, drive)
	onEvent robota.EventHandler // sc.see, made once: warm runs reuse the scenario
}

type host struct {
	rt      *robota.Runtime
	cfg     robota.SessionConfig
	pattern string
	events  bool // the deltas are read from Events() (else OnEvent counts them)
}

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: floorhost single|warm|conc anthropic|openai BASE_URL run|drive|one[-events]")
		os.Exit(64)
	}
	mode, kind, url, pattern := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	if mode != "single" && mode != "warm" && mode != "conc" {
		fmt.Fprintf(os.Stderr, "floorhost: unknown mode %s\n", mode)
		os.Exit(64)
	}
	h := &host{cfg: robota.SessionConfig{
		Provider: "p", Model: "m", Tools: []string{"add"}, PermissionMode: robota.ModeBypassPermissions,
	}}
	h.pattern, h.events = strings.TrimSuffix(pattern, "-events"), strings.HasSuffix(pattern, "-events")
	switch h.pattern {
	case "run", "one":
	case "drive":
		h.cfg.Delivery = robota.DeliveryInline // Drive's calling thread then runs the callbacks too
	default:
		fmt.Fprintf(os.Stderr, "floorhost: unknown pattern %s\n", pattern)
		os.Exit(64)
	}
	stopProfiles := startProfiles()

	rt, err := robota.NewRuntime(robota.RuntimeConfig{Providers: map[string]robota.ProviderConfig{
		"p": {Kind: kind, BaseURL: url, APIKey: "floor-key", MaxRetries: robota.Int(0)},
	}})
	check("NewRuntime", err)
	h.rt = rt
	add := robota.NewTool("add", "Adds two integers.", func(ctx context.Context, args AddArgs) (int, error) {
		toolCalls.Add(1)
		return args.A + args.B, nil // the result is the JSON number
	})
	add.Def.ReadOnly = true
	add.Def.Inline = true                            // it returns at once: run on the delivering thread, as host.c's callback does
	add.Def.InputSchema = json.RawMessage(addSchema) // host.c's schema, byte for byte
	check("AddTool", rt.AddTool(add))

	var line string
	switch mode {
	case "single":
		var sc scenario
		h.run(&sc)
		done := nowNS()
		checkTools(1)
		line = fmt.Sprintf(`{"first_delta_ns":%d,"done_ns":%d,"peak_rss_kb":%d}`, sc.firstNS.Load(), done, peakRSSKB())
	case "warm":
		var sc scenario
		h.run(&sc)
		totalDeltas.Store(0)
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		t0, c0 := nowNS(), cpuNS()
		for i := 0; i < warmRuns; i++ {
			h.run(&sc)
		}
		wall, cpu := nowNS()-t0, cpuNS()-c0
		runtime.ReadMemStats(&m1)
		checkTools(warmRuns + 1)
		line = fmt.Sprintf(`{"wall_ns":%d,"cpu_ns":%d,"scenarios":%d,"peak_rss_kb":%d,"allocs":%d,"deltas":%d}`,
			wall, cpu, warmRuns, peakRSSKB(), m1.Mallocs-m0.Mallocs, totalDeltas.Load())
	case "conc":
		t0, c0 := nowNS(), cpuNS()
		h.conc()
		wall, cpu := nowNS()-t0, cpuNS()-c0
		checkTools(concRuns)
		line = fmt.Sprintf(`{"wall_ns":%d,"cpu_ns":%d,"scenarios":%d,"peak_rss_kb":%d}`, wall, cpu, concRuns, peakRSSKB())
	}
	stopProfiles()
	fmt.Println(line)
	rt.Close()
}

// run is one scenario on its own goroutine (run, drive) or on this one (one).
func (h *host) run(sc *scenario) {
	if h.pattern == "one" {
		h.open(sc)
		h.submit(sc)
		h.finish(sc)
		return
	}
	sc.driven.Add(1)
	go h.driveDone(sc)
	sc.driven.Wait()
}

func (h *host) driveDone(sc *scenario) {
	defer sc.driven.Done()
	h.drive(sc)
}

// conc runs 100 scenarios at once: a goroutine each (run, drive), or all from this goroutine
// (one: every session opened and its turn submitted, then each waited for and closed).
func (h *host) conc() {
	scs := make([]scenario, concRuns)
	if h.pattern == "one" {
		for i := range scs {
			h.open(&scs[i])
		}
		for i := range scs {
			h.submit(&scs[i])
		}
		for i := range scs {
			h.finish(&scs[i])
		}
		return
	}
	var wg sync.WaitGroup
	wg.Add(len(scs))
	for i := range scs {
		go func(sc *scenario) {
			defer wg.Done()
			h.drive(sc)
		}(&scs[i])
	}
	wg.Wait()
}

// drive runs the scenario's turn with Session.Run or Session.Drive on the calling goroutine.
func (h *host) drive(sc *scenario) {
	h.open(sc)
	var err error
	if h.pattern == "drive" {
		_, err = sc.s.Drive(ctx, prompt)
	} else {
		_, err = sc.s.Run(ctx, prompt)
	}
	check(h.pattern, err)
	h.close(sc)
}

// open creates the scenario's session and starts reading its events.
func (h *host) open(sc *scenario) {
	sc.deltas.Store(0)
	sc.firstNS.Store(0)
	cfg := h.cfg
	if !h.events {
		if sc.onEvent == nil {
			sc.onEvent = sc.see
		}
		cfg.OnEvent = sc.onEvent
	}
	s, err := h.rt.NewSession(cfg)
	check("NewSession", err)
	sc.s = s
	if h.events {
		events := s.Events() // before the turn: it sees the whole turn
		sc.reader.Add(1)
		go sc.count(events)
	}
}

func (h *host) submit(sc *scenario) {
	t, err := sc.s.Submit(ctx, prompt)
	check("Submit", err)
	sc.turn = t
}

func (h *host) finish(sc *scenario) {
	_, err := sc.turn.Wait(ctx)
	check("Wait", err)
	h.close(sc)
}

// close closes the session (Events() ends after SessionClosed) and checks the deltas seen.
func (h *host) close(sc *scenario) {
	check("Close", sc.s.Close())
	sc.reader.Wait()
	n := sc.deltas.Load()
	totalDeltas.Add(n)
	if n != deltasPerTurn {
		fmt.Fprintf(os.Stderr, "floorhost: %d text deltas, expected %d\n", n, deltasPerTurn)
		os.Exit(3)
	}
}

// count reads a session's events until the channel closes.
func (sc *scenario) count(events <-chan robota.Event) {
	defer sc.reader.Done()
	for ev := range events {
		sc.see(ev)
	}
}

// see counts the model's text deltas.
func (sc *scenario) see(ev robota.Event) {
	if d, ok := ev.(robota.TextDelta); ok && d.Text != "\n\n" {
		if sc.firstNS.Load() == 0 {
			sc.firstNS.CompareAndSwap(0, nowNS())
		}
		sc.deltas.Add(1)
	}
}

func checkTools(scenarios int64) {
	if n := toolCalls.Load(); n != scenarios*toolCallsPerRun {
		fmt.Fprintf(os.Stderr, "floorhost: %d tool calls for %d scenarios\n", n, scenarios)
		os.Exit(3)
	}
}

func check(what string, err error) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "floorhost: %s failed: %v\n", what, err)
		os.Exit(2)
	}
}

func nowNS() int64 { return int64(C.floor_now_ns()) }

// cpuNS is the process's user + system CPU time.
func cpuNS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// peakRSSKB is VmHWM of /proc/self/status, in KB.
func peakRSSKB() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) >= 2 && fields[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(fields[1], 10, 64)
			return kb
		}
	}
	return 0
}

// startProfiles starts the profiles FLOORHOST_CPUPROFILE and FLOORHOST_MEMPROFILE ask for and
// returns what writes them.
func startProfiles() func() {
	var stops []func()
	if path := os.Getenv("FLOORHOST_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		check("FLOORHOST_CPUPROFILE", err)
		check("StartCPUProfile", pprof.StartCPUProfile(f))
		stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
	}
	if path := os.Getenv("FLOORHOST_MEMPROFILE"); path != "" {
		runtime.MemProfileRate = 1
		stops = append(stops, func() {
			runtime.GC() // the profile is as of the last collection: take in every allocation
			f, err := os.Create(path)
			check("FLOORHOST_MEMPROFILE", err)
			check("WriteHeapProfile", pprof.Lookup("allocs").WriteTo(f, 0))
			f.Close()
		})
	}
	return func() {
		for _, stop := range stops {
			stop()
		}
	}
}
