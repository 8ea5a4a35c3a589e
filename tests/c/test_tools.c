/* Host tools (sync, async, event-answered), abort mid-tool, permissions, hooks, pull, pump,
 * save/resume/fork, misuse. */
#include "harness.h"

#define TOOL_SCRIPT(args)                                                                         \
    "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":["                            \
    "{\"text\":\"Calling.\",\"tool_calls\":[{\"id\":\"call_0\",\"name\":\"lookup\",\"arguments\":" args "}]}," \
    "{\"deltas\":[\"Done.\"]}]}}}"

#define LOOKUP_TOOL                                                                              \
    "{\"name\":\"lookup\",\"description\":\"Looks a key up\",\"read_only\":true,"                \
    "\"input_schema\":{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\"}},\"required\":[\"key\"]}}"

#define WRITE_TOOL                                                                               \
    "{\"name\":\"lookup\",\"description\":\"Changes things\","                                   \
    "\"input_schema\":{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\"}}}}"

typedef struct {
    robota_runtime *rt;
    int sync;
    int calls;
    uint64_t last_id;
    char last_input[256];
    int freed;
    pthread_mutex_t mu;
} tool_ctx;

static void tool_cb(void *ud, robota_session *s, uint64_t call_id, const char *name, const char *input, size_t n) {
    (void)s;
    tool_ctx *t = (tool_ctx *)ud;
    pthread_mutex_lock(&t->mu);
    t->calls++;
    t->last_id = call_id;
    snprintf(t->last_input, sizeof t->last_input, "%s:%.*s", name, (int)n, input);
    pthread_mutex_unlock(&t->mu);
    if (t->sync) {
        CHECK_EQ_INT(robota_tool_call_complete(t->rt, call_id, "{\"value\":42}", 0, NULL), ROBOTA_OK);
        CHECK_EQ_INT(robota_tool_call_complete(t->rt, call_id, "{\"value\":43}", 0, NULL), ROBOTA_E_STALE);
    }
}

static void tool_free(void *ud) { ((tool_ctx *)ud)->freed++; }

static uint64_t wait_tool_call(tool_ctx *t) {
    for (int i = 0; i < 3000; i++) {
        pthread_mutex_lock(&t->mu);
        uint64_t id = t->last_id;
        pthread_mutex_unlock(&t->mu);
        if (id) return id;
        sleep_ms(10);
    }
    fprintf(stderr, "  FAIL no tool call arrived\n");
    g_failures++;
    return 0;
}

void test_host_tool_sync(void) {
    robota_runtime *rt = make_runtime(TOOL_SCRIPT("{\"key\":\"k1\"}"));
    tool_ctx t = {rt, 1, 0, 0, "", 0, PTHREAD_MUTEX_INITIALIZER};
    CHECK_EQ_INT(robota_runtime_register_tool(rt, LOOKUP_TOOL, tool_cb, &t, tool_free, NULL), ROBOTA_OK);
    robota_error *e = NULL;
    CHECK_EQ_INT(robota_runtime_register_tool(rt, LOOKUP_TOOL, tool_cb, &t, tool_free, &e), ROBOTA_E_INVALID_CONFIG);
    CHECK_CONTAINS(robota_error_message(e), "tool \"lookup\" is already registered");
    robota_error_free(e);
    recorder r;
    rec_init(&r);
    robota_session *s = make_session(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"tools\":[\"lookup\"]}", &r, NULL);
    uint64_t turn = submit_text(s, "find k1");
    CHECK_EQ_INT(robota_session_wait(s, turn, 30000, NULL), ROBOTA_OK);
    CHECK_EQ_INT(t.calls, 1);
    CHECK(strcmp(t.last_input, "lookup:{\"key\":\"k1\"}") == 0);
    rec_wait(&r, ROBOTA_EVENT_TURN_COMPLETED, 1);
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TOOL_START, 0), "\"first_arg\":\"k1\"");
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TOOL_END, 0), "\"result\":\"success\"");
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TOOL_END, 0), "\"output\":\"{\\\"value\\\":42}\"");
    const char *done = rec_payload(&r, ROBOTA_EVENT_TURN_COMPLETED, 0);
    CHECK_CONTAINS(done, "\"response\":\"Done.\"");
    CHECK_CONTAINS(done, "\"tool_summaries\":[{\"name\":\"lookup\",\"args\":{\"key\":\"k1\"}}]");
    char *m = messages_json(s, NULL);
    CHECK_CONTAINS(m, "\"role\":\"tool\",\"content\":\"{\\\"value\\\":42}\"");
    robota_string_free(m);
    m = messages_json(s, "{\"view\":\"history\"}");
    CHECK_CONTAINS(m, "\"type\":\"tool-start\"");
    CHECK_CONTAINS(m, "\"type\":\"tool-end\"");
    CHECK_CONTAINS(m, "\"type\":\"tool-summary\",\"data\":{\"tools\":[{\"toolName\":\"lookup\",\"firstArg\":\"k1\",\"isRunning\":false,\"result\":\"success\"}],\"summary\":\"\xe2\x9c\x93 lookup(k1)\"");
    robota_string_free(m);
    robota_session_free(s);
    robota_runtime_free(rt);
    CHECK_EQ_INT(t.freed, 1);
    CHECK_EQ_INT(rec_wait_freed(&r), 1);
    rec_destroy(&r);
}

typedef struct {
    robota_runtime *rt;
    uint64_t id;
} later_arg;

static void *complete_later(void *p) {
    later_arg *a = (later_arg *)p;
    sleep_ms(50);
    CHECK_EQ_INT(robota_tool_call_complete(a->rt, a->id, "plain text result", 0, NULL), ROBOTA_OK);
    return NULL;
}

void test_host_tool_async(void) {
    robota_runtime *rt = make_runtime(TOOL_SCRIPT("{\"key\":\"k2\"}"));
    tool_ctx t = {rt, 0, 0, 0, "", 0, PTHREAD_MUTEX_INITIALIZER};
    CHECK_EQ_INT(robota_runtime_register_tool(rt, LOOKUP_TOOL, tool_cb, &t, tool_free, NULL), ROBOTA_OK);
    robota_session *s = make_session(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\"}", NULL, NULL);
    uint64_t turn = submit_text(s, "find k2");
    later_arg a = {rt, wait_tool_call(&t)};
    pthread_t th;
    pthread_create(&th, NULL, complete_later, &a);
    CHECK_EQ_INT(robota_session_wait(s, turn, 30000, NULL), ROBOTA_OK);
    pthread_join(th, NULL);
    char *m = messages_json(s, NULL);
    CHECK_CONTAINS(m, "\"role\":\"tool\",\"content\":\"plain text result\"");
    robota_string_free(m);
    CHECK_EQ_INT(robota_tool_call_complete(rt, a.id, "again", 0, NULL), ROBOTA_E_STALE);
    robota_session_free(s);
    robota_runtime_free(rt);
    CHECK_EQ_INT(t.freed, 1);
}

void test_tool_call_event_and_abort_mid_tool(void) {
    robota_runtime *rt = make_runtime(TOOL_SCRIPT("{\"key\":\"k3\"}"));
    /* no tool callback: calls arrive as ROBOTA_EVENT_TOOL_CALL */
    CHECK_EQ_INT(robota_runtime_register_tool(rt, LOOKUP_TOOL, NULL, NULL, NULL, NULL), ROBOTA_OK);
    recorder r;
    rec_init(&r);
    robota_session *s = make_session(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\"}", &r, NULL);
    uint64_t turn = submit_text(s, "find k3");
    rec_wait(&r, ROBOTA_EVENT_TOOL_CALL, 1);
    const char *call = rec_payload(&r, ROBOTA_EVENT_TOOL_CALL, 0);
    CHECK_CONTAINS(call, "\"tool_name\":\"lookup\"");
    CHECK_CONTAINS(call, "\"arguments\":{\"key\":\"k3\"}");
    uint64_t id = strtoull(strstr(call, "\"call_id\":") + 10, NULL, 10);
    CHECK(id > 0);
    CHECK_EQ_INT(robota_session_abort(s, turn), ROBOTA_OK);
    CHECK_EQ_INT(robota_session_wait(s, turn, 30000, NULL), ROBOTA_E_ABORTED);
    rec_wait(&r, ROBOTA_EVENT_TOOL_CALL_CANCELLED, 1);
    char expect[64];
    snprintf(expect, sizeof expect, "\"call_id\":%llu", (unsigned long long)id);
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TOOL_CALL_CANCELLED, 0), expect);
    CHECK_EQ_INT(robota_tool_call_complete(rt, id, "{}", 0, NULL), ROBOTA_E_STALE);
    rec_wait(&r, ROBOTA_EVENT_TURN_COMPLETED, 1);
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TURN_COMPLETED, 0), "\"stop_reason\":\"aborted\"");
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TOOL_END, 0), "\"output\":\"Error: Execution interrupted by user\"");
    robota_session_free(s);
    robota_runtime_free(rt);
    rec_destroy(&r);
}

void test_permissions_allow_deny(void) {
    robota_runtime *rt = make_runtime(
        "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":["
        "{\"tool_calls\":[{\"name\":\"lookup\",\"arguments\":{\"key\":\"a\"}}]},{\"text\":\"ok1\"},"
        "{\"tool_calls\":[{\"name\":\"lookup\",\"arguments\":{\"key\":\"b\"}}]},{\"text\":\"ok2\"}]}}}");
    tool_ctx t = {rt, 1, 0, 0, "", 0, PTHREAD_MUTEX_INITIALIZER};
    CHECK_EQ_INT(robota_runtime_register_tool(rt, WRITE_TOOL, tool_cb, &t, tool_free, NULL), ROBOTA_OK);
    recorder r;
    rec_init(&r);
    r.answer_permissions = 1;
    robota_session *s = make_session(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\"}", &r, NULL);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "allow it"), 30000, NULL), ROBOTA_OK);
    CHECK_EQ_INT(t.calls, 1);
    rec_wait(&r, ROBOTA_EVENT_PERMISSION_REQUEST, 1);
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_PERMISSION_REQUEST, 0), "\"tool_name\":\"lookup\"");
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_PERMISSION_REQUEST, 0), "\"reason\":\"Tool \\\"lookup\\\" needs approval in default mode\"");
    r.answer_permissions = 2;
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "deny it"), 30000, NULL), ROBOTA_OK);
    CHECK_EQ_INT(t.calls, 1);
    rec_wait(&r, ROBOTA_EVENT_TOOL_END, 2);
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TOOL_END, 1), "\"result\":\"denied\"");
    char *m = messages_json(s, NULL);
    CHECK_CONTAINS(m, "Permission denied. The user did not approve this action.");
    robota_string_free(m);
    robota_session_free(s);
    robota_runtime_free(rt);
    rec_destroy(&r);
}

void test_hook_blocks(void) {
    robota_runtime *rt = make_runtime(TOOL_SCRIPT("{\"key\":\"secret\"}"));
    tool_ctx t = {rt, 1, 0, 0, "", 0, PTHREAD_MUTEX_INITIALIZER};
    CHECK_EQ_INT(robota_runtime_register_tool(rt, LOOKUP_TOOL, tool_cb, &t, tool_free, NULL), ROBOTA_OK);
    recorder r;
    rec_init(&r);
    r.answer_hooks = 3; /* exit code 2 = block */
    r.hook_stderr = "not allowed here";
    robota_session *s = make_session(rt,
        "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"hooks\":{\"PreToolUse\":[{\"matcher\":\"look\",\"hooks\":[{\"type\":\"host\"}]}]}}",
        &r, NULL);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "go"), 30000, NULL), ROBOTA_OK);
    CHECK_EQ_INT(t.calls, 0);
    rec_wait(&r, ROBOTA_EVENT_HOOK_REQUEST, 1);
    const char *h = rec_payload(&r, ROBOTA_EVENT_HOOK_REQUEST, 0);
    CHECK_CONTAINS(h, "\"hook_event_name\":\"PreToolUse\"");
    CHECK_CONTAINS(h, "\"tool_input\":{\"key\":\"secret\"}");
    char *m = messages_json(s, NULL);
    CHECK_CONTAINS(m, "Blocked by hook: not allowed here");
    robota_string_free(m);
    robota_session_free(s);
    robota_runtime_free(rt);
    rec_destroy(&r);
}

static void count_cb(void *ud, robota_session *s, uint32_t kind, uint64_t turn, const char *p, size_t n) {
    (void)s; (void)turn; (void)p; (void)n;
    recorder *r = (recorder *)ud;
    if (kind == ROBOTA_EVENT_TEXT_DELTA) {
        robota_error *e = NULL;
        r->reentrancy_status_dispatch = robota_session_dispatch(r->session, 1, 0);
        r->reentrancy_status_wait = robota_session_wait(r->session, 0, 10, &e);
        robota_error_free(e);
    }
    pthread_mutex_lock(&r->mu);
    if (r->count < REC_MAX_EVENTS) {
        r->events[r->count].kind = kind;
        r->events[r->count].payload = NULL;
        r->count++;
    }
    pthread_mutex_unlock(&r->mu);
}

void test_pump_mode(void) {
    robota_runtime *rt = make_runtime(
        "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":[{\"deltas\":[\"a\",\"b\",\"c\"]}]}}}");
    recorder r;
    rec_init(&r);
    robota_session *s = NULL;
    CHECK_EQ_INT(robota_session_new(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"delivery\":\"pump\"}",
                                    count_cb, &r, rec_free_fn, &s, NULL), ROBOTA_OK);
    r.session = s;
    uint64_t turn = submit_text(s, "x");
    CHECK_EQ_INT(robota_session_wait(s, turn, 30000, NULL), ROBOTA_OK);
    CHECK_EQ_INT(r.count, 0); /* nothing until the host pumps */
    int total = 0;
    for (int i = 0; i < 1000 && rec_count(&r, ROBOTA_EVENT_TURN_COMPLETED) == 0; i++) {
        int n = robota_session_dispatch(s, 2, 100);
        CHECK(n >= 0 && n <= 2);
        total += n;
    }
    CHECK_EQ_INT(rec_count(&r, ROBOTA_EVENT_TEXT_DELTA), 3);
    CHECK_EQ_INT(r.count, total);
    CHECK_EQ_INT(r.reentrancy_status_dispatch, ROBOTA_E_REENTRANT);
    CHECK_EQ_INT(r.reentrancy_status_wait, ROBOTA_E_REENTRANT);
    CHECK_EQ_INT(robota_session_dispatch(s, 0, 0) >= 0, 1);
    char *ev = NULL;
    CHECK_EQ_INT(robota_session_next_event(s, 0, &ev, NULL), ROBOTA_E_UNSUPPORTED);
    robota_session_free(s);
    robota_runtime_free(rt);
    CHECK_EQ_INT(rec_wait_freed(&r), 1);
    rec_destroy(&r);
}

static char *next_of_kind(robota_session *s, const char *type) {
    char needle[64];
    snprintf(needle, sizeof needle, "\"type\":\"%s\"", type);
    for (int i = 0; i < 200; i++) {
        char *ev = NULL;
        robota_status st = robota_session_next_event(s, 30000, &ev, NULL);
        if (st != ROBOTA_OK) {
            fprintf(stderr, "  FAIL next_event status %d waiting for %s\n", st, type);
            g_failures++;
            return NULL;
        }
        if (strstr(ev, needle)) return ev;
        robota_string_free(ev);
    }
    return NULL;
}

void test_pull_mode(void) {
    robota_runtime *rt = make_runtime(TOOL_SCRIPT("{\"key\":\"p\"}"));
    CHECK_EQ_INT(robota_runtime_register_tool(rt, WRITE_TOOL, NULL, NULL, NULL, NULL), ROBOTA_OK);
    robota_session *s = make_session(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"delivery\":\"pull\"}", NULL, NULL);
    char *ev = NULL;
    CHECK_EQ_INT(robota_session_next_event(s, 0, &ev, NULL), ROBOTA_E_TIMEOUT);
    CHECK(ev == NULL);
    uint64_t turn = submit_text(s, "pull it");
    ev = next_of_kind(s, "turn_started");
    CHECK_CONTAINS(ev, "{\"v\":1,\"kind\":1,\"type\":\"turn_started\",\"turn_id\":1,\"input\":{\"text\":\"pull it\"}}");
    robota_string_free(ev);
    ev = next_of_kind(s, "text_delta");
    CHECK_CONTAINS(ev, "\"text\":\"Calling.\"");
    robota_string_free(ev);
    ev = next_of_kind(s, "permission_request");
    uint64_t rid = strtoull(strstr(ev, "\"request_id\":") + 13, NULL, 10);
    robota_string_free(ev);
    robota_error *e = NULL;
    CHECK_EQ_INT(robota_request_respond(rt, rid, "{\"decision\":\"maybe\"}", &e), ROBOTA_E_INVALID_CONFIG);
    CHECK_CONTAINS(robota_error_message(e), "permission response must be");
    robota_error_free(e);
    CHECK_EQ_INT(robota_request_respond(rt, rid, "{\"decision\":\"allow\",\"remember\":true}", NULL), ROBOTA_OK);
    CHECK_EQ_INT(robota_request_respond(rt, rid, "{\"decision\":\"allow\"}", NULL), ROBOTA_E_STALE);
    ev = next_of_kind(s, "tool_call");
    CHECK_CONTAINS(ev, "\"arguments\":{\"key\":\"p\"}");
    uint64_t cid = strtoull(strstr(ev, "\"call_id\":") + 10, NULL, 10);
    robota_string_free(ev);
    CHECK_EQ_INT(robota_request_respond(rt, cid, "{\"decision\":\"allow\"}", NULL), ROBOTA_E_NOT_FOUND);
    CHECK_EQ_INT(robota_tool_call_complete(rt, cid, "\"pulled\"", 0, NULL), ROBOTA_OK);
    ev = next_of_kind(s, "turn_completed");
    CHECK_CONTAINS(ev, "\"response\":\"Done.\"");
    robota_string_free(ev);
    CHECK_EQ_INT(robota_session_wait(s, turn, 30000, NULL), ROBOTA_OK);
    char *out = NULL;
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"permissions\"}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "Session-approved tools: lookup");
    robota_string_free(out);
    CHECK_EQ_INT(robota_session_close(s), ROBOTA_OK);
    ev = next_of_kind(s, "session_closed");
    CHECK(ev != NULL);
    robota_string_free(ev);
    CHECK_EQ_INT(robota_session_next_event(s, 100, &ev, NULL), ROBOTA_E_CLOSED);
    CHECK_EQ_INT(robota_session_dispatch(s, 1, 0), ROBOTA_E_UNSUPPORTED);
    robota_session_free(s);
    robota_runtime_free(rt);
}

void test_save_resume_fork(void) {
    robota_runtime *rt = make_runtime(
        "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\","
        "\"turns\":[{\"text\":\"first answer\"}],\"fallback\":\"echo\"},"
        "\"h\":{\"kind\":\"anthropic\",\"api_key\":\"sk-very-secret\"}}}");
    robota_session *s = make_session(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"system_prompt\":\"sys\",\"name\":\"demo\"}", NULL, NULL);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "q1"), 30000, NULL), ROBOTA_OK);
    char *snap = NULL;
    CHECK_EQ_INT(robota_session_save(s, &snap, NULL), ROBOTA_OK);
    CHECK_CONTAINS(snap, "\"kind\":\"robota.session\"");
    CHECK_CONTAINS(snap, "\"v\":1");
    CHECK_CONTAINS(snap, "\"content\":\"first answer\"");
    CHECK(strstr(snap, "sk-very-secret") == NULL);
    size_t n = strlen(snap) + 64;
    char *resume = malloc(n);
    snprintf(resume, n, "{\"v\":1,\"snapshot\":%s}", snap);
    robota_session *r1 = NULL;
    CHECK_EQ_INT(robota_session_resume(rt, resume, NULL, NULL, NULL, &r1, NULL), ROBOTA_OK);
    free(resume);
    char *a = messages_json(s, NULL), *b = messages_json(r1, NULL);
    CHECK(strcmp(a, b) == 0);
    robota_string_free(a);
    robota_string_free(b);
    char *st = NULL;
    CHECK_EQ_INT(robota_session_state(r1, &st, NULL), ROBOTA_OK);
    CHECK_CONTAINS(st, "\"message_count\":1");
    CHECK_CONTAINS(st, "\"name\":\"demo\"");
    robota_string_free(st);
    /* the resumed session continues the conversation (fresh provider instance: fallback echo) */
    CHECK_EQ_INT(robota_session_wait(r1, submit_text(r1, "q2"), 30000, NULL), ROBOTA_OK);
    a = messages_json(r1, NULL);
    CHECK_CONTAINS(a, "\"content\":\"first answer\"");
    CHECK_CONTAINS(a, "\"content\":\"first answer\"");
    robota_string_free(a);
    /* fork: independent copy with a new id */
    robota_session *f = NULL;
    CHECK_EQ_INT(robota_session_fork(s, "{\"delivery\":\"pull\"}", NULL, NULL, NULL, &f, NULL), ROBOTA_OK);
    CHECK_EQ_INT(robota_session_wait(f, submit_text(f, "only in fork"), 30000, NULL), ROBOTA_OK);
    a = messages_json(s, NULL);
    b = messages_json(f, NULL);
    CHECK(strstr(a, "only in fork") == NULL);
    CHECK_CONTAINS(b, "only in fork");
    CHECK_CONTAINS(b, "\"content\":\"first answer\"");
    robota_string_free(a);
    robota_string_free(b);
    CHECK_EQ_INT(robota_session_state(f, &st, NULL), ROBOTA_OK);
    CHECK_CONTAINS(st, "\"delivery\":\"pull\"");
    robota_string_free(st);
    robota_error *e = NULL;
    CHECK_EQ_INT(robota_session_resume(rt, "{\"v\":1,\"snapshot\":{\"kind\":\"other\"}}", NULL, NULL, NULL, &r1 /* untouched */, &e), ROBOTA_E_INVALID_CONFIG);
    CHECK_CONTAINS(robota_error_message(e), "snapshot: field \"kind\" must be \"robota.session\"");
    robota_error_free(e);
    robota_string_free(snap);
    robota_session_free(f);
    robota_session_free(r1);
    robota_session_free(s);
    robota_runtime_free(rt);
}

static void free_counter(void *ud) { (*(int *)ud)++; }

void test_misuse(void) {
    robota_runtime *rt = NULL;
    robota_error *e = NULL;
    CHECK_EQ_INT(robota_runtime_new("{not json", &rt, &e), ROBOTA_E_INVALID_JSON);
    CHECK(rt == NULL);
    CHECK_EQ_INT(robota_error_code(e), ROBOTA_E_INVALID_JSON);
    CHECK_CONTAINS(robota_error_message(e), "config_json is not valid JSON");
    robota_error_free(e);
    e = NULL;
    CHECK_EQ_INT(robota_runtime_new("{\"v\":1}", &rt, &e), ROBOTA_E_INVALID_CONFIG);
    CHECK_CONTAINS(robota_error_message(e), "missing required field \"providers\"");
    robota_error_free(e);
    e = NULL;
    CHECK_EQ_INT(robota_runtime_new("{\"v\":1,\"providers\":{\"x\":{\"kind\":\"telepathy\"}}}", &rt, &e), ROBOTA_E_INVALID_CONFIG);
    CHECK_CONTAINS(robota_error_message(e), "unknown kind \"telepathy\"");
    robota_error_free(e);
    e = NULL;
    CHECK_EQ_INT(robota_runtime_new("{\"v\":2,\"providers\":{}}", &rt, &e), ROBOTA_E_VERSION_MISMATCH);
    robota_error_free(e);
    e = NULL;
    CHECK_EQ_INT(robota_runtime_new("{\"v\":1,\"providers\":{},\"strict\":true,\"bogus\":1}", &rt, &e), ROBOTA_E_INVALID_CONFIG);
    CHECK_CONTAINS(robota_error_message(e), "runtime config: field \"bogus\" is not a known field (known: ");
    robota_error_free(e);
    e = NULL;
    CHECK_EQ_INT(robota_runtime_new("{\"v\":1,\"providers\":{},\"worker_thread\":2}", &rt, &e), ROBOTA_E_INVALID_CONFIG);
    CHECK_CONTAINS(robota_error_message(e), "field \"worker_thread\" is not a known field");
    robota_error_free(e);
    e = NULL;
    CHECK_EQ_INT(robota_runtime_new(NULL, &rt, &e), ROBOTA_E_NULL_ARG);
    CHECK_CONTAINS(robota_error_message(e), "config_json is NULL");
    robota_error_free(e);
    CHECK_EQ_INT(robota_runtime_new("{}", NULL, NULL), ROBOTA_E_NULL_ARG);
    e = NULL;
    CHECK_EQ_INT(robota_runtime_new("{\"v\":1,\"providers\":{\"\xff\xfe\":{}}}", &rt, &e), ROBOTA_E_INVALID_UTF8);
    CHECK_CONTAINS(robota_error_message(e), "config_json is not valid UTF-8 (invalid byte at offset 21)");
    robota_error_free(e);

    rt = make_runtime("{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\"}}}");
    robota_session *s = NULL;
    int freed = 0;
    e = NULL;
    CHECK_EQ_INT(robota_session_new(rt, "{\"v\":1,\"provider\":\"nope\",\"model\":\"m\"}", NULL, &freed, free_counter, &s, &e), ROBOTA_E_NOT_FOUND);
    CHECK_CONTAINS(robota_error_message(e), "unknown provider \"nope\" (configured: s)");
    CHECK_EQ_INT(freed, 0); /* failed registration: free_fn not called */
    robota_error_free(e);
    e = NULL;
    CHECK_EQ_INT(robota_session_new(rt, "{\"v\":1,\"provider\":\"s\"}", NULL, NULL, NULL, &s, &e), ROBOTA_E_INVALID_CONFIG);
    CHECK_CONTAINS(robota_error_message(e), "session config: missing required field \"model\"");
    robota_error_free(e);
    e = NULL;
    CHECK_EQ_INT(robota_session_new(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"tools\":[\"Nope\"]}", NULL, NULL, NULL, &s, &e), ROBOTA_E_NOT_FOUND);
    CHECK_CONTAINS(robota_error_message(e), "unknown tool \"Nope\"");
    robota_error_free(e);
    e = NULL;
    CHECK_EQ_INT(robota_runtime_register_tool(rt, "{\"name\":\"t\"}", NULL, &freed, free_counter, &e), ROBOTA_E_INVALID_CONFIG);
    CHECK_CONTAINS(robota_error_message(e), "missing required field \"input_schema\"");
    CHECK_EQ_INT(freed, 0);
    robota_error_free(e);
    e = NULL;
    CHECK_EQ_INT(robota_runtime_register_tool(rt, "{\"name\":\"t\",\"input_schema\":{\"type\":12}}", NULL, NULL, NULL, &e), ROBOTA_E_INVALID_CONFIG);
    CHECK_CONTAINS(robota_error_message(e), "is not a valid JSON Schema");
    robota_error_free(e);
    e = NULL;
    CHECK_EQ_INT(robota_tool_call_complete(rt, 12345, "{}", 0, &e), ROBOTA_E_NOT_FOUND);
    CHECK_CONTAINS(robota_error_message(e), "id 12345 was never issued by this runtime");
    robota_error_free(e);
    e = NULL;
    CHECK_EQ_INT(robota_request_respond(rt, 0, "{}", &e), ROBOTA_E_NOT_FOUND);
    robota_error_free(e);
    e = NULL;
    CHECK_EQ_INT(robota_request_respond(rt, 1, "not json", &e), ROBOTA_E_INVALID_JSON);
    CHECK_CONTAINS(robota_error_message(e), "response_json is not valid JSON");
    robota_error_free(e);

    s = make_session(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\"}", NULL, NULL);
    e = NULL;
    CHECK_EQ_INT(robota_session_submit(s, "{\"display_input\":\"x\"}", NULL, &e), ROBOTA_E_INVALID_CONFIG);
    CHECK_CONTAINS(robota_error_message(e), "input_json: missing required field \"text\"");
    robota_error_free(e);
    e = NULL;
    CHECK_EQ_INT(robota_session_submit(s, "{\"txt\":\"x\"}", NULL, &e), ROBOTA_E_INVALID_CONFIG);
    CHECK_CONTAINS(robota_error_message(e), "input_json: field \"txt\" is not a known field");
    robota_error_free(e);
    CHECK_EQ_INT(robota_session_submit(s, "\"\xc3\x28\"", NULL, NULL), ROBOTA_E_INVALID_UTF8);
    CHECK_EQ_INT(robota_session_submit(s, NULL, NULL, NULL), ROBOTA_E_NULL_ARG);
    CHECK_EQ_INT(robota_session_submit(NULL, "{\"text\":\"x\"}", NULL, NULL), ROBOTA_E_NULL_ARG);
    CHECK_EQ_INT(robota_session_state(s, NULL, NULL), ROBOTA_E_NULL_ARG);
    CHECK_EQ_INT(robota_session_wait(s, 7, 0, NULL), ROBOTA_E_NOT_FOUND);
    /* a runtime pointer is not a session */
    e = NULL;
    CHECK_EQ_INT(robota_session_submit((robota_session *)rt, "{\"text\":\"x\"}", NULL, &e), ROBOTA_E_INVALID_HANDLE);
    CHECK_CONTAINS(robota_error_message(e), "session handle is not a live handle");
    robota_error_free(e);
    int dummy = 0;
    CHECK_EQ_INT(robota_session_submit((robota_session *)&dummy, "{\"text\":\"x\"}", NULL, NULL), ROBOTA_E_INVALID_HANDLE);
    robota_session_free(s);
    /* freed handle */
    CHECK_EQ_INT(robota_session_submit(s, "{\"text\":\"x\"}", NULL, NULL), ROBOTA_E_INVALID_HANDLE);
    CHECK_EQ_INT(robota_session_abort(s, 0), ROBOTA_E_INVALID_HANDLE);
    CHECK_EQ_INT(robota_session_dispatch(s, 1, 0), ROBOTA_E_INVALID_HANDLE);
    robota_session_free(s); /* double free is detected and ignored */
    robota_runtime_free(rt);
    CHECK_EQ_INT(robota_tool_call_complete(rt, 1, "{}", 0, NULL), ROBOTA_E_INVALID_HANDLE);
    robota_runtime_free(rt);
    CHECK_EQ_INT(robota_error_code(NULL), ROBOTA_E_NULL_ARG);
    CHECK(robota_error_message(NULL) == NULL);
    robota_error_free(NULL);
    robota_string_free(NULL);
}

static int g_logs = 0;
static void log_cb(void *ud, int32_t level, const char *target, const char *msg, size_t n) {
    (void)ud;
    if (level >= ROBOTA_LOG_INFO && strcmp(target, "robota::runtime") == 0 && msg[n] == '\0' &&
        strstr(msg, "runtime started: 1 provider(s), 2 worker thread(s)"))
        g_logs++;
}

void test_log_callback(void) {
    int freed = 0;
    CHECK_EQ_INT(robota_set_log_callback(log_cb, &freed, free_counter, ROBOTA_LOG_INFO, NULL), ROBOTA_OK);
    robota_runtime *rt =
        make_runtime("{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\"}},\"worker_threads\":2}");
    robota_runtime_free(rt);
    CHECK_EQ_INT(g_logs, 1);
    CHECK_EQ_INT(robota_set_log_callback(NULL, NULL, NULL, 0, NULL), ROBOTA_OK);
    CHECK_EQ_INT(freed, 1);
}

/* A `command` hook (run by the session's hook executors, not the host) blocks a tool call. */
void test_command_hook_blocks_tool(void) {
    robota_runtime *rt = make_runtime(TOOL_SCRIPT("{\"key\":\"secret\"}"));
    tool_ctx t = {rt, 1, 0, 0, "", 0, PTHREAD_MUTEX_INITIALIZER};
    CHECK_EQ_INT(robota_runtime_register_tool(rt, LOOKUP_TOOL, tool_cb, &t, tool_free, NULL), ROBOTA_OK);
    recorder r;
    rec_init(&r);
    robota_session *s = make_session(rt,
        "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"tools\":[\"lookup\"],\"hooks\":{\"PreToolUse\":"
        "[{\"matcher\":\"\",\"hooks\":[{\"type\":\"command\",\"command\":\"echo no >&2; exit 2\"}]}]}}",
        &r, NULL);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "go"), 30000, NULL), ROBOTA_OK);
    CHECK_EQ_INT(t.calls, 0);
    CHECK_EQ_INT(rec_count(&r, ROBOTA_EVENT_HOOK_REQUEST), 0);
    rec_wait(&r, ROBOTA_EVENT_TOOL_END, 1);
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TOOL_END, 0), "\"result\":\"denied\"");
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TOOL_END, 0), "Blocked by hook: no");
    char *m = messages_json(s, NULL);
    CHECK_CONTAINS(m, "Blocked by hook: no");
    robota_string_free(m);
    robota_session_free(s);
    robota_runtime_free(rt);
    rec_destroy(&r);
}

/* A deny rule matches the normalized path: `/tmp/../etc/hostname` is under `/etc`. */
void test_deny_rule_normalized_path(void) {
    robota_runtime *rt = make_runtime(
        "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":["
        "{\"tool_calls\":[{\"id\":\"call_0\",\"name\":\"Read\",\"arguments\":{\"filePath\":\"/tmp/../etc/hostname\"}}]},"
        "{\"text\":\"done\"}]}}}");
    recorder r;
    rec_init(&r);
    robota_session *s = make_session(rt,
        "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"cwd\":\"/tmp\",\"tools\":[\"Read\"],"
        "\"permissions\":{\"allow\":[],\"deny\":[\"Read(/etc/**)\"]}}",
        &r, NULL);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "read it"), 30000, NULL), ROBOTA_OK);
    rec_wait(&r, ROBOTA_EVENT_TOOL_END, 1);
    const char *end = rec_payload(&r, ROBOTA_EVENT_TOOL_END, 0);
    CHECK_CONTAINS(end, "\"tool_name\":\"Read\"");
    CHECK_CONTAINS(end, "\"result\":\"denied\"");
    CHECK_CONTAINS(end, "Permission denied. The user did not approve this action. The deny rule");
    CHECK_CONTAINS(end, "Read(/etc/**)");
    CHECK_EQ_INT(rec_count(&r, ROBOTA_EVENT_PERMISSION_REQUEST), 0);
    robota_session_free(s);
    robota_runtime_free(rt);
    rec_destroy(&r);
}

/* "remember": true approves the tool for the session: the second call asks nothing, and the
 * permissions command reads the session enforcer's list. */
void test_permission_remember(void) {
    robota_runtime *rt = make_runtime(
        "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":["
        "{\"tool_calls\":[{\"name\":\"lookup\",\"arguments\":{\"key\":\"a\"}}]},{\"text\":\"ok1\"},"
        "{\"tool_calls\":[{\"name\":\"lookup\",\"arguments\":{\"key\":\"b\"}}]},{\"text\":\"ok2\"}]}}}");
    tool_ctx t = {rt, 1, 0, 0, "", 0, PTHREAD_MUTEX_INITIALIZER};
    CHECK_EQ_INT(robota_runtime_register_tool(rt, WRITE_TOOL, tool_cb, &t, tool_free, NULL), ROBOTA_OK);
    recorder r;
    rec_init(&r);
    r.answer_permissions = 3;
    robota_session *s = make_session(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\"}", &r, NULL);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "first"), 30000, NULL), ROBOTA_OK);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "second"), 30000, NULL), ROBOTA_OK);
    CHECK_EQ_INT(t.calls, 2);
    CHECK_EQ_INT(rec_count(&r, ROBOTA_EVENT_PERMISSION_REQUEST), 1);
    char *out = NULL;
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"permissions\"}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "Session-approved tools: lookup");
    robota_string_free(out);
    out = NULL;
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"mode\",\"args\":\"plan\"}", &out, NULL), ROBOTA_OK);
    robota_string_free(out);
    out = NULL;
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"permissions\"}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "Permission mode: plan");
    robota_string_free(out);
    robota_session_free(s);
    robota_runtime_free(rt);
    rec_destroy(&r);
}

/* A UserPromptSubmit command hook that exits 2 ends the turn with an error; the model gets nothing. */
void test_prompt_blocked_by_command_hook(void) {
    robota_runtime *rt = make_runtime(
        "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":[{\"text\":\"never\"}]}}}");
    recorder r;
    rec_init(&r);
    robota_session *s = make_session(rt,
        "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"hooks\":{\"UserPromptSubmit\":"
        "[{\"hooks\":[{\"type\":\"command\",\"command\":\"echo nope >&2; exit 2\"}]}]}}",
        &r, NULL);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "hi"), 30000, NULL), ROBOTA_E_PROVIDER);
    rec_wait(&r, ROBOTA_EVENT_TURN_COMPLETED, 1);
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_ERROR, 0), "Prompt blocked by hook: nope");
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TURN_COMPLETED, 0), "\"stop_reason\":\"error\"");
    CHECK_EQ_INT(rec_count(&r, ROBOTA_EVENT_TEXT_DELTA), 0);
    char *m = messages_json(s, NULL);
    CHECK(strstr(m, "never") == NULL);
    CHECK(strstr(m, "\"hi\"") == NULL);
    robota_string_free(m);
    robota_session_free(s);
    robota_runtime_free(rt);
    rec_destroy(&r);
}

static uint64_t request_id_of(const char *payload) {
    const char *p = payload ? strstr(payload, "\"request_id\":") : NULL;
    return p ? (uint64_t)strtoull(p + strlen("\"request_id\":"), NULL, 10) : 0;
}

void test_permission_request_timeout(void) {
    /* An unanswered permission request falls back to the configured default after the
     * timeout (here "allow"); answering it afterwards is stale. With the default decision
     * (deny) the tool never runs. */
    robota_runtime *rt = make_runtime(
        "{\"v\":1,\"request_timeout_ms\":200,\"request_timeout_decision\":\"allow\","
        "\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":["
        "{\"tool_calls\":[{\"name\":\"lookup\",\"arguments\":{\"key\":\"a\"}}]},{\"text\":\"ok1\"}]}}}");
    tool_ctx t = {rt, 1, 0, 0, "", 0, PTHREAD_MUTEX_INITIALIZER};
    CHECK_EQ_INT(robota_runtime_register_tool(rt, WRITE_TOOL, tool_cb, &t, tool_free, NULL), ROBOTA_OK);
    recorder r;
    rec_init(&r);
    r.answer_permissions = 0;
    robota_session *s = make_session(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\"}", &r, NULL);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "nobody answers"), 30000, NULL), ROBOTA_OK);
    CHECK_EQ_INT(t.calls, 1);
    rec_wait(&r, ROBOTA_EVENT_PERMISSION_REQUEST, 1);
    uint64_t id = request_id_of(rec_payload(&r, ROBOTA_EVENT_PERMISSION_REQUEST, 0));
    CHECK(id != 0);
    CHECK_EQ_INT(robota_request_respond(rt, id, "{\"decision\":\"deny\",\"remember\":false}", NULL), ROBOTA_E_STALE);
    robota_session_free(s);
    robota_runtime_free(rt);
    rec_destroy(&r);

    rt = make_runtime(
        "{\"v\":1,\"request_timeout_ms\":200,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":["
        "{\"tool_calls\":[{\"name\":\"lookup\",\"arguments\":{\"key\":\"b\"}}]},{\"text\":\"ok2\"}]}}}");
    tool_ctx t2 = {rt, 1, 0, 0, "", 0, PTHREAD_MUTEX_INITIALIZER};
    CHECK_EQ_INT(robota_runtime_register_tool(rt, WRITE_TOOL, tool_cb, &t2, tool_free, NULL), ROBOTA_OK);
    rec_init(&r);
    s = make_session(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\"}", &r, NULL);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "nobody answers"), 30000, NULL), ROBOTA_OK);
    CHECK_EQ_INT(t2.calls, 0);
    rec_wait(&r, ROBOTA_EVENT_TOOL_END, 1);
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TOOL_END, 0), "\"result\":\"denied\"");
    robota_session_free(s);
    robota_runtime_free(rt);
    rec_destroy(&r);
}
