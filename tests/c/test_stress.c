/* Concurrency stress through the C ABI: several host threads submit, abort, answer tool calls
 * and permission requests, read messages, poll waits, and free and replace sessions, all at
 * random and racing each other (a thread may use a session handle another thread just freed:
 * the ABI answers ROBOTA_E_INVALID_HANDLE). Run natively, under valgrind, under ASan and under
 * ThreadSanitizer (.ci/tsan.sh), with sessions in "thread" and "inline" delivery. Ops per thread: ROBOTA_C_TEST_STRESS_OPS (default 400). */
#include "harness.h"

#define ST_SLOTS 4
#define ST_THREADS 6
#define ST_RING 64
#define ST_OPS_DEFAULT 400

typedef struct {
    robota_runtime *rt;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    robota_session *slots[ST_SLOTS];
    uint64_t calls[ST_RING]; /* tool call ids seen in events, not yet answered by a worker */
    int ncalls;
    uint64_t reqs[ST_RING];  /* permission request ids */
    int nreqs;
    int created, freed;      /* sessions opened / free_fn runs */
    int completed;           /* TURN_COMPLETED events */
    int answer_inline;       /* final phase: answer inside the callback */
    int bad_status;
} stress;

static stress g_st;

static int st_ops(void) {
    const char *env = getenv("ROBOTA_C_TEST_STRESS_OPS");
    int n = env ? atoi(env) : ST_OPS_DEFAULT;
    return n > 0 ? n : ST_OPS_DEFAULT;
}

static int st_u64(const char *p, const char *key, uint64_t *out) {
    const char *k = strstr(p, key);
    if (!k) return 0;
    *out = strtoull(k + strlen(key), NULL, 10);
    return 1;
}

static void st_push(uint64_t *ring, int *n, uint64_t id) {
    if (*n < ST_RING) ring[(*n)++] = id;
}

static int st_pop(uint64_t *ring, int *n, unsigned *seed, uint64_t *out) {
    if (*n == 0) return 0;
    int i = (int)(rand_r(seed) % (unsigned)*n);
    *out = ring[i];
    ring[i] = ring[--(*n)];
    return 1;
}

static void st_event(void *ud, robota_session *s, uint32_t kind, uint64_t turn, const char *p, size_t n) {
    (void)s;
    (void)turn;
    (void)n;
    stress *st = (stress *)ud;
    uint64_t id = 0;
    pthread_mutex_lock(&st->mu);
    int inline_answer = st->answer_inline;
    if (kind == ROBOTA_EVENT_TOOL_CALL && st_u64(p, "\"call_id\":", &id) && !inline_answer)
        st_push(st->calls, &st->ncalls, id);
    if (kind == ROBOTA_EVENT_PERMISSION_REQUEST && st_u64(p, "\"request_id\":", &id) && !inline_answer)
        st_push(st->reqs, &st->nreqs, id);
    if (kind == ROBOTA_EVENT_TURN_COMPLETED) st->completed++;
    pthread_cond_broadcast(&st->cv);
    pthread_mutex_unlock(&st->mu);
    if (inline_answer && kind == ROBOTA_EVENT_TOOL_CALL && st_u64(p, "\"call_id\":", &id))
        CHECK_EQ_INT(robota_tool_call_complete(st->rt, id, "{\"value\":\"v\"}", 0, NULL), ROBOTA_OK);
    if (inline_answer && kind == ROBOTA_EVENT_PERMISSION_REQUEST && st_u64(p, "\"request_id\":", &id))
        CHECK_EQ_INT(robota_request_respond(st->rt, id, "{\"decision\":\"allow\",\"remember\":false}", NULL),
                     ROBOTA_OK);
}

static void st_free_fn(void *ud) {
    stress *st = (stress *)ud;
    pthread_mutex_lock(&st->mu);
    st->freed++;
    pthread_cond_broadcast(&st->cv);
    pthread_mutex_unlock(&st->mu);
}

/* Sessions alternate between "thread" and "inline" delivery (callbacks on a callback thread
 * or on the async worker), so both race the same operations. */
static robota_session *st_open(stress *st) {
    robota_session *s = NULL;
    pthread_mutex_lock(&st->mu);
    int n = st->created++;
    pthread_mutex_unlock(&st->mu);
    const char *json = n % 2 ? "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"delivery\":\"inline\"}"
                             : "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"delivery\":\"thread\"}";
    robota_status rc = robota_session_new(st->rt, json, st_event, st, st_free_fn, &s, NULL);
    CHECK_EQ_INT(rc, ROBOTA_OK);
    return s;
}

static robota_session *st_slot(stress *st, int i) {
    pthread_mutex_lock(&st->mu);
    robota_session *s = st->slots[i];
    pthread_mutex_unlock(&st->mu);
    return s;
}

static void st_expect(robota_status got, const char *op, int ok_mask) {
    /* ok_mask: bit per allowed status, by -status (ROBOTA_OK = 0). */
    int bit = got <= 0 && got > -31 ? 1 << -got : 0;
    if (!(ok_mask & bit)) {
        fprintf(stderr, "  FAIL stress: %s returned %d (%s)\n", op, (int)got, robota_status_str(got));
        pthread_mutex_lock(&g_st.mu);
        g_st.bad_status++;
        pthread_mutex_unlock(&g_st.mu);
    }
}

#define B(s) (1 << -(s))

static void *st_worker(void *arg) {
    stress *st = &g_st;
    unsigned seed = (unsigned)(uintptr_t)arg * 7919u + 17u;
    int ops = st_ops();
    for (int k = 0; k < ops; k++) {
        int slot = (int)(rand_r(&seed) % ST_SLOTS);
        robota_session *s = st_slot(st, slot);
        uint64_t id = 0;
        char *out = NULL;
        switch (rand_r(&seed) % 8) {
        case 0:
        case 1:
            st_expect(robota_session_submit(s, "{\"text\":\"go\"}", &id, NULL), "submit",
                      B(ROBOTA_OK) | B(ROBOTA_E_BUSY) | B(ROBOTA_E_INVALID_HANDLE) | B(ROBOTA_E_CLOSED));
            break;
        case 2:
            st_expect(robota_session_abort(s, 0), "abort", B(ROBOTA_OK) | B(ROBOTA_E_INVALID_HANDLE));
            break;
        case 3: {
            pthread_mutex_lock(&st->mu);
            int have = st_pop(st->calls, &st->ncalls, &seed, &id);
            pthread_mutex_unlock(&st->mu);
            if (have)
                st_expect(robota_tool_call_complete(st->rt, id, "{\"value\":\"v\"}", rand_r(&seed) % 2, NULL),
                          "tool_call_complete", B(ROBOTA_OK) | B(ROBOTA_E_STALE) | B(ROBOTA_E_NOT_FOUND));
            break;
        }
        case 4: {
            pthread_mutex_lock(&st->mu);
            int have = st_pop(st->reqs, &st->nreqs, &seed, &id);
            pthread_mutex_unlock(&st->mu);
            const char *ans = rand_r(&seed) % 2 ? "{\"decision\":\"allow\",\"remember\":false}"
                                                : "{\"decision\":\"deny\",\"remember\":false}";
            if (have)
                st_expect(robota_request_respond(st->rt, id, ans, NULL), "request_respond",
                          B(ROBOTA_OK) | B(ROBOTA_E_STALE) | B(ROBOTA_E_NOT_FOUND));
            break;
        }
        case 5: {
            robota_session *fresh = st_open(st);
            pthread_mutex_lock(&st->mu);
            robota_session *old = st->slots[slot];
            st->slots[slot] = fresh;
            pthread_mutex_unlock(&st->mu);
            robota_session_free(old);
            break;
        }
        case 6:
            st_expect(robota_session_messages(s, NULL, &out, NULL), "messages",
                      B(ROBOTA_OK) | B(ROBOTA_E_INVALID_HANDLE));
            robota_string_free(out);
            break;
        default:
            st_expect(robota_session_wait(s, 0, (int)(rand_r(&seed) % 3), NULL), "wait",
                      B(ROBOTA_OK) | B(ROBOTA_E_TIMEOUT) | B(ROBOTA_E_ABORTED) | B(ROBOTA_E_INVALID_HANDLE) |
                          B(ROBOTA_E_PROVIDER));
            break;
        }
    }
    return NULL;
}

/* Each script turn calls `lookup` (a host tool without callback: TOOL_CALL events; needs
 * permission in default mode: PERMISSION_REQUEST events), then answers with text. */
#define ST_TURN "{\"tool_calls\":[{\"name\":\"lookup\",\"arguments\":{\"key\":\"k\"}}]},{\"deltas\":[\"do\",\"ne\"]},"

void test_concurrency_stress(void) {
    char config[4096];
    int off = snprintf(config, sizeof config, "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":[");
    for (int i = 0; i < 40; i++) off += snprintf(config + off, sizeof config - (size_t)off, "%s", ST_TURN);
    snprintf(config + off - 1, sizeof config - (size_t)off + 1, "],\"fallback\":\"echo\"}}}");
    stress *st = &g_st;
    memset(st, 0, sizeof *st);
    pthread_mutex_init(&st->mu, NULL);
    pthread_cond_init(&st->cv, NULL);
    st->rt = make_runtime(config);
    CHECK_EQ_INT(robota_runtime_register_tool(
                     st->rt,
                     "{\"name\":\"lookup\",\"description\":\"Looks a key up\",\"input_schema\":{\"type\":\"object\","
                     "\"properties\":{\"key\":{\"type\":\"string\"}},\"required\":[\"key\"]}}",
                     NULL, NULL, NULL, NULL),
                 ROBOTA_OK);
    for (int i = 0; i < ST_SLOTS; i++) st->slots[i] = st_open(st);

    pthread_t th[ST_THREADS];
    for (int i = 0; i < ST_THREADS; i++) pthread_create(&th[i], NULL, st_worker, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < ST_THREADS; i++) pthread_join(th[i], NULL);
    CHECK_EQ_INT(st->bad_status, 0);

    /* Every slot still works: abort what runs and wait until idle; then (below) a turn of a
     * fresh session answered inside the callback completes with the tool's result. */
    for (int i = 0; i < ST_SLOTS; i++) {
        robota_session *s = st->slots[i];
        CHECK_EQ_INT(robota_session_abort(s, 0), ROBOTA_OK);
        robota_status w = robota_session_wait(s, 0, 30000, NULL);
        CHECK(w == ROBOTA_OK || w == ROBOTA_E_ABORTED || w == ROBOTA_E_PROVIDER);
    }
    pthread_mutex_lock(&st->mu);
    st->answer_inline = 1;
    uint64_t calls[ST_RING], reqs[ST_RING];
    int ncalls = st->ncalls, nreqs = st->nreqs;
    memcpy(calls, st->calls, sizeof calls);
    memcpy(reqs, st->reqs, sizeof reqs);
    st->ncalls = st->nreqs = 0;
    pthread_mutex_unlock(&st->mu);
    /* Ids seen before the aborts are all finished now: answering them is stale, never OK. */
    for (int i = 0; i < ncalls; i++) {
        robota_status c = robota_tool_call_complete(st->rt, calls[i], "{}", 0, NULL);
        CHECK(c == ROBOTA_E_STALE || c == ROBOTA_E_NOT_FOUND);
    }
    for (int i = 0; i < nreqs; i++) {
        robota_status c = robota_request_respond(st->rt, reqs[i], "{\"decision\":\"deny\"}", NULL);
        CHECK(c == ROBOTA_E_STALE || c == ROBOTA_E_NOT_FOUND);
    }
    robota_session *fresh = st_open(st);
    uint64_t t = submit_text(fresh, "final");
    CHECK_EQ_INT(robota_session_wait(fresh, t, 30000, NULL), ROBOTA_OK);
    char *m = messages_json(fresh, NULL);
    CHECK_CONTAINS(m, "\"name\":\"lookup\"");
    CHECK_CONTAINS(m, "done");
    robota_string_free(m);
    robota_session_free(fresh);

    for (int i = 0; i < ST_SLOTS; i++) robota_session_free(st->slots[i]);
    robota_runtime_free(st->rt);
    /* Every session's free_fn ran exactly once. */
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 30;
    pthread_mutex_lock(&st->mu);
    while (st->freed < st->created && pthread_cond_timedwait(&st->cv, &st->mu, &deadline) == 0) {
    }
    int created = st->created, freed = st->freed, completed = st->completed;
    pthread_mutex_unlock(&st->mu);
    fprintf(stderr, "  stress: %d sessions, %d turns completed\n", created, completed);
    CHECK_EQ_INT(freed, created);
    CHECK(completed > 0);
    pthread_mutex_destroy(&st->mu);
    pthread_cond_destroy(&st->cv);
}
