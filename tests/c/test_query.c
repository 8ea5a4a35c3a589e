/* robota_query (added in ABI 1.1): one shot in every delivery mode, NULL callback, bad input,
 * ROBOTA_E_REENTRANT inside a callback. */
#include "harness.h"

#define SCRIPT_QUERY                                                                           \
    "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":["                         \
    "{\"deltas\":[\"Hel\",\"lo \",\"w\\u00f6rld\"],\"usage\":{\"input_tokens\":10,\"output_tokens\":3}}]}}}"

static void check_query_out(const char *out) {
    CHECK_CONTAINS(out, "{\"v\":1,");
    CHECK_CONTAINS(out, "\"response\":\"Hello w\xc3\xb6rld\"");
    CHECK_CONTAINS(out, "\"stop_reason\":\"complete\"");
    CHECK_CONTAINS(out, "\"usage\":{\"input_tokens\":10,\"output_tokens\":3,\"total_tokens\":13");
    CHECK_CONTAINS(out, "\"messages\":[{");
    CHECK_CONTAINS(out, "\"content\":\"q-system\"");
    CHECK_CONTAINS(out, "\"content\":\"hi\"");
    CHECK(strstr(out, "\"session_id\"") == NULL);
}

void test_query_every_delivery_mode(void) {
    const char *modes[] = {"thread", "pump", "pull"};
    robota_runtime *rt = make_runtime(SCRIPT_QUERY);
    for (int i = 0; i < 3; i++) {
        char q[512];
        snprintf(q, sizeof q,
                 "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"system_prompt\":\"q-system\","
                 "\"delivery\":\"%s\",\"prompt\":\"hi\"}",
                 modes[i]);
        recorder r;
        rec_init(&r);
        r.rt = rt;
        char *out = NULL;
        robota_error *e = NULL;
        robota_status st = robota_query(rt, q, rec_on_event, &r, rec_free_fn, &out, &e);
        CHECK_EQ_INT(st, ROBOTA_OK);
        if (st != ROBOTA_OK) fprintf(stderr, "  query(%s): %s\n", modes[i], robota_error_message(e));
        robota_error_free(e);
        check_query_out(out);
        robota_string_free(out);
        /* every event arrived before the call returned, free_fn ran exactly once */
        CHECK_EQ_INT(r.freed, 1);
        CHECK_EQ_INT(rec_index(&r, ROBOTA_EVENT_TURN_STARTED), 0);
        CHECK_EQ_INT(rec_count(&r, ROBOTA_EVENT_TEXT_DELTA), 3);
        CHECK_EQ_INT(rec_count(&r, ROBOTA_EVENT_TURN_COMPLETED), 1);
        CHECK_EQ_INT(rec_count(&r, ROBOTA_EVENT_SESSION_CLOSED), 1);
        CHECK_EQ_INT(r.events[r.count - 1].kind, ROBOTA_EVENT_SESSION_CLOSED);
        char *text = rec_text(&r);
        CHECK(strcmp(text, "Hello w\xc3\xb6rld") == 0);
        free(text);
        rec_destroy(&r);
    }
    robota_runtime_free(rt);
}

typedef struct {
    robota_runtime *rt;
    int status;
} reentry;

static void query_from_callback(void *ud, robota_session *s, uint32_t kind, uint64_t turn, const char *p,
                                size_t n) {
    (void)s;
    (void)turn;
    (void)p;
    (void)n;
    reentry *r = (reentry *)ud;
    if (kind == ROBOTA_EVENT_TURN_STARTED) {
        char *out = NULL;
        robota_error *e = NULL;
        r->status = robota_query(r->rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"prompt\":\"x\"}", NULL,
                                 NULL, NULL, &out, &e);
        CHECK(out == NULL);
        CHECK_CONTAINS(robota_error_message(e), "robota_query was called from inside a callback");
        robota_error_free(e);
    }
}

void test_query_null_callback_bad_input_and_reentry(void) {
    robota_runtime *rt = make_runtime(SCRIPT_QUERY);
    char *out = NULL;
    robota_error *e = NULL;
    CHECK_EQ_INT(robota_query(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"prompt\":\"hi\"}", NULL, NULL,
                              NULL, &out, NULL),
                 ROBOTA_OK);
    CHECK_CONTAINS(out, "\"response\":\"Hello w\xc3\xb6rld\"");
    robota_string_free(out);
    out = NULL;
    CHECK_EQ_INT(robota_query(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\"}", NULL, NULL, NULL, &out, &e),
                 ROBOTA_E_INVALID_CONFIG);
    CHECK_CONTAINS(robota_error_message(e), "query_json: missing required field \"prompt\"");
    robota_error_free(e);
    e = NULL;
    CHECK_EQ_INT(robota_query(rt, "{\"v\":1,\"provider\":\"nope\",\"model\":\"m\",\"prompt\":\"hi\"}", NULL,
                              NULL, NULL, &out, &e),
                 ROBOTA_E_NOT_FOUND);
    robota_error_free(e);
    CHECK_EQ_INT(robota_query(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"prompt\":\"hi\"}", NULL, NULL,
                              NULL, NULL, NULL),
                 ROBOTA_E_NULL_ARG);
    CHECK_EQ_INT(robota_query(NULL, "{}", NULL, NULL, NULL, &out, NULL), ROBOTA_E_NULL_ARG);
    CHECK(out == NULL);
    reentry r = {rt, 0};
    CHECK_EQ_INT(robota_query(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"prompt\":\"hi\"}",
                              query_from_callback, &r, NULL, &out, NULL),
                 ROBOTA_OK);
    CHECK_EQ_INT(r.status, ROBOTA_E_REENTRANT);
    robota_string_free(out);
    robota_runtime_free(rt);
}
