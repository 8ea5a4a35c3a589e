/* Session store (list, delete, resume by id, persist) and compaction through the C ABI. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void test_store_list_delete_resume(void) {
    char dir[] = "/tmp/robota_c_store_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char cfg[512];
    snprintf(cfg, sizeof cfg,
             "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\"}},\"session_dir\":\"%s\"}", dir);
    robota_runtime *rt = make_runtime(cfg);
    char *out = NULL;
    CHECK_EQ_INT(robota_store_list(rt, NULL, &out, NULL), ROBOTA_OK);
    CHECK(strcmp(out, "{\"v\":1,\"sessions\":[],\"skipped\":[]}") == 0);
    robota_string_free(out);
    robota_session *s = make_session(
        rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"session_id\":\"c-1\",\"persist\":true,"
            "\"name\":\"from C\",\"permission_mode\":\"plan\"}", NULL, NULL);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "hello"), 30000, NULL), ROBOTA_OK);
    robota_session_free(s);
    CHECK_EQ_INT(robota_store_list(rt, "{\"limit\":5}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "\"id\":\"c-1\",\"name\":\"from C\"");
    CHECK_CONTAINS(out, "\"message_count\":1");
    robota_string_free(out);
    robota_session *r = NULL;
    CHECK_EQ_INT(robota_session_resume(rt, "{\"v\":1,\"session_id\":\"c-1\"}", NULL, NULL, NULL, &r, NULL),
                 ROBOTA_OK);
    char *msgs = messages_json(r, NULL);
    CHECK_CONTAINS(msgs, "\"content\":\"offline:hello\"");
    robota_string_free(msgs);
    char *st = NULL;
    CHECK_EQ_INT(robota_session_state(r, &st, NULL), ROBOTA_OK);
    CHECK_CONTAINS(st, "\"permission_mode\":\"plan\"");
    robota_string_free(st);
    robota_session_free(r);
    robota_error *e = NULL;
    CHECK_EQ_INT(robota_store_delete(rt, "missing", &e), ROBOTA_E_NOT_FOUND);
    CHECK_CONTAINS(robota_error_message(e), "no saved session \"missing\"");
    robota_error_free(e);
    CHECK_EQ_INT(robota_store_delete(rt, NULL, NULL), ROBOTA_E_NULL_ARG);
    CHECK_EQ_INT(robota_store_list(rt, "{bad", &out, NULL), ROBOTA_E_INVALID_JSON);
    CHECK_EQ_INT(robota_store_list(rt, "[1]", &out, NULL), ROBOTA_E_INVALID_CONFIG);
    CHECK_EQ_INT(robota_store_delete(rt, "c-1", NULL), ROBOTA_OK);
    CHECK_EQ_INT(robota_store_list(rt, NULL, &out, NULL), ROBOTA_OK);
    CHECK(strcmp(out, "{\"v\":1,\"sessions\":[],\"skipped\":[]}") == 0);
    robota_string_free(out);
    CHECK_EQ_INT(robota_store_delete(rt, "c-1", NULL), ROBOTA_E_NOT_FOUND);
    robota_runtime_free(rt);
    rmdir(dir);
}

void test_compact_command(void) {
    robota_runtime *rt = make_runtime(
        "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":["
        "{\"text\":\"answer\"},{\"text\":\"the summary\"}]}}}");
    recorder r;
    rec_init(&r);
    robota_session *s = make_session(
        rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"system_prompt\":\"sys\"}", &r, NULL);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "q"), 30000, NULL), ROBOTA_OK);
    char *out = NULL;
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"compact\",\"args\":\"focus\"}", &out, NULL),
                 ROBOTA_OK);
    CHECK_CONTAINS(out, "\"message\":\"Context compacted: ");
    CHECK_CONTAINS(out, "\"success\":true");
    robota_string_free(out);
    rec_wait(&r, ROBOTA_EVENT_COMPACTED, 1);
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_COMPACTED, 0), "\"trigger\":\"manual\"");
    CHECK_CONTAINS(rec_payload(&r, ROBOTA_EVENT_COMPACTED, 0), "\"summary\":\"the summary\"");
    char *msgs = messages_json(s, NULL);
    CHECK_CONTAINS(msgs, "\"content\":\"[Context Summary]\\nthe summary\"");
    CHECK(strstr(msgs, "\"content\":\"answer\"") == NULL);
    robota_string_free(msgs);
    robota_session_free(s);
    rec_wait_freed(&r);
    rec_destroy(&r);
    robota_runtime_free(rt);
}
