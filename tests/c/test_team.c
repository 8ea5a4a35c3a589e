/* Team tools ("team": true) and robota_runtime_register_template; prompt hooks allowing,
 * blocking and answering garbage. Scripted providers: "s" drives the parent (and its prompt
 * hooks, which ask the session's own provider), "c" answers the assigned child. */
#include "harness.h"

#define TEAM_RUNTIME                                                                            \
    "{\"v\":1,\"providers\":{"                                                                  \
    "\"s\":{\"kind\":\"scripted\",\"turns\":["                                                  \
    "{\"tool_calls\":["                                                                         \
    "{\"id\":\"c1\",\"name\":\"listTemplateCategories\",\"arguments\":{}},"                     \
    "{\"id\":\"c2\",\"name\":\"getTemplateDetail\",\"arguments\":{\"templateId\":\"mine\"}},"   \
    "{\"id\":\"c3\",\"name\":\"assignTask\",\"arguments\":{\"templateId\":\"mine\","            \
    "\"jobDescription\":\"say hi\"}},"                                                          \
    "{\"id\":\"c4\",\"name\":\"assignTask\",\"arguments\":{\"templateId\":\"nope\","            \
    "\"jobDescription\":\"x\"}}]},"                                                             \
    "{\"text\":\"done\"}]},"                                                                    \
    "\"c\":{\"kind\":\"scripted\",\"turns\":[{\"text\":\"child says hi\"}]}}}"

#define MINE                                                                                    \
    "{\"id\":\"mine\",\"name\":\"Mine\",\"description\":\"Says hi\",\"provider\":\"c\","         \
    "\"model\":\"child-model\",\"temperature\":0.5,\"systemMessage\":\"You say hi.\"}"

static robota_status reg(robota_runtime *rt, const char *doc, char *msg, size_t cap) {
    robota_error *e = NULL;
    robota_status st = robota_runtime_register_template(rt, doc, &e);
    if (msg) snprintf(msg, cap, "%s", e ? robota_error_message(e) : "");
    robota_error_free(e);
    return st;
}

void test_team_tools_and_register_template(void) {
    robota_runtime *rt = make_runtime(TEAM_RUNTIME);
    char msg[512];
    CHECK_EQ_INT(reg(rt, MINE, msg, sizeof msg), ROBOTA_OK);
    CHECK_EQ_INT(reg(rt, MINE, msg, sizeof msg), ROBOTA_E_INVALID_CONFIG);
    CHECK_CONTAINS(msg, "template \"mine\" is already registered on this runtime");
    CHECK_EQ_INT(reg(rt, "{\"id\":\"x\",\"name\":\"X\",\"provider\":\"c\",\"model\":\"m\"}", msg, sizeof msg),
                 ROBOTA_E_INVALID_CONFIG);
    CHECK(strcmp(msg, "template_json: missing required field \"systemMessage\"") == 0);
    CHECK_EQ_INT(reg(rt, "{\"id\":", NULL, 0), ROBOTA_E_INVALID_JSON);
    CHECK_EQ_INT(robota_runtime_register_template(rt, NULL, NULL), ROBOTA_E_NULL_ARG);
    CHECK_EQ_INT(robota_runtime_register_template(NULL, MINE, NULL), ROBOTA_E_NULL_ARG);

    recorder r;
    rec_init(&r);
    robota_session *s = make_session(rt,
        "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"tools\":[],\"team\":true,"
        "\"permission_mode\":\"bypassPermissions\",\"context_window\":100000}", &r, NULL);
    uint64_t t = submit_text(s, "delegate");
    CHECK_EQ_INT(robota_session_wait(s, t, 60000, NULL), ROBOTA_OK);
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TURN_COMPLETED, 0), "\"response\":\"done\"");
    CHECK_EQ_INT(rec_count(&r, ROBOTA_EVENT_TOOL_END), 4);
    char *m = messages_json(s, NULL);
    /* exact tool message contents, as JSON strings inside the messages document */
    CHECK_CONTAINS(m, "\"content\":\"{\\\"categories\\\":[{\\\"id\\\":\\\"default\\\",\\\"name\\\":"
                      "\\\"Default Templates\\\",\\\"description\\\":\\\"Built-in assignTask templates\\\"}]}\"");
    CHECK_CONTAINS(m, "\"content\":\"{\\\"id\\\":\\\"mine\\\",\\\"name\\\":\\\"Mine\\\",\\\"description\\\":"
                      "\\\"Says hi\\\",\\\"provider\\\":\\\"c\\\",\\\"model\\\":\\\"child-model\\\","
                      "\\\"temperature\\\":0.5,\\\"systemMessage\\\":\\\"You say hi.\\\"}\"");
    CHECK_CONTAINS(m, "\"content\":\"{\\\"response\\\":\\\"child says hi\\\",\\\"templateId\\\":\\\"mine\\\"}\"");
    CHECK_CONTAINS(m, "\"content\":\"Error: Template not found: nope\"");
    robota_string_free(m);
    robota_session_free(s);
    robota_runtime_free(rt);
    rec_destroy(&r);
}

#define LOOKUP_TURN "{\"tool_calls\":[{\"name\":\"lookup\",\"arguments\":{\"key\":\"k\"}}]},"

void test_prompt_hooks_allow_block_and_garbage(void) {
    robota_runtime *rt = make_runtime(
        "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":["
        /* turn 1: blocked */
        LOOKUP_TURN "{\"text\":\"{\\\"ok\\\":false,\\\"reason\\\":\\\"not now\\\"}\"},{\"text\":\"one\"},"
        /* turn 2: allowed (fenced) */
        LOOKUP_TURN "{\"text\":\"```json\\n{\\\"ok\\\":true}\\n```\"},{\"text\":\"two\"},"
        /* turn 3: garbage -> warning, the tool runs */
        LOOKUP_TURN "{\"text\":\"whatever\"},{\"text\":\"three\"}]}}}");
    /* a host tool answered from the event callback (NULL tool callback) */
    CHECK_EQ_INT(robota_runtime_register_tool(rt,
        "{\"name\":\"lookup\",\"description\":\"d\",\"read_only\":true,\"input_schema\":{\"type\":\"object\"}}",
        NULL, NULL, NULL, NULL), ROBOTA_OK);
    recorder r;
    rec_init(&r);
    r.rt = rt;
    r.answer_tools = 1;
    r.tool_answer = "{\"value\":1}";
    robota_session *s = make_session(rt,
        "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"tools\":[\"lookup\"],"
        "\"context_window\":100000,\"hooks\":{\"PreToolUse\":[{\"matcher\":\"lookup\",\"hooks\":["
        "{\"type\":\"prompt\",\"prompt\":\"Allow this?\"}]}]}}", &r, NULL);
    for (int i = 0; i < 3; i++) {
        uint64_t t = submit_text(s, "glob");
        CHECK_EQ_INT(robota_session_wait(s, t, 60000, NULL), ROBOTA_OK);
    }
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TOOL_END, 0), "\"result\":\"denied\"");
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TOOL_END, 0), "Blocked by hook: not now");
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TOOL_END, 1), "\"result\":\"success\"");
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TOOL_END, 2), "\"result\":\"success\"");
    CHECK_EQ_INT(rec_count(&r, ROBOTA_EVENT_WARNING), 1);
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_WARNING, 0),
                   "PreToolUse hook \\\"prompt\\\" exited with code 1: "
                   "Failed to parse AI response as JSON: whatever");
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TURN_COMPLETED, 2), "\"response\":\"three\"");
    robota_session_free(s);
    robota_runtime_free(rt);
    rec_destroy(&r);
}
