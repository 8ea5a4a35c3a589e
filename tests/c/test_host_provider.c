/* Host-supplied providers (ABI v1.2) from C: a turn with two tool rounds whose request
 * documents are checked whole, text streamed as TEXT_DELTA events, usage in TURN_COMPLETED. */
#include "fake_provider.h"

#define ADD_TOOL                                                                               \
    "{\"name\":\"add\",\"description\":\"adds two integers\",\"input_schema\":{\"type\":"     \
    "\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}}}}"

#define SESSION(DELIVERY)                                                                      \
    "{\"v\":1,\"provider\":\"local\",\"model\":\"tiny\",\"tools\":[\"add\"],"                  \
    "\"system_prompt\":\"Be brief.\",\"system_prompt_mode\":\"replace\",\"session_id\":\"s1\"," \
    "\"permission_mode\":\"bypassPermissions\",\"delivery\":\"" DELIVERY "\"}"

/* Answers `add` inside the callback with the sum of "a" and "b". */
static void add_tool(void *ud, robota_session *s, uint64_t id, const char *name, const char *input,
                     size_t len) {
    (void)s;
    (void)name;
    (void)len;
    robota_runtime *rt = (robota_runtime *)ud;
    const char *a = strstr(input, "\"a\":");
    const char *b = strstr(input, "\"b\":");
    char out[32];
    snprintf(out, sizeof out, "%ld", (a ? strtol(a + 4, NULL, 10) : 0) + (b ? strtol(b + 4, NULL, 10) : 0));
    CHECK_EQ_INT(robota_tool_call_complete(rt, id, out, 0, NULL), ROBOTA_OK);
}

/* A runtime without provider profiles, with the `add` tool and `f` registered as "local". */
static robota_runtime *host_runtime(fake_provider *f, const char *caps) {
    robota_runtime *rt = make_runtime("{\"v\":1,\"providers\":{}}");
    CHECK_EQ_INT(robota_runtime_register_tool(rt, ADD_TOOL, add_tool, rt, NULL, NULL), ROBOTA_OK);
    fp_init(f, rt);
    CHECK_EQ_INT(fp_register(f, "local", caps, NULL), ROBOTA_OK);
    return rt;
}

#define CALL_HEAD                                                                              \
    "{\"v\":1,\"type\":\"call\",\"provider\":\"local\",\"model\":\"tiny\",\"session_id\":\"s1\","    \
    "\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\",\"content\":"  \
    "[{\"type\":\"text\",\"text\":\"what is 2+3, plus 1?\"}]}"
#define CALL_TAIL                                                                              \
    ",\"tools\":[" ADD_TOOL "],\"tool_choice\":\"auto\",\"max_tokens\":null,\"temperature\":null,"     \
    "\"thinking_budget\":null,\"attempt\":1}"
#define ROUND1_MESSAGES                                                                        \
    "{\"role\":\"assistant\",\"content\":\"Let me add.\",\"tool_calls\":[{\"id\":\"c1\",\"name\":"   \
    "\"add\",\"arguments\":{\"a\":2,\"b\":3}}]},{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"name\":"   \
    "\"add\",\"content\":\"5\",\"is_error\":false}"
#define ROUND2_MESSAGES                                                                        \
    "{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"id\":\"c2\",\"name\":\"add\","       \
    "\"arguments\":{\"a\":5,\"b\":1}}]},{\"role\":\"tool\",\"tool_call_id\":\"c2\",\"name\":\"add\","   \
    "\"content\":\"6\",\"is_error\":false}"

static const char *const ROUND1[] = {
    "{\"type\":\"text\",\"text\":\"Let me \"}",
    "{\"type\":\"text\",\"text\":\"add.\"}",
    "{\"type\":\"tool_call\",\"id\":\"c1\",\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":3}}",
    "{\"type\":\"usage\",\"input_tokens\":10,\"output_tokens\":5}",
    "{\"type\":\"done\"}",
    NULL};
static const char *const ROUND2[] = {
    "{\"type\":\"tool_call_start\",\"id\":\"c2\",\"name\":\"add\"}",
    "{\"type\":\"tool_call_delta\",\"id\":\"c2\",\"arguments\":\"{\\\"a\\\":5,\"}",
    "{\"type\":\"tool_call_delta\",\"id\":\"c2\",\"arguments\":\"\\\"b\\\":1}\"}",
    "{\"type\":\"tool_call_end\",\"id\":\"c2\"}",
    "{\"type\":\"usage\",\"input_tokens\":20,\"output_tokens\":6}",
    "{\"type\":\"done\",\"stop_reason\":\"tool_use\"}",
    NULL};
static const char *const ROUND3[] = {
    "{\"type\":\"thinking\",\"text\":\"sum known\"}",
    "{\"type\":\"text\",\"text\":\"The sum is 6.\"}",
    "{\"type\":\"usage\",\"input_tokens\":30,\"output_tokens\":7}",
    "{\"type\":\"done\"}",
    NULL};

void test_host_provider_two_tool_rounds(void) {
    fake_provider f;
    robota_runtime *rt = host_runtime(&f, "{\"context_window\":4096}");
    f.script[0] = ROUND1;
    f.script[1] = ROUND2;
    f.script[2] = ROUND3;
    recorder r;
    rec_init(&r);
    robota_session *s = make_session(rt, SESSION("thread"), &r, NULL);
    CHECK(s != NULL);
    uint64_t turn = submit_text(s, "what is 2+3, plus 1?");
    CHECK_EQ_INT(robota_session_wait(s, turn, 30000, NULL), ROBOTA_OK);
    CHECK_EQ_INT(fp_stat(&f, FP_FAILED_PUSHES), 0);
    CHECK_EQ_INT(fp_stat(&f, FP_DOCS), 3);
    for (int i = 0; i < 3; i++) CHECK_EQ_INT(fp_id(&f, i), i + 1);
    CHECK(fp_doc(&f, 0) && strcmp(fp_doc(&f, 0), CALL_HEAD "]" CALL_TAIL) == 0);
    CHECK(fp_doc(&f, 1) && strcmp(fp_doc(&f, 1), CALL_HEAD "," ROUND1_MESSAGES "]" CALL_TAIL) == 0);
    CHECK(fp_doc(&f, 2) &&
          strcmp(fp_doc(&f, 2), CALL_HEAD "," ROUND1_MESSAGES "," ROUND2_MESSAGES "]" CALL_TAIL) == 0);
    /* The text in order, the next round's after the round separator; thinking on its own. */
    CHECK_EQ_INT(rec_count(&r, ROBOTA_EVENT_TEXT_DELTA), 4);
    char *text = rec_text(&r);
    CHECK(text && strcmp(text, "Let me add.\n\nThe sum is 6.") == 0);
    free(text);
    CHECK(rec_payload(&r, ROBOTA_EVENT_THINKING_DELTA, 0) &&
          strcmp(rec_payload(&r, ROBOTA_EVENT_THINKING_DELTA, 0), "sum known") == 0);
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TOOL_END, 1),
                   "\"tool_call_id\":\"c2\",\"tool_name\":\"add\",\"result\":\"success\",\"output\":\"6\"");
    const char *done = rec_payload(&r, ROBOTA_EVENT_TURN_COMPLETED, 0);
    CHECK_CONTAINS(done, "\"stop_reason\":\"complete\",\"response\":\"The sum is 6.\"");
    CHECK_CONTAINS(done, "\"max_tokens\":4096");
    CHECK_CONTAINS(done, "\"usage\":{\"input_tokens\":60,\"output_tokens\":18,\"total_tokens\":78,");
    robota_session_free(s);
    rec_wait_freed(&r);
    robota_runtime_free(rt);
    CHECK_EQ_INT(fp_wait_freed(&f), 1);
    rec_destroy(&r);
    fp_destroy(&f);
}

/* The turn's failure: status of robota_session_wait with its message in `msg` (512 bytes). */
static robota_status wait_turn(robota_session *s, uint64_t turn, char *msg) {
    robota_error *e = NULL;
    robota_status st = robota_session_wait(s, turn, 30000, &e);
    snprintf(msg, 512, "%s", e ? robota_error_message(e) : "");
    robota_error_free(e);
    return st;
}

#define CANCEL(REASON) "{\"v\":1,\"type\":\"cancel\",\"reason\":\"" REASON "\"}"
#define STALE_1 "call 1 has ended (it finished, failed or was cancelled)"

void test_host_provider_abort_mid_stream(void) {
    fake_provider f;
    robota_runtime *rt = host_runtime(&f, NULL);
    static const char *const answer[] = {"{\"type\":\"text\",\"text\":\"ok\"}", "{\"type\":\"done\"}", NULL};
    f.script[1] = answer; /* the second call; the first is answered from this thread */
    recorder r;
    rec_init(&r);
    robota_session *s = make_session(rt, SESSION("thread"), &r, NULL);
    uint64_t turn = submit_text(s, "count to ten");
    CHECK(fp_wait(&f, 1));
    char msg[512];
    CHECK_EQ_INT(fp_push(rt, fp_id(&f, 0), "{\"type\":\"text\",\"text\":\"one two \"}", msg), ROBOTA_OK);
    CHECK(rec_wait(&r, ROBOTA_EVENT_TEXT_DELTA, 1));
    CHECK_EQ_INT(robota_session_abort(s, turn), ROBOTA_OK);
    CHECK_EQ_INT(wait_turn(s, turn, msg), ROBOTA_E_ABORTED);
    CHECK(fp_wait(&f, 2));
    CHECK_EQ_INT(fp_id(&f, 1), 1);
    CHECK(fp_doc(&f, 1) && strcmp(fp_doc(&f, 1), CANCEL("aborted")) == 0);
    CHECK_EQ_INT(fp_push(rt, 1, "{\"type\":\"text\",\"text\":\"three\"}", msg), ROBOTA_E_STALE);
    CHECK(strcmp(msg, STALE_1) == 0);
    CHECK_EQ_INT(fp_push(rt, 1, "{\"type\":\"done\"}", msg), ROBOTA_E_STALE);
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TURN_COMPLETED, 0),
                   "\"stop_reason\":\"aborted\",\"response\":\"one two \"");
    /* The next call sees the partial answer marked as interrupted. */
    uint64_t next = submit_text(s, "again");
    CHECK_EQ_INT(wait_turn(s, next, msg), ROBOTA_OK);
    CHECK_CONTAINS(fp_doc(&f, 2),
                   "{\"role\":\"assistant\",\"content\":\"one two \\n\\n[This response was interrupted by "
                   "the user]\"},{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"again\"}]}]");
    CHECK_EQ_INT(fp_count(&f, "\"type\":\"cancel\""), 1);
    robota_session_free(s);
    rec_wait_freed(&r);
    robota_runtime_free(rt);
    CHECK_EQ_INT(fp_wait_freed(&f), 1);
    CHECK_EQ_INT(fp_stat(&f, FP_DOCS), 3);
    rec_destroy(&r);
    fp_destroy(&f);
}

void test_host_provider_session_freed_mid_call(void) {
    fake_provider f;
    robota_runtime *rt = host_runtime(&f, NULL);
    robota_session *s = make_session(rt, SESSION("pull"), NULL, NULL);
    submit_text(s, "hello");
    CHECK(fp_wait(&f, 1));
    char msg[512];
    CHECK_EQ_INT(fp_push(rt, 1, "{\"type\":\"text\",\"text\":\"hi\"}", msg), ROBOTA_OK);
    robota_session_free(s);
    CHECK(fp_wait(&f, 2));
    CHECK(fp_doc(&f, 1) && strcmp(fp_doc(&f, 1), CANCEL("session_closed")) == 0);
    CHECK_EQ_INT(fp_id(&f, 1), 1);
    CHECK_EQ_INT(fp_push(rt, 1, "{\"type\":\"done\"}", msg), ROBOTA_E_STALE);
    CHECK(strcmp(msg, STALE_1) == 0);
    robota_runtime_free(rt);
    CHECK_EQ_INT(fp_wait_freed(&f), 1);
    CHECK_EQ_INT(fp_stat(&f, FP_DOCS), 2);
    fp_destroy(&f);
}

void test_host_provider_timeout(void) {
    /* One retry: the silent first call is cancelled ("timeout"), the second one answers. */
    fake_provider f;
    robota_runtime *rt = host_runtime(&f, "{\"timeout_ms\":50,\"max_retries\":1}");
    static const char *const answer[] = {"{\"type\":\"text\",\"text\":\"late\"}", "{\"type\":\"done\"}", NULL};
    f.script[1] = answer;
    robota_session *s = make_session(rt, SESSION("pull"), NULL, NULL);
    char msg[512];
    CHECK_EQ_INT(wait_turn(s, submit_text(s, "hello"), msg), ROBOTA_OK);
    CHECK_EQ_INT(fp_stat(&f, FP_DOCS), 3);
    CHECK_CONTAINS(fp_doc(&f, 0), "\"attempt\":1}");
    CHECK(fp_doc(&f, 1) && strcmp(fp_doc(&f, 1), CANCEL("timeout")) == 0);
    CHECK_EQ_INT(fp_id(&f, 1), 1);
    CHECK_CONTAINS(fp_doc(&f, 2), "\"attempt\":2}");
    CHECK_EQ_INT(fp_id(&f, 2), 2);
    CHECK_EQ_INT(fp_push(rt, 1, "{\"type\":\"done\"}", msg), ROBOTA_E_STALE);
    robota_session_free(s);
    robota_runtime_free(rt);
    CHECK_EQ_INT(fp_wait_freed(&f), 1);
    fp_destroy(&f);

    /* No retry: the turn fails naming the provider and the timeout. */
    rt = host_runtime(&f, "{\"timeout_ms\":50,\"max_retries\":0}");
    s = make_session(rt, SESSION("pull"), NULL, NULL);
    CHECK_EQ_INT(wait_turn(s, submit_text(s, "hello"), msg), ROBOTA_E_PROVIDER);
    CHECK(strcmp(msg, "turn 1 failed: Provider Error (local): host provider \"local\": no event for 50 ms") == 0);
    CHECK_EQ_INT(fp_stat(&f, FP_DOCS), 2);
    CHECK(fp_doc(&f, 1) && strcmp(fp_doc(&f, 1), CANCEL("timeout")) == 0);
    robota_session_free(s);
    robota_runtime_free(rt);
    CHECK_EQ_INT(fp_wait_freed(&f), 1);
    fp_destroy(&f);
}
