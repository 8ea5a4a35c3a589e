/* The floor benchmark's C host: drives the library only through include/robota.h, as an
 * embedding application would. Built and spawned by benches/floor/main.rs (one fresh process
 * per measurement).
 *
 *   floor_host MODE KIND BASE_URL [PATTERN]
 *     MODE single : one scenario; prints {"first_delta_ns":T,"done_ns":T} (CLOCK_MONOTONIC)
 *     MODE warm   : one warm-up scenario, then 50 in a row; prints {"wall_ns","cpu_ns"}
 *     MODE conc   : 100 scenarios at once (100 sessions); prints {"wall_ns","cpu_ns"}
 *     (every line also carries "peak_rss_kb": VmHWM at the end)
 *     KIND        : anthropic | openai
 *     PATTERN     : how the host runs its sessions' turns (default thread):
 *       thread  submit + wait, "delivery":"thread" (callbacks on a library thread)
 *       inline  submit + wait, "delivery":"inline" (callbacks on the library's async worker)
 *       run     robota_session_run: the host's thread runs the turn ("delivery":"inline")
 *               — these three run conc with one host thread per session
 *       submit  "delivery":"thread"; conc: one host thread submits all 100, then waits each
 *       pump    "delivery":"pump"; one host thread submits, then robota_session_dispatch
 *       pull    "delivery":"pull", the tool registered without a callback; one host thread
 *               submits, then reads robota_session_next_event and answers the tool calls
 *     pump and pull serve every session from one thread: a pass over the sessions without
 *     waiting, and when a pass found nothing, a wait of up to 1 ms on the oldest running one.
 *     FLOOR_HOST_MEET=1 (conc, run only): the 100 host threads meet in their first tool call,
 *     so that all 100 turns are under way at once (peak memory of 100 driving threads, not
 *     of however many the scheduler happened to overlap).
 *
 * Built with -DFLOOR_HOST_FORWARD (benches/bindings/cgofloor, benches/bindings/csharp's
 * PInvokeFloor), it also hands every event callback's kind, and 0 for a tool call, to
 * floor_forward, a function of the embedding language (an empty Go function through cgo, a
 * managed delegate): the least any binding of that language pays per callback. Not in pull,
 * which has no callbacks.
 *
 * A scenario: a new session with one host tool add(a,b); the model calls it in 3 rounds, then
 * streams a 50-delta answer. The host checks every scenario saw 53 model text deltas (one per
 * tool round plus 50) and 3 tool calls, and exits non-zero otherwise.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "robota.h"

#define WARM_RUNS 50
#define CONC_RUNS 100
#define DELTAS_PER_SCENARIO 53
#define TOOL_CALLS_PER_SCENARIO 3

#ifdef FLOOR_HOST_FORWARD
void floor_forward(uint32_t kind);
#define FORWARD(kind) floor_forward(kind)
#else
#define FORWARD(kind) ((void)0)
#endif

enum pattern { THREAD, INLINE, RUN, SUBMIT, PUMP, PULL };

static robota_runtime *rt;
static atomic_long tool_calls;
static char session_json[256];
static enum pattern pattern;
static int meet; /* FLOOR_HOST_MEET: conc run threads wait for each other in their first call */
static pthread_barrier_t all_under_way;
static _Thread_local int met;

struct scenario {
    robota_session *session;
    uint64_t turn;
    atomic_long deltas;
    atomic_llong first_delta_ns;
    atomic_int done; /* pump and pull: the turn's TURN_COMPLETED was handed over */
};

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long cpu_ns(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ((long long)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
           ((long long)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

/* Peak resident set of this process (VmHWM), in KB. */
static long peak_rss_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) kb = strtol(line + 6, NULL, 10);
    if (f) fclose(f);
    return kb;
}

static void die(const char *what, robota_error *err) {
    fprintf(stderr, "floor_host: %s failed: %s\n", what, err ? robota_error_message(err) : "?");
    exit(2);
}

/* One model text delta reached the host (the library streams a "\n\n" separator between
 * rounds' texts: not a model delta). */
static void count_delta(struct scenario *sc, const char *p, size_t n) {
    if (n == 2 && p[0] == '\n' && p[1] == '\n') return;
    long long zero = 0;
    atomic_compare_exchange_strong(&sc->first_delta_ns, &zero, now_ns());
    atomic_fetch_add(&sc->deltas, 1);
}

static void on_event(void *ud, robota_session *s, uint32_t kind, uint64_t turn, const char *p,
                     size_t n) {
    (void)s, (void)turn;
    struct scenario *sc = ud;
    FORWARD(kind);
    if (kind == ROBOTA_EVENT_TEXT_DELTA) count_delta(sc, p, n);
    else if (kind == ROBOTA_EVENT_TURN_COMPLETED) atomic_store(&sc->done, 1);
}

/* Input holds "a":N and "b":M; answers the sum as a JSON number. */
static void answer_add(uint64_t call_id, const char *input) {
    long a = 0, b = 0;
    const char *pa = strstr(input, "\"a\":");
    const char *pb = strstr(input, "\"b\":");
    if (pa) a = strtol(pa + 4, NULL, 10);
    if (pb) b = strtol(pb + 4, NULL, 10);
    char out[32];
    snprintf(out, sizeof out, "%ld", a + b);
    atomic_fetch_add(&tool_calls, 1);
    robota_error *err = NULL;
    if (robota_tool_call_complete(rt, call_id, out, 0, &err) != ROBOTA_OK) die("tool_call_complete", err);
}

static void on_tool(void *ud, robota_session *s, uint64_t call_id, const char *name,
                    const char *input, size_t n) {
    (void)ud, (void)s, (void)name, (void)n;
    FORWARD(0);
    if (meet && !met) {
        met = 1;
        pthread_barrier_wait(&all_under_way);
    }
    answer_add(call_id, input);
}

static void start(struct scenario *sc) {
    robota_error *err = NULL;
    atomic_store(&sc->deltas, 0);
    atomic_store(&sc->first_delta_ns, 0);
    atomic_store(&sc->done, 0);
    if (robota_session_new(rt, session_json, on_event, sc, NULL, &sc->session, &err) != ROBOTA_OK)
        die("session_new", err);
    const char *prompt = "{\"text\":\"Add 1 and 2, three times.\"}";
    if (pattern == RUN) {
        if (robota_session_run(sc->session, prompt, &sc->turn, &err) != ROBOTA_OK)
            die("session_run", err);
    } else if (robota_session_submit(sc->session, prompt, &sc->turn, &err) != ROBOTA_OK) {
        die("session_submit", err);
    }
}

static void finish(struct scenario *sc) {
    robota_error *err = NULL;
    /* robota_session_wait returns once the turn's events were delivered (thread, inline), so
     * the counts below are final after it; pump and pull hosts saw TURN_COMPLETED already. */
    if ((pattern == THREAD || pattern == INLINE || pattern == SUBMIT) &&
        robota_session_wait(sc->session, sc->turn, -1, &err) != ROBOTA_OK)
        die("session_wait", err);
    robota_session_free(sc->session);
    if (atomic_load(&sc->deltas) != DELTAS_PER_SCENARIO) {
        fprintf(stderr, "floor_host: %ld text deltas, expected %d\n", atomic_load(&sc->deltas),
                DELTAS_PER_SCENARIO);
        exit(3);
    }
}

/* Pull: hands one event JSON to the scenario (text deltas, tool calls, the turn's end). */
static void on_pulled(struct scenario *sc, const char *json) {
    if (strstr(json, "\"type\":\"text_delta\"")) {
        const char *t = strstr(json, "\"text\":\"");
        int separator = t && strncmp(t + 8, "\\n\\n\"", 5) == 0;
        if (!separator) count_delta(sc, "x", 1);
    } else if (strstr(json, "\"type\":\"tool_call\"")) {
        const char *id = strstr(json, "\"call_id\":");
        const char *args = strstr(json, "\"arguments\":");
        if (!id || !args) die("tool_call event without call_id/arguments", NULL);
        answer_add(strtoull(id + 10, NULL, 10), args);
    } else if (strstr(json, "\"type\":\"turn_completed\"")) {
        atomic_store(&sc->done, 1);
    }
}

/* Pump or pull: delivers up to every queued event of one session, waiting up to timeout_ms
 * for the first; returns how many. */
static int serve_one(struct scenario *sc, int timeout_ms) {
    if (pattern == PUMP) {
        int n = robota_session_dispatch(sc->session, 0, timeout_ms);
        if (n < 0) die("session_dispatch", NULL);
        return n;
    }
    int n = 0;
    for (;;) {
        char *json = NULL;
        robota_error *err = NULL;
        robota_status st = robota_session_next_event(sc->session, n ? 0 : timeout_ms, &json, &err);
        if (st == ROBOTA_E_TIMEOUT) return n;
        if (st != ROBOTA_OK) die("session_next_event", err);
        on_pulled(sc, json);
        robota_string_free(json);
        n++;
        if (atomic_load(&sc->done)) return n;
    }
}

/* Pump or pull: one thread serves every session until all turns completed. */
static void serve_all(struct scenario *sc, int count) {
    for (;;) {
        int delivered = 0, oldest = -1;
        for (int i = 0; i < count; i++) {
            if (atomic_load(&sc[i].done)) continue;
            if (oldest < 0) oldest = i;
            delivered += serve_one(&sc[i], 0);
        }
        if (oldest < 0) return;
        if (!delivered) serve_one(&sc[oldest], count == 1 ? -1 : 1);
    }
}

static void *scenario_thread(void *arg) {
    start(arg);
    finish(arg);
    return NULL;
}

/* One scenario on this thread, in the pattern. */
static void one(struct scenario *sc) {
    start(sc);
    if (pattern == PUMP || pattern == PULL) serve_all(sc, 1);
    finish(sc);
}

static void check_tools(long scenarios) {
    if (atomic_load(&tool_calls) != scenarios * TOOL_CALLS_PER_SCENARIO) {
        fprintf(stderr, "floor_host: %ld tool calls for %ld scenarios\n", atomic_load(&tool_calls),
                scenarios);
        exit(3);
    }
}

static void conc(struct scenario *sc) {
    if (pattern == THREAD || pattern == INLINE || pattern == RUN) {
        static pthread_t threads[CONC_RUNS];
        meet = pattern == RUN && getenv("FLOOR_HOST_MEET") != NULL;
        if (meet && pthread_barrier_init(&all_under_way, NULL, CONC_RUNS) != 0)
            die("pthread_barrier_init", NULL);
        for (int i = 0; i < CONC_RUNS; i++)
            if (pthread_create(&threads[i], NULL, scenario_thread, &sc[i]) != 0) die("pthread_create", NULL);
        for (int i = 0; i < CONC_RUNS; i++) pthread_join(threads[i], NULL);
        return;
    }
    for (int i = 0; i < CONC_RUNS; i++) start(&sc[i]);
    if (pattern == PUMP || pattern == PULL) serve_all(sc, CONC_RUNS);
    for (int i = 0; i < CONC_RUNS; i++) finish(&sc[i]);
}

static int parse_pattern(const char *p) {
    static const char *names[] = {"thread", "inline", "run", "submit", "pump", "pull"};
    for (int i = 0; i < 6; i++)
        if (strcmp(p, names[i]) == 0) return i;
    return -1;
}

int main(int argc, char **argv) {
    int parsed = argc == 5 ? parse_pattern(argv[4]) : THREAD;
    if ((argc != 4 && argc != 5) || parsed < 0) {
        fprintf(stderr, "usage: floor_host single|warm|conc anthropic|openai BASE_URL "
                        "[thread|inline|run|submit|pump|pull]\n");
        return 64;
    }
    const char *mode = argv[1], *kind = argv[2], *url = argv[3];
    pattern = (enum pattern)parsed;
    static const char *delivery[] = {"thread", "inline", "inline", "thread", "pump", "pull"};
    snprintf(session_json, sizeof session_json,
             "{\"v\":1,\"provider\":\"p\",\"model\":\"m\",\"tools\":[\"add\"],"
             "\"permission_mode\":\"bypassPermissions\",\"delivery\":\"%s\"}",
             delivery[pattern]);
    char config[512];
    snprintf(config, sizeof config,
             "{\"v\":1,\"providers\":{\"p\":{\"kind\":\"%s\",\"base_url\":\"%s\","
             "\"api_key\":\"floor-key\",\"max_retries\":0}}}",
             kind, url);
    robota_error *err = NULL;
    if (robota_runtime_new(config, &rt, &err) != ROBOTA_OK) die("runtime_new", err);
    if (robota_runtime_register_tool(
            rt,
            "{\"name\":\"add\",\"description\":\"Adds two integers.\",\"read_only\":true,"
            "\"input_schema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},"
            "\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}}",
            pattern == PULL ? NULL : on_tool, NULL, NULL, &err) != ROBOTA_OK)
        die("register_tool", err);

    if (strcmp(mode, "single") == 0) {
        static struct scenario sc;
        one(&sc);
        long long done = now_ns();
        check_tools(1);
        printf("{\"first_delta_ns\":%lld,\"done_ns\":%lld,\"peak_rss_kb\":%ld}\n",
               atomic_load(&sc.first_delta_ns), done, peak_rss_kb());
    } else if (strcmp(mode, "warm") == 0) {
        static struct scenario sc;
        one(&sc);
        long long t0 = now_ns(), c0 = cpu_ns();
        for (int i = 0; i < WARM_RUNS; i++) one(&sc);
        long long wall = now_ns() - t0, cpu = cpu_ns() - c0;
        check_tools(WARM_RUNS + 1);
        printf("{\"wall_ns\":%lld,\"cpu_ns\":%lld,\"scenarios\":%d,\"peak_rss_kb\":%ld}\n", wall, cpu,
               WARM_RUNS, peak_rss_kb());
    } else if (strcmp(mode, "conc") == 0) {
        static struct scenario sc[CONC_RUNS];
        long long t0 = now_ns(), c0 = cpu_ns();
        conc(sc);
        long long wall = now_ns() - t0, cpu = cpu_ns() - c0;
        check_tools(CONC_RUNS);
        printf("{\"wall_ns\":%lld,\"cpu_ns\":%lld,\"scenarios\":%d,\"peak_rss_kb\":%ld}\n", wall, cpu,
               CONC_RUNS, peak_rss_kb());
    } else {
        fprintf(stderr, "floor_host: unknown mode %s\n", mode);
        return 64;
    }
    fflush(stdout);
    robota_runtime_free(rt);
    return 0;
}
