/* Subagents through the C ABI: a parent delegating to Explore relays the child's events as
 * ROBOTA_EVENT_SUBAGENT in every delivery mode (thread, pump, pull), all before the parent's
 * TURN_COMPLETED. The scripted provider starts fresh for each session: the child's first round
 * asks for Agent too, which it does not have (no nesting), then answers "offline:sub-task". */
#include "harness.h"

#define SUB_RUNTIME                                                                            \
    "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"fallback\":\"echo\",\"turns\":["   \
    "{\"tool_calls\":[{\"id\":\"call_1\",\"name\":\"Agent\",\"arguments\":"                    \
    "{\"prompt\":\"sub-task\",\"subagent_type\":\"Explore\"}}]}]}}}"

#define SUB_SESSION                                                                            \
    "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"tools\":[\"Read\",\"Agent\"],"              \
    "\"permission_mode\":\"bypassPermissions\",\"delivery\":\"%s\"}"

/* Checks the relayed events, given in order as (kind, payload) pairs. */
static void check_relay(const char *mode, int n, const uint32_t *kinds, char *const *payloads) {
    int subs = 0, first = -1, last = -1, completed = -1, child_done = 0, not_nested = 0;
    for (int i = 0; i < n; i++) {
        if (kinds[i] == ROBOTA_EVENT_SUBAGENT) {
            subs++;
            if (first < 0) first = i;
            last = i;
            CHECK_CONTAINS(payloads[i], "\"agent_type\":\"Explore\"");
            CHECK_CONTAINS(payloads[i], "\"parent_tool_call_id\":\"call_1\"");
            CHECK_CONTAINS(payloads[i], "\"agent_id\":\"agent_");
            if (strstr(payloads[i], "\"response\":\"offline:sub-task\"")) child_done++;
            if (strstr(payloads[i], "Tool \\\"Agent\\\" is not registered")) not_nested = 1;
        }
        if (kinds[i] == ROBOTA_EVENT_TURN_COMPLETED) {
            completed = i;
            CHECK_CONTAINS(payloads[i], "\"response\":\"offline:go\"");
        }
    }
    if (subs < 3) fprintf(stderr, "  FAIL %s: %d subagent events\n", mode, subs);
    CHECK(subs >= 3);
    CHECK(first >= 0 && strstr(payloads[first], "\"type\":\"turn_started\"") != NULL);
    CHECK(last >= 0 && strstr(payloads[last], "\"type\":\"turn_completed\"") != NULL);
    CHECK_EQ_INT(child_done, 1);
    CHECK_EQ_INT(not_nested, 1);
    CHECK(completed > last);
}

static void callback_mode(robota_runtime *rt, const char *mode) {
    char sjson[256];
    snprintf(sjson, sizeof sjson, SUB_SESSION, mode);
    recorder r;
    rec_init(&r);
    robota_session *s = make_session(rt, sjson, &r, NULL);
    uint64_t t = submit_text(s, "go");
    CHECK_EQ_INT(robota_session_wait(s, t, 30000, NULL), ROBOTA_OK);
    if (strcmp(mode, "pump") == 0) {
        CHECK_EQ_INT(rec_count(&r, ROBOTA_EVENT_SUBAGENT), 0);
        CHECK(robota_session_dispatch(s, 0, 0) > 0);
    }
    rec_wait(&r, ROBOTA_EVENT_TURN_COMPLETED, 1);
    pthread_mutex_lock(&r.mu);
    int n = r.count;
    uint32_t *kinds = calloc((size_t)n, sizeof *kinds);
    char **payloads = calloc((size_t)n, sizeof *payloads);
    for (int i = 0; i < n; i++) {
        kinds[i] = r.events[i].kind;
        payloads[i] = r.events[i].payload;
    }
    pthread_mutex_unlock(&r.mu);
    check_relay(mode, n, kinds, payloads);
    free(kinds);
    free(payloads);
    robota_session_free(s);
    rec_wait_freed(&r);
    rec_destroy(&r);
}

static void pull_mode(robota_runtime *rt) {
    char sjson[256];
    snprintf(sjson, sizeof sjson, SUB_SESSION, "pull");
    robota_session *s = make_session(rt, sjson, NULL, NULL);
    uint64_t t = submit_text(s, "go");
    CHECK_EQ_INT(robota_session_wait(s, t, 30000, NULL), ROBOTA_OK);
    uint32_t kinds[512];
    char *payloads[512];
    int n = 0;
    for (;;) {
        char *ev = NULL;
        robota_status st = robota_session_next_event(s, 0, &ev, NULL);
        if (st != ROBOTA_OK) {
            CHECK_EQ_INT(st, ROBOTA_E_TIMEOUT);
            break;
        }
        if (n < 512) {
            kinds[n] = strstr(ev, "\"kind\":18,") ? ROBOTA_EVENT_SUBAGENT
                       : strstr(ev, "\"type\":\"turn_completed\"") && !strstr(ev, "\"kind\":18")
                           ? ROBOTA_EVENT_TURN_COMPLETED
                           : 0;
            payloads[n++] = ev;
        } else {
            robota_string_free(ev);
        }
    }
    check_relay("pull", n, kinds, payloads);
    for (int i = 0; i < n; i++) robota_string_free(payloads[i]);
    robota_session_free(s);
}

void test_subagent_events_every_delivery_mode(void) {
    robota_runtime *rt = make_runtime(SUB_RUNTIME);
    callback_mode(rt, "thread");
    callback_mode(rt, "pump");
    pull_mode(rt);
    robota_runtime_free(rt);
}
