/* Host-supplied providers (ABI v1.2) from C: each bad push (its status and message, and the
 * turn it fails), the error classes (retried with a new call id and attempt + 1, or not), and
 * refused registrations. */
#include "fake_provider.h"

#define SESSION                                                                                \
    "{\"v\":1,\"provider\":\"local\",\"model\":\"tiny\",\"tools\":[\"add\"],"                  \
    "\"permission_mode\":\"bypassPermissions\",\"delivery\":\"pull\"}"

#define ADD_TOOL                                                                               \
    "{\"name\":\"add\",\"description\":\"adds\",\"input_schema\":{\"type\":\"object\"}}"

static robota_runtime *host_runtime(fake_provider *f, const char *caps) {
    robota_runtime *rt = make_runtime("{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":[]}}}");
    CHECK_EQ_INT(robota_runtime_register_tool(rt, ADD_TOOL, NULL, NULL, NULL, NULL), ROBOTA_OK);
    fp_init(f, rt);
    CHECK_EQ_INT(fp_register(f, "local", caps, NULL), ROBOTA_OK);
    return rt;
}

static robota_status wait_turn(robota_session *s, uint64_t turn, char *msg) {
    robota_error *e = NULL;
    robota_status st = robota_session_wait(s, turn, 30000, &e);
    snprintf(msg, 512, "%s", e ? robota_error_message(e) : "");
    robota_error_free(e);
    return st;
}

#define START_T1 "{\"type\":\"tool_call_start\",\"id\":\"t1\",\"name\":\"add\"}"

/* Runs one turn whose call gets the NULL-terminated `before` (may be NULL) and then `bad`: the push returns
 * `status` with `message`, the turn fails saying so, and a later push is stale. */
static void bad_push(robota_runtime *rt, fake_provider *f, robota_session *s, const char *const *before,
                     const char *bad, robota_status status, const char *message) {
    int n = fp_stat(f, FP_DOCS);
    uint64_t turn = submit_text(s, "go");
    CHECK(fp_wait(f, n + 1));
    uint64_t id = fp_id(f, n);
    char msg[512];
    for (int i = 0; before && before[i]; i++) CHECK_EQ_INT(fp_push(rt, id, before[i], msg), ROBOTA_OK);
    CHECK_EQ_INT(fp_push(rt, id, bad, msg), status);
    CHECK(strcmp(msg, message) == 0);
    if (strcmp(msg, message) != 0) fprintf(stderr, "    push said: %s\n", msg);
    char want[1024];
    snprintf(want, sizeof want,
             "turn %llu failed: Provider Error (local): host provider \"local\": bad event for call %llu: %s",
             (unsigned long long)turn, (unsigned long long)id, message);
    CHECK_EQ_INT(wait_turn(s, turn, msg), ROBOTA_E_PROVIDER);
    CHECK(strcmp(msg, want) == 0);
    if (strcmp(msg, want) != 0) fprintf(stderr, "    turn said: %s\n", msg);
    CHECK_EQ_INT(fp_push(rt, id, "{\"type\":\"done\"}", NULL), ROBOTA_E_STALE);
    CHECK_EQ_INT(fp_stat(f, FP_DOCS), n + 1); /* an ended call gets no cancel document */
}

void test_host_provider_bad_pushes(void) {
    fake_provider f;
    robota_runtime *rt = host_runtime(&f, NULL);
    robota_session *s = make_session(rt, SESSION, NULL, NULL);
    static const char *const started[] = {START_T1, NULL};
    char msg[512];
    CHECK_EQ_INT(fp_push(rt, 99, "{\"type\":\"done\"}", msg), ROBOTA_E_NOT_FOUND);
    CHECK(strcmp(msg, "call_id 99 was never issued") == 0);
    CHECK_EQ_INT(fp_push(rt, 0, "{\"type\":\"done\"}", msg), ROBOTA_E_NOT_FOUND);
    CHECK_EQ_INT(fp_push(rt, 1, NULL, msg), ROBOTA_E_NULL_ARG);
    CHECK(strcmp(msg, "event_json is NULL") == 0);
    bad_push(rt, &f, s, NULL, "{\"type\":\"text\",", ROBOTA_E_INVALID_JSON,
             "event_json is not valid JSON: EOF while parsing a value at line 1 column 15");
    bad_push(rt, &f, s, NULL, "{\"type\":\"image\"}", ROBOTA_E_INVALID_CONFIG,
             "event_json: unknown type \"image\" (one of text, thinking, tool_call, tool_call_start, "
             "tool_call_delta, tool_call_end, usage, done, error)");
    bad_push(rt, &f, s, NULL, "{\"type\":\"tool_call_delta\",\"id\":\"t1\",\"arguments\":\"{\"}",
             ROBOTA_E_INVALID_CONFIG, "event_json: tool_call_delta for tool call \"t1\", which was never started");
    bad_push(rt, &f, s, NULL, "{\"type\":\"tool_call\",\"id\":\"t1\",\"name\":\"rm\",\"arguments\":{}}",
             ROBOTA_E_INVALID_CONFIG,
             "event_json: tool call \"t1\" names tool \"rm\", which the request did not offer (offered: add)");
    bad_push(rt, &f, s, NULL, "{\"type\":\"tool_call\",\"id\":\"t1\",\"name\":\"add\",\"arguments\":[1]}",
             ROBOTA_E_INVALID_CONFIG, "event_json: tool_call: \"arguments\" must be a JSON object");
    bad_push(rt, &f, s, started, START_T1, ROBOTA_E_INVALID_CONFIG,
             "event_json: tool call id \"t1\" was already used in this call");
    static const char *const streamed_array[] = {
        START_T1, "{\"type\":\"tool_call_delta\",\"id\":\"t1\",\"arguments\":\"[1,\"}",
        "{\"type\":\"tool_call_delta\",\"id\":\"t1\",\"arguments\":\"2]\"}", NULL};
    bad_push(rt, &f, s, streamed_array, "{\"type\":\"tool_call_end\",\"id\":\"t1\"}", ROBOTA_E_INVALID_CONFIG,
             "event_json: the arguments of tool call \"t1\" are not a JSON object: [1,2]");
    bad_push(rt, &f, s, NULL, "{\"type\":\"text\",\"text\":7}", ROBOTA_E_INVALID_CONFIG,
             "event_json: text: \"text\" must be a string");
    bad_push(rt, &f, s, started, "{\"type\":\"done\"}",
             ROBOTA_E_INVALID_CONFIG, "event_json: done while tool call \"t1\" is still open (no tool_call_end)");

    /* A push after the end is stale. */
    int n = fp_stat(&f, FP_DOCS);
    uint64_t turn = submit_text(s, "go");
    CHECK(fp_wait(&f, n + 1));
    uint64_t id = fp_id(&f, n);
    CHECK_EQ_INT(fp_push(rt, id, "{\"type\":\"done\"}", msg), ROBOTA_OK);
    CHECK_EQ_INT(wait_turn(s, turn, msg), ROBOTA_OK);
    CHECK_EQ_INT(fp_push(rt, id, "{\"type\":\"text\",\"text\":\"late\"}", msg), ROBOTA_E_STALE);
    char want[128];
    snprintf(want, sizeof want, "call %llu has ended (it finished, failed or was cancelled)", (unsigned long long)id);
    CHECK(strcmp(msg, want) == 0);
    robota_session_free(s);
    robota_runtime_free(rt);
    CHECK_EQ_INT(fp_wait_freed(&f), 1);
    fp_destroy(&f);
}

/* One turn on a fresh runtime whose n-th call pushes `scripts[n]`: the turn's status and
 * message (`msg`), the documents the host got in `f` (the caller destroys it). */
static robota_status scripted_turn(fake_provider *f, const char *caps, const char *const *const *scripts,
                                   char *msg) {
    robota_runtime *rt = host_runtime(f, caps);
    for (int i = 0; scripts[i]; i++) f->script[i] = scripts[i];
    robota_session *s = make_session(rt, SESSION, NULL, NULL);
    robota_status st = wait_turn(s, submit_text(s, "hello"), msg);
    robota_session_free(s);
    robota_runtime_free(rt);
    CHECK_EQ_INT(fp_wait_freed(f), 1);
    CHECK_EQ_INT(fp_stat(f, FP_FAILED_PUSHES), 0);
    return st;
}

#define EV_OK "{\"type\":\"text\",\"text\":\"ok\"}", "{\"type\":\"done\"}"

void test_host_provider_error_classes(void) {
    static const char *const rate[] = {
        "{\"type\":\"error\",\"class\":\"rate_limit\",\"message\":\"slow down\",\"retry_after_ms\":0}", NULL};
    static const char *const network[] = {
        "{\"type\":\"error\",\"class\":\"network\",\"message\":\"offline\",\"retry_after_ms\":0}", NULL};
    static const char *const provider[] = {
        "{\"type\":\"error\",\"class\":\"provider\",\"message\":\"busy\",\"retry_after_ms\":0}", NULL};
    static const char *const ok[] = {EV_OK, NULL};
    static const char *const auth[] = {"{\"type\":\"error\",\"class\":\"authentication\",\"message\":\"bad key\"}", NULL};
    static const char *const fatal[] = {
        "{\"type\":\"error\",\"class\":\"provider\",\"message\":\"broken\",\"recoverable\":false}", NULL};
    static const char *const late[] = {"{\"type\":\"text\",\"text\":\"half\"}",
                                       "{\"type\":\"error\",\"class\":\"network\",\"message\":\"cut\"}", NULL};
    char msg[512];
    fake_provider f;

    /* Recoverable classes are retried: a new call id and attempt + 1 each time. */
    const char *const *retried[] = {rate, network, provider, NULL};
    const char *const *then_ok[] = {rate, network, ok, NULL};
    CHECK_EQ_INT(scripted_turn(&f, "{\"max_retries\":2}", then_ok, msg), ROBOTA_OK);
    CHECK_EQ_INT(fp_stat(&f, FP_DOCS), 3);
    for (int i = 0; i < 3; i++) {
        char want[32];
        snprintf(want, sizeof want, "\"attempt\":%d}", i + 1);
        CHECK_CONTAINS(fp_doc(&f, i), want);
        CHECK_EQ_INT(fp_id(&f, i), i + 1);
    }
    fp_destroy(&f);

    /* Retries run out: the last failure ends the turn. */
    CHECK_EQ_INT(scripted_turn(&f, "{\"max_retries\":2}", retried, msg), ROBOTA_E_PROVIDER);
    CHECK(strcmp(msg, "turn 1 failed: Provider Error (local): host provider \"local\": busy") == 0);
    CHECK_EQ_INT(fp_stat(&f, FP_DOCS), 3);
    fp_destroy(&f);

    const char *const *auth_first[] = {auth, ok, NULL};
    CHECK_EQ_INT(scripted_turn(&f, NULL, auth_first, msg), ROBOTA_E_PROVIDER);
    CHECK(strcmp(msg, "turn 1 failed: Authentication Error: host provider \"local\": bad key") == 0);
    CHECK_EQ_INT(fp_stat(&f, FP_DOCS), 1);
    fp_destroy(&f);

    const char *const *fatal_first[] = {fatal, ok, NULL};
    CHECK_EQ_INT(scripted_turn(&f, NULL, fatal_first, msg), ROBOTA_E_PROVIDER);
    CHECK(strcmp(msg, "turn 1 failed: Provider Error (local): host provider \"local\": broken") == 0);
    CHECK_EQ_INT(fp_stat(&f, FP_DOCS), 1);
    fp_destroy(&f);

    /* Text was delivered: not retried. */
    const char *const *late_first[] = {late, ok, NULL};
    CHECK_EQ_INT(scripted_turn(&f, NULL, late_first, msg), ROBOTA_E_PROVIDER);
    CHECK(strcmp(msg, "turn 1 failed: Network Error: host provider \"local\": cut") == 0);
    CHECK_EQ_INT(fp_stat(&f, FP_DOCS), 1);
    fp_destroy(&f);

    /* A model the capabilities do not list never reaches the host. */
    const char *const *none[] = {NULL};
    CHECK_EQ_INT(scripted_turn(&f, "{\"models\":[\"big\"]}", none, msg), ROBOTA_E_PROVIDER);
    CHECK(strcmp(msg, "turn 1 failed: Model \"tiny\" is not available for provider \"local\"") == 0);
    CHECK_EQ_INT(fp_stat(&f, FP_DOCS), 0);
    fp_destroy(&f);
}

void test_host_provider_refused_registrations(void) {
    fake_provider f, other;
    robota_runtime *rt = host_runtime(&f, NULL);
    fp_init(&other, rt);
    char msg[512];
    CHECK_EQ_INT(fp_register(&other, "local", NULL, msg), ROBOTA_E_INVALID_CONFIG);
    CHECK(strcmp(msg, "provider \"local\" already exists on this runtime (a provider profile or an earlier "
                      "registration)") == 0);
    CHECK_EQ_INT(fp_register(&other, "s", NULL, msg), ROBOTA_E_INVALID_CONFIG);
    CHECK(strcmp(msg, "provider \"s\" already exists on this runtime (a provider profile or an earlier "
                      "registration)") == 0);
    CHECK_EQ_INT(fp_register(&other, "x", "{\"window\":8}", msg), ROBOTA_E_INVALID_CONFIG);
    CHECK(strcmp(msg, "capabilities_json: unknown key \"window\" (known: models, context_window, "
                      "max_output_tokens, vision, thinking, max_retries, timeout_ms)") == 0);
    CHECK_EQ_INT(fp_register(&other, "x", "{\"vision\":1}", msg), ROBOTA_E_INVALID_CONFIG);
    CHECK(strcmp(msg, "capabilities_json: \"vision\" must be true or false") == 0);
    CHECK_EQ_INT(fp_register(&other, "x", "{", msg), ROBOTA_E_INVALID_JSON);
    CHECK_EQ_INT(fp_register(&other, "", NULL, msg), ROBOTA_E_INVALID_CONFIG);
    CHECK(strcmp(msg, "name: a provider name must not be empty") == 0);
    robota_error *e = NULL;
    CHECK_EQ_INT(robota_runtime_register_provider(rt, "x", NULL, NULL, &other, NULL, &e), ROBOTA_E_NULL_ARG);
    CHECK(e && strcmp(robota_error_message(e), "fn_ is NULL") == 0);
    robota_error_free(e);
    CHECK_EQ_INT(robota_runtime_register_provider(rt, NULL, NULL, NULL, &other, NULL, NULL), ROBOTA_E_NULL_ARG);
    /* The refused one is not kept; the first registration still serves sessions. */
    robota_session *s = NULL;
    e = NULL;
    CHECK_EQ_INT(robota_session_new(rt, "{\"v\":1,\"provider\":\"x\",\"model\":\"m\"}", NULL, NULL, NULL, &s, &e),
                 ROBOTA_E_NOT_FOUND);
    CHECK(e && strcmp(robota_error_message(e), "unknown provider \"x\" (configured: local, s)") == 0);
    robota_error_free(e);
    robota_runtime_free(rt);
    CHECK_EQ_INT(fp_wait_freed(&f), 1);
    CHECK_EQ_INT(fp_stat(&other, FP_FREED), 0);
    fp_destroy(&f);
    fp_destroy(&other);
}
