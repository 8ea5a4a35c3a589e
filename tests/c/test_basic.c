/* Streaming, commands, queue, abort, misuse. */
#include "harness.h"

#define SCRIPT_STREAM                                                                          \
    "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":[" \
    "{\"deltas\":[\"Hel\",\"lo \",\"w\\u00f6rld\"],\"usage\":{\"input_tokens\":10,\"output_tokens\":3}}," \
    "{\"deltas\":[\"second\"]}]}}}"

void test_version(void) {
    CHECK_EQ_INT(robota_abi_version(), ROBOTA_ABI_VERSION);
    CHECK_EQ_INT(tu2_abi_version(), ROBOTA_ABI_VERSION);
    CHECK_EQ_INT(ROBOTA_ABI_VERSION >> 16, 1);
    CHECK(strlen(robota_version()) > 0);
    CHECK(strcmp(robota_status_str(ROBOTA_OK), "ok") == 0);
    CHECK(strcmp(tu2_status_text(ROBOTA_E_STALE), "stale id (already answered, timed out or cancelled)") == 0);
    CHECK(strcmp(robota_status_str(-999), "unknown status") == 0);
}

void test_streaming_thread(void) {
    robota_runtime *rt = make_runtime(SCRIPT_STREAM);
    recorder r;
    rec_init(&r);
    robota_session *s = make_session(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"system_prompt\":\"be brief\"}", &r, NULL);
    CHECK(s != NULL);
    uint64_t t = submit_text(s, "hi");
    CHECK_EQ_INT(t, 1);
    CHECK_EQ_INT(robota_session_wait(s, t, 30000, NULL), ROBOTA_OK);
    rec_wait(&r, ROBOTA_EVENT_TURN_COMPLETED, 1);
    char *text = rec_text(&r);
    CHECK(strcmp(text, "Hello w\xc3\xb6rld") == 0);
    free(text);
    CHECK_EQ_INT(rec_count(&r, ROBOTA_EVENT_TEXT_DELTA), 3);
    CHECK_EQ_INT(rec_index(&r, ROBOTA_EVENT_TURN_STARTED), 0);
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TURN_STARTED, 0), "\"input\":{\"text\":\"hi\"}");
    const char *done = rec_payload(&r, ROBOTA_EVENT_TURN_COMPLETED, 0);
    CHECK_CONTAINS(done, "\"stop_reason\":\"complete\"");
    CHECK_CONTAINS(done, "\"response\":\"Hello w\xc3\xb6rld\"");
    CHECK_CONTAINS(done, "\"usage\":{\"input_tokens\":10,\"output_tokens\":3,\"total_tokens\":13,\"cache_read_tokens\":0,\"cache_creation_tokens\":0}");
    CHECK_CONTAINS(done, "\"v\":1");
    /* the reentrancy probe ran inside the first callback */
    CHECK_EQ_INT(r.reentrancy_status_wait, ROBOTA_E_REENTRANT);
    CHECK_EQ_INT(r.reentrancy_status_dispatch, ROBOTA_E_UNSUPPORTED);
    CHECK_EQ_INT(r.reentrancy_status_next, ROBOTA_E_UNSUPPORTED);
    /* committed messages: user + assistant (the system prompt predates the turn) */
    rec_wait(&r, ROBOTA_EVENT_MESSAGE, 2);
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_MESSAGE, 0), "\"role\":\"user\"");
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_MESSAGE, 1), "\"role\":\"assistant\"");
    rec_wait(&r, ROBOTA_EVENT_CONTEXT_UPDATE, 1);
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_CONTEXT_UPDATE, 0), "\"max_tokens\":");
    char *msgs = messages_json(s, NULL);
    CHECK_CONTAINS(msgs, "{\"v\":1,\"view\":\"conversation\",\"messages\":[{");
    CHECK_CONTAINS(msgs, "\"content\":\"be brief\"");
    CHECK_CONTAINS(msgs, "\"content\":\"Hello w\xc3\xb6rld\",\"state\":\"complete\"");
    robota_string_free(msgs);
    char *hist = messages_json(s, "{\"view\":\"history\"}");
    CHECK_CONTAINS(hist, "\"category\":\"chat\",\"type\":\"user\"");
    robota_string_free(hist);
    char *state = NULL;
    CHECK_EQ_INT(robota_session_state(s, &state, NULL), ROBOTA_OK);
    CHECK_CONTAINS(state, "\"executing\":false");
    CHECK_CONTAINS(state, "\"streaming_text\":\"Hello w\xc3\xb6rld\"");
    CHECK_CONTAINS(state, "\"message_count\":1");
    robota_string_free(state);
    robota_session_free(s);
    robota_session_free(NULL);
    robota_runtime_free(rt);
    CHECK_EQ_INT(rec_wait_freed(&r), 1);
    rec_destroy(&r);
}

void test_commands(void) {
    robota_runtime *rt = make_runtime(SCRIPT_STREAM);
    robota_session *s = make_session(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"claude-sonnet-4-5\",\"session_id\":\"sess-1\"}", NULL, NULL);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "hi"), 30000, NULL), ROBOTA_OK);
    char *out = NULL;
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"help\"}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "\"message\":\"Available commands:\\n  help");
    CHECK_CONTAINS(out, "cancel_queue");
    robota_string_free(out);
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"cost\"}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "\"message\":\"Session: sess-1\\nMessages: 1\"");
    CHECK_CONTAINS(out, "\"data\":{\"sessionId\":\"sess-1\",\"messageCount\":1}");
    robota_string_free(out);
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"context\"}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "\"message\":\"Context: ");
    CHECK_CONTAINS(out, " / 200,000 tokens (");
    robota_string_free(out);
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"mode\"}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "\"message\":\"Current mode: default\"");
    robota_string_free(out);
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"mode\",\"args\":\"plan\"}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "\"message\":\"Permission mode set to: plan\"");
    robota_string_free(out);
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"mode\",\"args\":\"wild\"}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "\"message\":\"Invalid mode. Valid: plan | default | acceptEdits | bypassPermissions\",\"success\":false");
    robota_string_free(out);
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"permissions\"}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "\"message\":\"Permission mode: plan\\nNo session-approved tools.\"");
    robota_string_free(out);
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"model\"}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "\"message\":\"Usage: model <model-id>\",\"success\":false");
    robota_string_free(out);
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"model\",\"args\":\"claude-haiku-4-5 extra\"}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "\"message\":\"Model change requested: claude-haiku-4-5\"");
    robota_string_free(out);
    CHECK_EQ_INT(robota_session_state(s, &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "\"model\":\"claude-haiku-4-5\"");
    robota_string_free(out);
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"cancel_queue\"}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "\"message\":\"No queued prompt.\"");
    robota_string_free(out);
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"clear\"}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "\"message\":\"Conversation cleared.\"");
    robota_string_free(out);
    out = messages_json(s, NULL);
    CHECK(strcmp(out, "{\"v\":1,\"view\":\"conversation\",\"messages\":[]}") == 0);
    robota_string_free(out);
    robota_error *e = NULL;
    out = NULL;
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"nope\"}", &out, &e), ROBOTA_E_NOT_FOUND);
    CHECK(out == NULL);
    CHECK_CONTAINS(robota_error_message(e), "unknown command \"nope\"");
    robota_error_free(e);
    robota_session_free(s);
    robota_runtime_free(rt);
}

void test_queue_and_abort_mid_stream(void) {
    robota_runtime *rt = make_runtime(
        "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":["
        "{\"deltas\":[\"partial \",\"text\"],\"hang\":true},"
        "{\"text\":\"after\"}]}}}");
    recorder r;
    rec_init(&r);
    robota_session *s = make_session(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\"}", &r, NULL);
    uint64_t t1 = submit_text(s, "one");
    uint64_t t2 = submit_text(s, "two");
    CHECK_EQ_INT(t2, 2);
    robota_error *e = NULL;
    uint64_t t3 = 0;
    CHECK_EQ_INT(robota_session_submit(s, "{\"text\":\"three\"}", &t3, &e), ROBOTA_E_BUSY);
    CHECK_CONTAINS(robota_error_message(e), "a prompt is already queued (turn 2)");
    CHECK_EQ_INT(t3, 0);
    robota_error_free(e);
    char *out = NULL;
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"cancel_queue\"}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "Queued prompt cancelled (turn 2).");
    robota_string_free(out);
    CHECK_EQ_INT(robota_session_wait(s, t2, 30000, NULL), ROBOTA_E_ABORTED);
    rec_wait(&r, ROBOTA_EVENT_TEXT_DELTA, 2);
    CHECK_EQ_INT(robota_session_wait(s, t1, 0, NULL), ROBOTA_E_TIMEOUT);
    CHECK_EQ_INT(robota_session_abort(s, 0), ROBOTA_OK);
    CHECK_EQ_INT(robota_session_wait(s, t1, 30000, NULL), ROBOTA_E_ABORTED);
    CHECK_EQ_INT(robota_session_abort(s, t1), ROBOTA_OK); /* idempotent */
    CHECK_EQ_INT(robota_session_abort(s, 99), ROBOTA_E_NOT_FOUND);
    rec_wait(&r, ROBOTA_EVENT_TURN_COMPLETED, 2);
    /* the dropped queued prompt reports first, then the aborted turn */
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TURN_COMPLETED, 0), "\"turn_id\":2");
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_TURN_COMPLETED, 0), "\"stop_reason\":\"aborted\"");
    const char *done = rec_payload(&r, ROBOTA_EVENT_TURN_COMPLETED, 1);
    CHECK_CONTAINS(done, "\"stop_reason\":\"aborted\"");
    CHECK_CONTAINS(done, "\"response\":\"partial text\"");
    out = messages_json(s, NULL);
    CHECK_CONTAINS(out, "\"content\":\"partial text\",\"state\":\"interrupted\"");
    robota_string_free(out);
    out = messages_json(s, "{\"view\":\"messages\"}");
    CHECK_CONTAINS(out, "\"content\":\"Interrupted by user.\"");
    robota_string_free(out);
    /* next turn works and sees the interrupted text */
    uint64_t t4 = submit_text(s, "again");
    CHECK_EQ_INT(t4, 3);
    CHECK_EQ_INT(robota_session_wait(s, t4, 30000, NULL), ROBOTA_OK);
    CHECK_EQ_INT(robota_session_close(s), ROBOTA_OK);
    rec_wait(&r, ROBOTA_EVENT_SESSION_CLOSED, 1);
    CHECK_EQ_INT(robota_session_submit(s, "{\"text\":\"x\"}", NULL, NULL), ROBOTA_E_CLOSED);
    shutdown_watch w;
    shutdown_watch_start(&w, rt);
    robota_runtime_free(rt); /* free order does not matter */
    robota_session_free(s);
    CHECK_EQ_INT(rec_wait_freed(&r), 1);
    shutdown_watch_wait(&w); /* the runtime's shutdown finishes on a library thread */
    rec_destroy(&r);
}

void test_free_inside_callback(void) {
    robota_runtime *rt = make_runtime(
        "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":[{\"deltas\":[\"a\",\"b\"],\"hang\":true}]}}}");
    recorder r;
    rec_init(&r);
    r.free_in_callback = 1;
    robota_session *s = make_session(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\"}", &r, NULL);
    submit_text(s, "go");
    rec_wait(&r, ROBOTA_EVENT_TEXT_DELTA, 1);
    /* free_fn runs once, after the callback that freed the session returned */
    CHECK_EQ_INT(rec_wait_freed(&r), 1);
    CHECK_EQ_INT(robota_session_submit(s, "{\"text\":\"x\"}", NULL, NULL), ROBOTA_E_INVALID_HANDLE);
    sleep_ms(50);
    CHECK_EQ_INT(rec_count(&r, ROBOTA_EVENT_TEXT_DELTA), 1);
    robota_runtime_free(rt);
    rec_destroy(&r);
}
