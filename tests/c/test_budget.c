/* Session budgets: each limit stops a turn cleanly before the call that would cross it
 * (stop_reason "budget", an ERROR event BUDGET_EXCEEDED naming the limit and the figures),
 * robota_session_wait returns ROBOTA_E_BUDGET for that turn and later submits are refused. */
#include "harness.h"

#define LOOKUP                                                                                   \
    "{\"name\":\"lookup\",\"description\":\"Looks a key up\",\"read_only\":true,"                \
    "\"input_schema\":{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\"}}}}"

#define TOOL_TURN(extra) "{\"tool_calls\":[{\"name\":\"lookup\",\"arguments\":{\"key\":\"k\"}}]" extra "},"
#define SCRIPT(t1, t2) "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":[" t1 t2 "{\"text\":\"never\"}]}}}"

typedef struct {
    robota_runtime *rt;
    int calls;
    pthread_mutex_t mu;
} counter_tool;

static void answer_tool(void *ud, robota_session *s, uint64_t id, const char *name, const char *in, size_t n) {
    (void)s; (void)name; (void)in; (void)n;
    counter_tool *t = (counter_tool *)ud;
    pthread_mutex_lock(&t->mu);
    t->calls++;
    pthread_mutex_unlock(&t->mu);
    robota_tool_call_complete(t->rt, id, "\"found\"", 0, NULL);
}

/* Runs one turn under `budget`; checks the stop, the ERROR event (containing `message`), the
 * wait status and the refused second submit. Returns the tool's call count. */
static int run_budget_turn(const char *script, const char *budget, const char *message) {
    robota_runtime *rt = make_runtime(script);
    counter_tool t = {rt, 0, PTHREAD_MUTEX_INITIALIZER};
    CHECK_EQ_INT(robota_runtime_register_tool(rt, LOOKUP, answer_tool, &t, NULL, NULL), ROBOTA_OK);
    char cfg[512];
    snprintf(cfg, sizeof cfg, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"budget\":%s}", budget);
    recorder r;
    rec_init(&r);
    robota_session *s = make_session(rt, cfg, &r, NULL);
    uint64_t turn = submit_text(s, "go");
    robota_error *e = NULL;
    CHECK_EQ_INT(robota_session_wait(s, turn, 30000, &e), ROBOTA_E_BUDGET);
    CHECK_CONTAINS(robota_error_message(e), message);
    robota_error_free(e);
    rec_wait(&r, ROBOTA_EVENT_TURN_COMPLETED, 1);
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TURN_COMPLETED, 0), "\"stop_reason\":\"budget\"");
    const char *err = rec_payload(&r, ROBOTA_EVENT_ERROR, 0);
    CHECK_CONTAINS(err, "\"code\":\"BUDGET_EXCEEDED\"");
    CHECK_CONTAINS(err, message);
    /* the ERROR event comes before turn_completed */
    CHECK(rec_index(&r, ROBOTA_EVENT_ERROR) < rec_index(&r, ROBOTA_EVENT_TURN_COMPLETED));
    char *m = messages_json(s, NULL);
    CHECK(strstr(m, "never") == NULL);
    robota_string_free(m);
    /* later submits are refused */
    uint64_t id = 0;
    CHECK_EQ_INT(robota_session_submit(s, "{\"text\":\"more\"}", &id, &e), ROBOTA_E_BUDGET);
    CHECK_CONTAINS(robota_error_message(e), message);
    robota_error_free(e);
    robota_session_free(s);
    robota_runtime_free(rt);
    rec_destroy(&r);
    return t.calls;
}

void test_budget_model_calls(void) {
    int calls = run_budget_turn(SCRIPT(TOOL_TURN(""), TOOL_TURN("")), "{\"max_model_calls\":2}",
                                "budget exceeded: max_model_calls is 2 and 2 were used");
    CHECK_EQ_INT(calls, 2);
}

void test_budget_tool_calls(void) {
    /* the second tool call is not run; the model sees why */
    robota_runtime *rt = make_runtime(SCRIPT(TOOL_TURN(""), TOOL_TURN("")));
    counter_tool t = {rt, 0, PTHREAD_MUTEX_INITIALIZER};
    robota_runtime_register_tool(rt, LOOKUP, answer_tool, &t, NULL, NULL);
    robota_session *s = make_session(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"budget\":{\"max_tool_calls\":1}}", NULL, NULL);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "go"), 30000, NULL), ROBOTA_E_BUDGET);
    CHECK_EQ_INT(t.calls, 1);
    char *m = messages_json(s, NULL);
    CHECK_CONTAINS(m, "budget exceeded: max_tool_calls is 1 and 1 were used; this tool call was not run");
    robota_string_free(m);
    robota_session_free(s);
    robota_runtime_free(rt);
    CHECK_EQ_INT(run_budget_turn(SCRIPT(TOOL_TURN(""), TOOL_TURN("")), "{\"max_tool_calls\":1}",
                                 "budget exceeded: max_tool_calls is 1 and 1 were used"), 1);
}

void test_budget_tokens(void) {
    /* the call that crosses finishes (its tool runs), the next one is refused */
    int calls = run_budget_turn(
        SCRIPT(TOOL_TURN(",\"usage\":{\"input_tokens\":8,\"output_tokens\":4}"), TOOL_TURN("")),
        "{\"max_total_tokens\":10}", "budget exceeded: max_total_tokens is 10 and 12 were used");
    CHECK_EQ_INT(calls, 1);
}

void test_budget_wall_time(void) {
    /* the first model call takes at least 20 ms: its tool call would cross 10 ms */
    int calls = run_budget_turn(SCRIPT(TOOL_TURN(",\"text\":\"wait\",\"delay_ms\":20"), TOOL_TURN("")),
                                "{\"max_wall_ms\":10}", "budget exceeded: max_wall_ms is 10 and ");
    CHECK_EQ_INT(calls, 0);
}

void test_budget_bad_config(void) {
    robota_runtime *rt = make_runtime(SCRIPT(TOOL_TURN(""), ""));
    const char *bad[][2] = {
        {"{\"max_tool_calls\":-1}", "\"max_tool_calls\" must be a non-negative integer, got -1"},
        {"{\"max_wall_ms\":\"1s\"}", "\"max_wall_ms\" must be a non-negative integer, got \"1s\""},
        {"{\"max_cost_usd\":0.5}", "\"max_cost_usd\" needs the price of model \"m\""},
        {"{\"max_tokens\":5}", "field \"budget\": field \"max_tokens\" is not a known field"},
        {"[1]", "field \"budget\" must be an object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char cfg[256];
        snprintf(cfg, sizeof cfg, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"budget\":%s}", bad[i][0]);
        robota_session *s = NULL;
        robota_error *e = NULL;
        CHECK_EQ_INT(robota_session_new(rt, cfg, NULL, NULL, NULL, &s, &e), ROBOTA_E_INVALID_CONFIG);
        CHECK_CONTAINS(robota_error_message(e), bad[i][1]);
        robota_error_free(e);
    }
    robota_runtime_free(rt);
}

void test_budget_cost(void) {
    /* claude-haiku-4-5 at $1/$5 per MTok: 8000 in + 500 out = $0.0105 crosses $0.01; the call
     * that crosses finishes (its tool runs), the next model call is refused */
    robota_runtime *rt = make_runtime(
        SCRIPT(TOOL_TURN(",\"usage\":{\"input_tokens\":8000,\"output_tokens\":500}"), TOOL_TURN("")));
    counter_tool t = {rt, 0, PTHREAD_MUTEX_INITIALIZER};
    CHECK_EQ_INT(robota_runtime_register_tool(rt, LOOKUP, answer_tool, &t, NULL, NULL), ROBOTA_OK);
    robota_session *s = make_session(rt,
        "{\"v\":1,\"provider\":\"s\",\"model\":\"claude-haiku-4-5\",\"budget\":{\"max_cost_usd\":0.01}}",
        NULL, NULL);
    robota_error *e = NULL;
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "go"), 30000, &e), ROBOTA_E_BUDGET);
    CHECK_CONTAINS(robota_error_message(e), "budget exceeded: max_cost_usd is 0.01 and 0.0105 were used");
    robota_error_free(e);
    CHECK_EQ_INT(t.calls, 1);
    char *out = NULL;
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"cost\"}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "Cost: $0.0105 of $0.01\\nTokens: 8500\\nModel calls: 1\\nTool calls: 1");
    CHECK_CONTAINS(out, "\"cost_usd\":0.0105");
    robota_string_free(out);
    /* the spend is saved with the session: the resumed session is still out of budget */
    char *snap = NULL;
    CHECK_EQ_INT(robota_session_save(s, &snap, NULL), ROBOTA_OK);
    CHECK_CONTAINS(snap, "\"cost_micro_usd\":10500");
    size_t len = strlen(snap) + 32;
    char *resume = malloc(len);
    snprintf(resume, len, "{\"v\":1,\"snapshot\":%s}", snap);
    robota_string_free(snap);
    robota_session *r = NULL;
    CHECK_EQ_INT(robota_session_resume(rt, resume, NULL, NULL, NULL, &r, NULL), ROBOTA_OK);
    free(resume);
    uint64_t id = 0;
    CHECK_EQ_INT(robota_session_submit(r, "{\"text\":\"more\"}", &id, &e), ROBOTA_E_BUDGET);
    CHECK_CONTAINS(robota_error_message(e), "max_cost_usd is 0.01 and 0.0105 were used");
    robota_error_free(e);
    robota_session_free(r);
    robota_session_free(s);
    robota_runtime_free(rt);
}

void test_budget_subagent(void) {
    /* One budget over the delegation tree: the parent's call asks for Agent (call 1), the
     * child's first round asks for Agent too, which it lacks (call 2); the child's next call
     * would be the third: it stops with stop_reason "budget", and so does the parent's turn. */
    robota_runtime *rt = make_runtime(
        "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"fallback\":\"echo\",\"turns\":["
        "{\"tool_calls\":[{\"id\":\"call_1\",\"name\":\"Agent\",\"arguments\":"
        "{\"prompt\":\"sub-task\",\"subagent_type\":\"Explore\"}}]}]}}}");
    recorder r;
    rec_init(&r);
    robota_session *s = make_session(rt,
        "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"tools\":[\"Read\",\"Agent\"],"
        "\"permission_mode\":\"bypassPermissions\",\"budget\":{\"max_model_calls\":2}}",
        &r, NULL);
    const char *limit = "budget exceeded: max_model_calls is 2 and 2 were used";
    robota_error *e = NULL;
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "go"), 30000, &e), ROBOTA_E_BUDGET);
    CHECK_CONTAINS(robota_error_message(e), limit);
    robota_error_free(e);
    rec_wait(&r, ROBOTA_EVENT_TURN_COMPLETED, 1);
    /* the child's relayed turn_completed: stopped by the budget */
    int child_stopped = 0;
    for (int i = 0; i < rec_count(&r, ROBOTA_EVENT_SUBAGENT); i++) {
        const char *p = rec_payload(&r, ROBOTA_EVENT_SUBAGENT, i);
        if (strstr(p, "\"type\":\"turn_completed\"") && strstr(p, "\"stop_reason\":\"budget\"")) child_stopped++;
    }
    CHECK_EQ_INT(child_stopped, 1);
    /* the parent's turn reports it */
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TURN_COMPLETED, 0), "\"stop_reason\":\"budget\"");
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_ERROR, 0), limit);
    char *m = messages_json(s, NULL);
    CHECK_CONTAINS(m, "Sub-agent error: budget exceeded: max_model_calls is 2 and 2 were used");
    robota_string_free(m);
    robota_session_free(s);
    robota_runtime_free(rt);
    rec_destroy(&r);
}
