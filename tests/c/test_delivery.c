/* Wait means delivered: the README quick start (new session -> submit -> wait -> free) many
 * times in every delivery mode, each run checked for the exact text and its turn_completed;
 * the same with robota_session_run in place of submit + wait (inline: every callback on the
 * calling thread); and robota_session_free returning promptly when the runtime was freed
 * first. */
#include "harness.h"

#include <stdatomic.h>

#define QS_DELTAS 60
/* Iterations per delivery mode; ROBOTA_C_TEST_QUICKSTART_RUNS overrides (see c_abi.rs). */
#define QS_RUNS_DEFAULT 200

/* One delta: "d00 " .. "d59 " (4 bytes each, plain ASCII so pull JSON needs no unescaping). */
static void qs_delta(int i, char out[5]) { snprintf(out, 5, "d%02d ", i); }

static void qs_expected(char *out) {
    out[0] = '\0';
    for (int i = 0; i < QS_DELTAS; i++) {
        char d[5];
        qs_delta(i, d);
        strcat(out, d);
    }
}

static robota_runtime *qs_runtime(void) {
    char config[2048];
    int n = snprintf(config, sizeof config, "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":[{\"deltas\":[");
    for (int i = 0; i < QS_DELTAS; i++) {
        char d[5];
        qs_delta(i, d);
        n += snprintf(config + n, sizeof config - (size_t)n, "%s\"%s\"", i ? "," : "", d);
    }
    snprintf(config + n, sizeof config - (size_t)n, "]}]}}}");
    return make_runtime(config);
}

static int qs_runs(void) {
    const char *env = getenv("ROBOTA_C_TEST_QUICKSTART_RUNS");
    int n = env ? atoi(env) : QS_RUNS_DEFAULT;
    return n > 0 ? n : QS_RUNS_DEFAULT;
}

/* What one session's callback saw. The mutex only orders the callback's writes with the
 * reads below; `wait` returning is the synchronisation under test. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char text[QS_DELTAS * 4 + 1];
    size_t len;
    int overflow;
    int completed;
    int completed_ok;
    int events;
    int freed;
    /* robota_session_run with inline delivery: callbacks seen on another thread than this. */
    int check_caller;
    pthread_t caller;
    int elsewhere;
} qs_seen;

static void qs_on_event(void *ud, robota_session *s, uint32_t kind, uint64_t turn, const char *p, size_t n) {
    (void)s; (void)turn;
    qs_seen *q = (qs_seen *)ud;
    pthread_mutex_lock(&q->mu);
    q->events++;
    if (q->check_caller && !pthread_equal(pthread_self(), q->caller)) q->elsewhere++;
    if (kind == ROBOTA_EVENT_TEXT_DELTA) {
        if (q->len + n < sizeof q->text) {
            memcpy(q->text + q->len, p, n);
            q->len += n;
            q->text[q->len] = '\0';
        } else {
            q->overflow = 1;
        }
    } else if (kind == ROBOTA_EVENT_TURN_COMPLETED) {
        q->completed++;
        if (strstr(p, "\"stop_reason\":\"complete\"")) q->completed_ok++;
    }
    pthread_mutex_unlock(&q->mu);
}

static void qs_free(void *ud) {
    qs_seen *q = (qs_seen *)ud;
    pthread_mutex_lock(&q->mu);
    q->freed++;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

/* Checks one run; returns 1 when it saw the whole answer and exactly one turn_completed. */
static int qs_check(qs_seen *q, const char *expected, int run, const char *mode) {
    pthread_mutex_lock(&q->mu);
    int ok = !q->overflow && strcmp(q->text, expected) == 0 && q->completed == 1 && q->completed_ok == 1;
    if (!ok)
        fprintf(stderr, "  FAIL %s run %d: %zu of %zu characters, %d turn_completed\n", mode, run, q->len,
                strlen(expected), q->completed);
    pthread_mutex_unlock(&q->mu);
    return ok;
}

/* The README quick start with an event callback: thread, inline or pump delivery; with
 * `drive`, robota_session_run instead of submit + wait. */
static void quickstart_callback_mode(const char *mode, int drive) {
    robota_runtime *rt = qs_runtime();
    char expected[QS_DELTAS * 4 + 1];
    qs_expected(expected);
    char sjson[128];
    snprintf(sjson, sizeof sjson, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"delivery\":\"%s\"}", mode);
    int pump = strcmp(mode, "pump") == 0;
    int runs = qs_runs(), good = 0;
    for (int run = 0; run < runs; run++) {
        qs_seen q;
        memset(&q, 0, sizeof q);
        pthread_mutex_init(&q.mu, NULL);
        pthread_cond_init(&q.cv, NULL);
        robota_session *s = NULL;
        CHECK_EQ_INT(robota_session_new(rt, sjson, qs_on_event, &q, qs_free, &s, NULL), ROBOTA_OK);
        uint64_t turn = 0;
        if (drive) {
            q.check_caller = strcmp(mode, "inline") == 0;
            q.caller = pthread_self();
            CHECK_EQ_INT(robota_session_run(s, "{\"text\":\"go\"}", &turn, NULL), ROBOTA_OK);
            CHECK_EQ_INT((int)turn, 1);
            pthread_mutex_lock(&q.mu);
            CHECK_EQ_INT(q.elsewhere, 0);
            pthread_mutex_unlock(&q.mu);
        } else {
            CHECK_EQ_INT(robota_session_submit(s, "{\"text\":\"go\"}", &turn, NULL), ROBOTA_OK);
            CHECK_EQ_INT(robota_session_wait(s, turn, 30000, NULL), ROBOTA_OK);
        }
        if (pump) {
            /* everything of the turn is queued: one dispatch hands it all over */
            pthread_mutex_lock(&q.mu);
            int before = q.events;
            pthread_mutex_unlock(&q.mu);
            CHECK_EQ_INT(before, 0);
            int n = robota_session_dispatch(s, 0, 0);
            pthread_mutex_lock(&q.mu);
            CHECK_EQ_INT(n, q.events);
            pthread_mutex_unlock(&q.mu);
        }
        int ok = qs_check(&q, expected, run, mode);
        robota_session_free(s);
        /* free_fn runs once, after the last callback; free took nothing back */
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += 30;
        pthread_mutex_lock(&q.mu);
        while (q.freed == 0 && pthread_cond_timedwait(&q.cv, &q.mu, &deadline) == 0) {
        }
        CHECK_EQ_INT(q.freed, 1);
        pthread_mutex_unlock(&q.mu);
        ok = ok && qs_check(&q, expected, run, mode);
        good += ok;
        pthread_mutex_destroy(&q.mu);
        pthread_cond_destroy(&q.cv);
    }
    CHECK_EQ_INT(good, runs);
    robota_runtime_free(rt);
}

void test_quickstart_thread(void) { quickstart_callback_mode("thread", 0); }

void test_quickstart_inline(void) { quickstart_callback_mode("inline", 0); }

void test_quickstart_pump(void) { quickstart_callback_mode("pump", 0); }

void test_quickstart_run_thread(void) { quickstart_callback_mode("thread", 1); }

void test_quickstart_run_inline(void) { quickstart_callback_mode("inline", 1); }

/* Appends the "text" of a pull text_delta event to `out`. */
static void pull_text(const char *ev, char *out, size_t cap) {
    const char *t = strstr(ev, "\"text\":\"");
    if (!t) return;
    t += strlen("\"text\":\"");
    const char *end = strchr(t, '"');
    size_t have = strlen(out), n = end ? (size_t)(end - t) : 0;
    if (have + n < cap) {
        memcpy(out + have, t, n);
        out[have + n] = '\0';
    }
}

void test_quickstart_pull(void) {
    robota_runtime *rt = qs_runtime();
    char expected[QS_DELTAS * 4 + 1];
    qs_expected(expected);
    int runs = qs_runs(), good = 0;
    for (int run = 0; run < runs; run++) {
        robota_session *s = make_session(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"delivery\":\"pull\"}", NULL, NULL);
        uint64_t turn = 0;
        CHECK_EQ_INT(robota_session_submit(s, "{\"text\":\"go\"}", &turn, NULL), ROBOTA_OK);
        CHECK_EQ_INT(robota_session_wait(s, turn, 30000, NULL), ROBOTA_OK);
        /* everything of the turn is queued: polling (no wait) hands it all over */
        char text[QS_DELTAS * 4 + 1] = "";
        int completed = 0, last_completed = 0;
        for (;;) {
            char *ev = NULL;
            robota_status st = robota_session_next_event(s, 0, &ev, NULL);
            if (st != ROBOTA_OK) {
                CHECK_EQ_INT(st, ROBOTA_E_TIMEOUT);
                break;
            }
            last_completed = strstr(ev, "\"type\":\"turn_completed\"") != NULL;
            if (strstr(ev, "\"type\":\"text_delta\"")) pull_text(ev, text, sizeof text);
            if (last_completed && strstr(ev, "\"stop_reason\":\"complete\"")) completed++;
            robota_string_free(ev);
        }
        int ok = strcmp(text, expected) == 0 && completed == 1 && last_completed;
        if (!ok)
            fprintf(stderr, "  FAIL pull run %d: %zu of %zu characters, %d turn_completed\n", run, strlen(text),
                    strlen(expected), completed);
        good += ok;
        robota_session_free(s);
    }
    CHECK_EQ_INT(good, runs);
    robota_runtime_free(rt);
}

/* A callback that sleeps on the dispatcher thread (the scenario, not a synchronisation). */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int entered;
    atomic_int slept;
    atomic_int freed;
} sleeper;

#define SLEEPER_MS 1500

static void sleeper_on_event(void *ud, robota_session *s, uint32_t kind, uint64_t turn, const char *p, size_t n) {
    (void)s; (void)turn; (void)p; (void)n;
    sleeper *z = (sleeper *)ud;
    if (kind != ROBOTA_EVENT_TURN_STARTED) return;
    pthread_mutex_lock(&z->mu);
    z->entered = 1;
    pthread_cond_broadcast(&z->cv);
    pthread_mutex_unlock(&z->mu);
    sleep_ms(SLEEPER_MS);
    atomic_store(&z->slept, 1);
}

static void sleeper_free(void *ud) {
    sleeper *z = (sleeper *)ud;
    pthread_mutex_lock(&z->mu);
    atomic_store(&z->freed, 1 + atomic_load(&z->slept));
    pthread_cond_broadcast(&z->cv);
    pthread_mutex_unlock(&z->mu);
}

void test_free_session_after_runtime_is_prompt(void) {
    robota_runtime *rt = qs_runtime();
    sleeper z;
    memset(&z, 0, sizeof z);
    pthread_mutex_init(&z.mu, NULL);
    pthread_cond_init(&z.cv, NULL);
    shutdown_watch w;
    shutdown_watch_start(&w, rt);
    robota_session *s = NULL;
    CHECK_EQ_INT(robota_session_new(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\"}", sleeper_on_event, &z,
                                    sleeper_free, &s, NULL),
                 ROBOTA_OK);
    CHECK(submit_text(s, "go") != 0);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 30;
    pthread_mutex_lock(&z.mu);
    while (!z.entered && pthread_cond_timedwait(&z.cv, &z.mu, &deadline) == 0) {
    }
    CHECK_EQ_INT(z.entered, 1);
    pthread_mutex_unlock(&z.mu);
    /* the callback now sleeps on the dispatcher thread; the runtime goes first */
    robota_runtime_free(rt);
    robota_session_free(s);
    /* free returned while the callback still slept: it did not wait for it */
    CHECK_EQ_INT(atomic_load(&z.slept), 0);
    CHECK_EQ_INT(atomic_load(&z.freed), 0);
    /* free_fn runs once, after the sleeping callback returned */
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 30;
    pthread_mutex_lock(&z.mu);
    while (atomic_load(&z.freed) == 0 && pthread_cond_timedwait(&z.cv, &z.mu, &deadline) == 0) {
    }
    pthread_mutex_unlock(&z.mu);
    CHECK_EQ_INT(atomic_load(&z.freed), 2);
    /* the runtime finishes shutting down on a library thread; its registrations go last */
    shutdown_watch_wait(&w);
    pthread_mutex_destroy(&z.mu);
    pthread_cond_destroy(&z.cv);
}
