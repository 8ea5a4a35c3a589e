/* Host-registered commands: session JSON "commands", ROBOTA_EVENT_COMMAND_REQUEST answered with
 * robota_request_respond (here inside the callback), by robota_session_command and by /name
 * input; a host command run from inside a callback is ROBOTA_E_REENTRANT. */
#include "harness.h"

#define SCRIPT_CMD                                                                              \
    "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":["                          \
    "{\"deltas\":[\"shipping\"]}]}}}"

typedef struct {
    recorder rec;
    int reentry_status;
} cmd_host;

static void cmd_on_event(void *ud, robota_session *s, uint32_t kind, uint64_t turn, const char *p,
                         size_t n) {
    cmd_host *h = (cmd_host *)ud;
    rec_on_event(&h->rec, s, kind, turn, p, n);
    if (kind != ROBOTA_EVENT_COMMAND_REQUEST) return;
    const char *id_at = strstr(p, "\"request_id\":");
    uint64_t id = id_at ? strtoull(id_at + 13, NULL, 10) : 0;
    char *out = NULL;
    robota_error *e = NULL;
    h->reentry_status = robota_session_command(s, "{\"name\":\"deploy\"}", &out, &e);
    robota_error_free(e);
    robota_string_free(out);
    const char *answer = strstr(p, "\"args\":\"prod\"")
                             ? "{\"message\":\"Deployed prod.\",\"data\":{\"env\":\"prod\"}}"
                             : "{\"prompt\":\"Ship it now.\"}";
    robota_request_respond(h->rec.rt, id, answer, NULL);
}

void test_host_commands(void) {
    robota_runtime *rt = make_runtime(SCRIPT_CMD);
    cmd_host h;
    rec_init(&h.rec);
    h.rec.rt = rt;
    h.reentry_status = 0;
    robota_session *s = NULL;
    robota_error *e = NULL;
    robota_status st = robota_session_new(
        rt,
        "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"tools\":[],"
        "\"commands\":[{\"name\":\"deploy\",\"description\":\"Ship it\",\"argument_hint\":\"<env>\"}]}",
        cmd_on_event, &h, NULL, &s, &e);
    CHECK_EQ_INT(st, ROBOTA_OK);
    robota_error_free(e);
    if (st != ROBOTA_OK) return;

    char *out = NULL;
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"help\"}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "{\"name\":\"deploy\",\"description\":\"Ship it\",\"source\":\"host\",\"argument_hint\":\"<env>\"}");
    robota_string_free(out);

    out = NULL;
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"deploy\",\"args\":\"prod\"}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "\"message\":\"Deployed prod.\"");
    CHECK_CONTAINS(out, "\"success\":true");
    CHECK_CONTAINS(out, "\"data\":{\"env\":\"prod\"}");
    robota_string_free(out);
    CHECK_EQ_INT(h.reentry_status, ROBOTA_E_REENTRANT);
    CHECK_CONTAINS(rec_payload(&h.rec, ROBOTA_EVENT_COMMAND_REQUEST, 0),
                   "\"name\":\"deploy\",\"args\":\"prod\"");

    /* "/deploy" input: the host's prompt becomes the turn the model answers. */
    uint64_t turn = submit_text(s, "/deploy");
    CHECK_EQ_INT(robota_session_wait(s, turn, 30000, NULL), ROBOTA_OK);
    CHECK_EQ_INT(rec_count(&h.rec, ROBOTA_EVENT_COMMAND_REQUEST), 2);
    CHECK_CONTAINS(rec_payload(&h.rec, ROBOTA_EVENT_TURN_COMPLETED, 0), "\"response\":\"shipping\"");
    char *msgs = messages_json(s, NULL);
    CHECK_CONTAINS(msgs, "\"content\":\"Ship it now.\"");
    robota_string_free(msgs);

    robota_session_free(s);
    robota_runtime_free(rt);
    rec_destroy(&h.rec);
}
