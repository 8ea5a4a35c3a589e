/* The same ABI against a real HTTP provider: the fake model server (tests/support) speaking the
 * OpenAI streaming protocol on 127.0.0.1. Run by tests/c_abi.rs with ROBOTA_FAKE_BASE_URL set;
 * skipped otherwise. */
#include "harness.h"

static int http_runtime(robota_runtime **rt) {
    const char *base = getenv("ROBOTA_FAKE_BASE_URL");
    if (!base) {
        printf("  (skipped: ROBOTA_FAKE_BASE_URL not set)\n");
        return 0;
    }
    char cfg[1024];
    snprintf(cfg, sizeof cfg,
             "{\"v\":1,\"providers\":{\"fake\":{\"kind\":\"openai-compatible\",\"base_url\":\"%s\","
             "\"api_key\":\"test-key\",\"max_retries\":0,\"timeout_ms\":30000}}}", base);
    *rt = make_runtime(cfg);
    return 1;
}

static void http_tool(void *ud, robota_session *s, uint64_t call_id, const char *name, const char *in, size_t n) {
    (void)s; (void)name; (void)in; (void)n;
    robota_runtime *rt = (robota_runtime *)ud;
    CHECK_EQ_INT(robota_tool_call_complete(rt, call_id, "{\"found\":true}", 0, NULL), ROBOTA_OK);
}

/* Server script: [text "Hel","lo" + tool call lookup{"key":"h"}], [text "Found ","it."] */
void test_http_streaming_and_tool(void) {
    robota_runtime *rt = NULL;
    if (!http_runtime(&rt)) return;
    CHECK_EQ_INT(robota_runtime_register_tool(rt,
        "{\"name\":\"lookup\",\"description\":\"d\",\"read_only\":true,\"input_schema\":{\"type\":\"object\"}}",
        http_tool, rt, NULL, NULL), ROBOTA_OK);
    recorder r;
    rec_init(&r);
    robota_session *s = make_session(rt, "{\"v\":1,\"provider\":\"fake\",\"model\":\"gpt-test\"}", &r, NULL);
    uint64_t t = submit_text(s, "find h");
    CHECK_EQ_INT(robota_session_wait(s, t, 60000, NULL), ROBOTA_OK);
    rec_wait(&r, ROBOTA_EVENT_TURN_COMPLETED, 1);
    char *text = rec_text(&r);
    CHECK(strcmp(text, "Hello\n\nFound it.") == 0);
    free(text);
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TOOL_END, 0), "\"result\":\"success\"");
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TURN_COMPLETED, 0), "\"response\":\"Found it.\"");
    char *m = messages_json(s, NULL);
    CHECK_CONTAINS(m, "\"role\":\"tool\",\"content\":\"{\\\"found\\\":true}\"");
    robota_string_free(m);
    robota_session_free(s);
    robota_runtime_free(rt);
    rec_destroy(&r);
}

/* Server script: text "part","ial" then the stream stalls. */
void test_http_abort_mid_stream(void) {
    robota_runtime *rt = NULL;
    if (!http_runtime(&rt)) return;
    recorder r;
    rec_init(&r);
    robota_session *s = make_session(rt, "{\"v\":1,\"provider\":\"fake\",\"model\":\"gpt-test\"}", &r, NULL);
    uint64_t t = submit_text(s, "stall");
    rec_wait(&r, ROBOTA_EVENT_TEXT_DELTA, 2);
    CHECK_EQ_INT(robota_session_abort(s, t), ROBOTA_OK);
    CHECK_EQ_INT(robota_session_wait(s, t, 60000, NULL), ROBOTA_E_ABORTED);
    rec_wait(&r, ROBOTA_EVENT_TURN_COMPLETED, 1);
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TURN_COMPLETED, 0), "\"stop_reason\":\"aborted\"");
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TURN_COMPLETED, 0), "\"response\":\"partial\"");
    char *m = messages_json(s, NULL);
    CHECK_CONTAINS(m, "\"content\":\"partial\",\"state\":\"interrupted\"");
    robota_string_free(m);
    robota_session_free(s);
    robota_runtime_free(rt);
    rec_destroy(&r);
}
