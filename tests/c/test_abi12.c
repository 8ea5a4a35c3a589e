/* ABI v1.2 from C, in pull delivery: REQUEST_CANCELLED for an aborted host tool call,
 * robota_session_abort of the queued turn alone, robota_session_run_result /
 * robota_session_wait_result documents, robota_session_wait(0) reporting a failed turn once,
 * and the user's MESSAGE right after TURN_STARTED. */
#include <unistd.h>

#include "harness.h"

#define ADD_TOOL                                                                               \
    "{\"name\":\"add\",\"description\":\"adds\",\"input_schema\":{\"type\":\"object\","       \
    "\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}}}}"

#define SCRIPT(CALL)                                                                           \
    "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":["                         \
    "{\"tool_calls\":[" CALL "]},{\"text\":\"done\"}]}}}"

#define ADD_CALL "{\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2}}"
#define WRITE_CALL "{\"name\":\"Write\",\"arguments\":{\"filePath\":\"out.txt\",\"content\":\"hi\"}}"

/* Reads pull events up to the first whose text contains `until` (at most 100); copies each into
 * `seen` (NULL = not kept) and returns how many were read, -1 on a timeout. */
static int read_until(robota_session *s, const char *until, char seen[][512], int cap) {
    for (int n = 0; n < 100; n++) {
        char *ev = NULL;
        if (robota_session_next_event(s, 30000, &ev, NULL) != ROBOTA_OK) return -1;
        if (seen && n < cap) snprintf(seen[n], 512, "%s", ev);
        int done = strstr(ev, until) != NULL;
        robota_string_free(ev);
        if (done) return n + 1;
    }
    return -1;
}

/* Index of the first of the `n` events containing `needle`, -1 when none does. */
static int find(char seen[][512], int n, const char *needle) {
    for (int i = 0; i < n; i++)
        if (strstr(seen[i], needle)) return i;
    return -1;
}

void test_abi12_request_cancelled_tool_call(void) {
    robota_runtime *rt = make_runtime(SCRIPT(ADD_CALL));
    CHECK_EQ_INT(robota_runtime_register_tool(rt, ADD_TOOL, NULL, NULL, NULL, NULL), ROBOTA_OK);
    robota_session *s = make_session(rt,
        "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"tools\":[\"add\"],"
        "\"permission_mode\":\"bypassPermissions\",\"delivery\":\"pull\"}", NULL, NULL);
    uint64_t turn = 0;
    CHECK_EQ_INT(robota_session_submit(s, "{\"text\":\"add\"}", &turn, NULL), ROBOTA_OK);
    CHECK(read_until(s, "\"type\":\"tool_call\"", NULL, 0) > 0);
    CHECK_EQ_INT(robota_session_abort(s, turn), ROBOTA_OK);
    char seen[32][512];
    int n = read_until(s, "\"type\":\"turn_completed\"", seen, 32);
    CHECK(n > 0);
    int cancelled = find(seen, n, "\"type\":\"tool_call_cancelled\"");
    int request = find(seen, n, "\"type\":\"request_cancelled\"");
    CHECK(cancelled == 0);
    CHECK(request == 1);
    if (request >= 0)
        CHECK(strcmp(seen[request],
                     "{\"v\":1,\"kind\":21,\"type\":\"request_cancelled\",\"turn_id\":1,"
                     "\"request_id\":1,\"request_kind\":\"tool_call\",\"reason\":\"aborted\"}") == 0);
    CHECK_CONTAINS(seen[n - 1], "\"stop_reason\":\"aborted\"");
    CHECK_EQ_INT(robota_tool_call_complete(rt, 1, "3", 0, NULL), ROBOTA_E_STALE);
    robota_session_free(s);
    robota_runtime_free(rt);
}

void test_abi12_abort_queued_turn_and_results(void) {
    char dir[] = "/tmp/robota_abi12_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char cfg[512];
    snprintf(cfg, sizeof cfg,
             "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"tools\":[\"Write\"],\"cwd\":\"%s\","
             "\"permission_mode\":\"default\",\"delivery\":\"pull\"}", dir);
    robota_runtime *rt = make_runtime(SCRIPT(WRITE_CALL));
    robota_session *s = make_session(rt, cfg, NULL, NULL);
    uint64_t t1 = 0, t2 = 0;
    CHECK_EQ_INT(robota_session_submit(s, "{\"text\":\"write it\"}", &t1, NULL), ROBOTA_OK);
    char seen[32][512];
    int n = read_until(s, "\"type\":\"permission_request\"", seen, 32);
    CHECK(n > 0);
    const char *p = n > 0 ? strstr(seen[n - 1], "\"request_id\":") : NULL;
    uint64_t req = p ? strtoull(p + 13, NULL, 10) : 0;
    CHECK_EQ_INT(robota_session_submit(s, "{\"text\":\"second\"}", &t2, NULL), ROBOTA_OK);
    CHECK_EQ_INT(t2, 2);
    /* The queued turn alone: its TURN_COMPLETED, the running turn waits on. */
    CHECK_EQ_INT(robota_session_abort(s, t2), ROBOTA_OK);
    n = read_until(s, "\"type\":\"turn_completed\"", seen, 32);
    CHECK_EQ_INT(n, 1);
    CHECK_CONTAINS(seen[0], "\"turn_id\":2,\"stop_reason\":\"aborted\",\"started\":false");
    CHECK_EQ_INT(robota_request_respond(rt, req, "{\"decision\":\"allow\"}", NULL), ROBOTA_OK);
    char *doc = NULL;
    CHECK_EQ_INT(robota_session_wait_result(s, t1, 30000, &doc, NULL), ROBOTA_OK);
    CHECK_CONTAINS(doc, "{\"v\":1,\"kind\":16,\"type\":\"turn_completed\",\"turn_id\":1,");
    CHECK_CONTAINS(doc, "\"stop_reason\":\"complete\",\"response\":\"done\"");
    robota_string_free(doc);
    doc = NULL;
    CHECK_EQ_INT(robota_session_wait_result(s, t2, 0, &doc, NULL), ROBOTA_E_ABORTED);
    CHECK_CONTAINS(doc, "\"stop_reason\":\"aborted\"");
    robota_string_free(doc);
    doc = NULL;
    /* Turn 2's failure was reported by wait_result: wait(0) has nothing left. */
    CHECK_EQ_INT(robota_session_wait(s, 0, 30000, NULL), ROBOTA_OK);
    CHECK_EQ_INT(robota_session_wait_result(s, 0, 0, &doc, NULL), ROBOTA_E_INVALID_CONFIG);
    CHECK(doc == NULL);
    CHECK_EQ_INT(robota_session_wait_result(s, 1, 0, NULL, NULL), ROBOTA_E_NULL_ARG);
    CHECK_EQ_INT(robota_session_abort(s, 9), ROBOTA_E_NOT_FOUND);
    robota_session_free(s);
    robota_runtime_free(rt);
    char path[600];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    remove(path);
    rmdir(dir);
}

void test_abi12_run_result_message_order_and_wait_zero(void) {
    robota_runtime *rt = make_runtime("{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\"}}}");
    robota_session *s = make_session(rt,
        "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"delivery\":\"pull\"}", NULL, NULL);
    uint64_t turn = 0;
    char *doc = NULL;
    CHECK_EQ_INT(robota_session_run_result(s, "{\"text\":\"hi\"}", &turn, &doc, NULL), ROBOTA_OK);
    CHECK_EQ_INT(turn, 1);
    CHECK_CONTAINS(doc, "{\"v\":1,\"kind\":16,\"type\":\"turn_completed\",\"turn_id\":1,");
    CHECK_CONTAINS(doc, "\"response\":\"offline:hi\"");
    char seen[32][512];
    int n = read_until(s, "\"type\":\"turn_completed\"", seen, 32);
    CHECK(n >= 3);
    CHECK_CONTAINS(seen[0], "\"type\":\"turn_started\"");
    CHECK_CONTAINS(seen[1], "\"type\":\"message\"");
    CHECK_CONTAINS(seen[1], "\"role\":\"user\",\"content\":\"hi\"");
    if (n > 0 && doc) CHECK(strcmp(seen[n - 1], doc) == 0);
    robota_string_free(doc);
    robota_session_free(s);
    robota_runtime_free(rt);

    /* An aborted turn nobody waited for: wait(0) reports it once. */
    char dir[] = "/tmp/robota_abi12_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char cfg[512];
    snprintf(cfg, sizeof cfg,
             "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"tools\":[\"Write\"],\"cwd\":\"%s\","
             "\"permission_mode\":\"default\",\"delivery\":\"pull\"}", dir);
    rt = make_runtime(SCRIPT(WRITE_CALL));
    s = make_session(rt, cfg, NULL, NULL);
    CHECK_EQ_INT(robota_session_submit(s, "{\"text\":\"write it\"}", &turn, NULL), ROBOTA_OK);
    CHECK(read_until(s, "\"type\":\"permission_request\"", NULL, 0) > 0);
    CHECK_EQ_INT(robota_session_abort(s, 0), ROBOTA_OK);
    robota_error *err = NULL;
    CHECK_EQ_INT(robota_session_wait(s, 0, 30000, &err), ROBOTA_E_ABORTED);
    CHECK(err && strcmp(robota_error_message(err), "turn 1 was aborted") == 0);
    robota_error_free(err);
    CHECK_EQ_INT(robota_session_wait(s, 0, 30000, NULL), ROBOTA_OK);
    robota_session_free(s);
    robota_runtime_free(rt);
    rmdir(dir);
}

/* robota_session_inject_message: MESSAGE + CONTEXT_UPDATE without a model call, the message in
 * the conversation the next turn sends, bad input refused by name; then `clear` reports the
 * emptied context with CONTEXT_UPDATE. */
void test_abi12_inject_message_and_clear(void) {
    robota_runtime *rt = make_runtime(
        "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":[{\"text\":\"done\"}]}}}");
    robota_session *s = make_session(rt,
        "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"tools\":[],\"delivery\":\"pull\"}", NULL, NULL);
    CHECK_EQ_INT(robota_session_inject_message(
                     s, "{\"role\":\"user\",\"content\":\"The code word is kiwi.\"}", NULL),
                 ROBOTA_OK);
    char seen[8][512];
    int n = read_until(s, "\"type\":\"context_update\"", seen, 8);
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
        CHECK_CONTAINS(seen[0], "{\"v\":1,\"kind\":4,\"type\":\"message\",\"turn_id\":0,");
        CHECK_CONTAINS(seen[0], "\"role\":\"user\",\"content\":\"The code word is kiwi.\"");
        CHECK_CONTAINS(seen[1], "{\"v\":1,\"kind\":11,\"type\":\"context_update\",\"turn_id\":0,");
    }
    robota_error *e = NULL;
    CHECK_EQ_INT(robota_session_inject_message(s, "{\"role\":\"tool\",\"content\":\"x\"}", &e),
                 ROBOTA_E_INVALID_CONFIG);
    CHECK(e && strcmp(robota_error_message(e),
                      "message_json: role \"tool\" cannot be injected (a tool result answers a "
                      "tool call of the model)") == 0);
    robota_error_free(e);
    CHECK_EQ_INT(robota_session_inject_message(s, NULL, NULL), ROBOTA_E_NULL_ARG);
    uint64_t turn = 0;
    CHECK_EQ_INT(robota_session_submit(s, "{\"text\":\"word?\"}", &turn, NULL), ROBOTA_OK);
    CHECK(read_until(s, "\"type\":\"turn_completed\"", NULL, 0) > 0);
    char *conv = NULL;
    CHECK_EQ_INT(robota_session_messages(s, NULL, &conv, NULL), ROBOTA_OK);
    const char *kiwi = conv ? strstr(conv, "The code word is kiwi.") : NULL;
    const char *word = conv ? strstr(conv, "word?") : NULL;
    CHECK(kiwi && word && kiwi < word);
    robota_string_free(conv);
    char *out = NULL;
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"clear\"}", &out, NULL), ROBOTA_OK);
    robota_string_free(out);
    char *ev = NULL;
    CHECK_EQ_INT(robota_session_next_event(s, 30000, &ev, NULL), ROBOTA_OK);
    CHECK_CONTAINS(ev, "{\"v\":1,\"kind\":11,\"type\":\"context_update\",\"turn_id\":0,\"used_tokens\":1,");
    robota_string_free(ev);
    robota_session_free(s);
    robota_runtime_free(rt);
}
