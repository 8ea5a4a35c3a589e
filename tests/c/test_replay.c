/* Record/replay: a session recorded with "record" is served back by a "replay" provider with
 * the same events (thread delivery, strict) and the same answer (pull delivery); strict replay
 * names the first difference; a corrupt recording is refused at session creation naming the
 * line. */
#include "harness.h"

#include <unistd.h>

#define TURNS                                                                                     \
    "[{\"thinking\":[\"hm\"],\"deltas\":[\"Look\",\"ing.\"],"                                     \
    "\"tool_calls\":[{\"id\":\"c1\",\"name\":\"Read\",\"arguments\":{\"filePath\":\"a.txt\"}}],"  \
    "\"usage\":{\"input_tokens\":40,\"output_tokens\":9}},"                                       \
    "{\"deltas\":[\"Done\",\" reading.\"],\"usage\":{\"input_tokens\":60,\"output_tokens\":3}}]"

static robota_runtime *rr_runtime(const char *dir) {
    char cfg[2048];
    snprintf(cfg, sizeof cfg,
             "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":" TURNS "},"
             "\"rep\":{\"kind\":\"replay\",\"file\":\"%s/rec.jsonl\",\"strict\":true},"
             "\"bad\":{\"kind\":\"replay\",\"file\":\"%s/bad.jsonl\"}}}",
             dir, dir);
    return make_runtime(cfg);
}

static void session_cfg(char *out, size_t n, const char *dir, const char *provider, const char *extra) {
    snprintf(out, n,
             "{\"v\":1,\"provider\":\"%s\",\"model\":\"m\",\"cwd\":\"%s\",\"tools\":[\"Read\"]%s}",
             provider, dir, extra);
}

/* Events other than MESSAGE (whose payloads carry ids and times) must match exactly. */
static void check_same_events(recorder *a, recorder *b) {
    CHECK_EQ_INT(a->count, b->count);
    for (int i = 0; i < a->count && i < b->count; i++) {
        CHECK_EQ_INT(a->events[i].kind, b->events[i].kind);
        if (a->events[i].kind != ROBOTA_EVENT_MESSAGE && strcmp(a->events[i].payload, b->events[i].payload) != 0) {
            fprintf(stderr, "  FAIL event %d differs: %s vs %s\n", i, a->events[i].payload, b->events[i].payload);
            g_failures++;
        }
    }
}

void test_record_replay_thread_and_pull(void) {
    char dir[] = "/tmp/robota_rr_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[512], cfg[1024];
    snprintf(path, sizeof path, "%s/a.txt", dir);
    FILE *f = fopen(path, "w");
    fputs("alpha\n", f);
    fclose(f);
    robota_runtime *rt = rr_runtime(dir);

    recorder rec;
    rec_init(&rec);
    session_cfg(cfg, sizeof cfg, dir, "s", ",\"record\":\"rec.jsonl\"");
    robota_session *s = make_session(rt, cfg, &rec, NULL);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "read a"), 30000, NULL), ROBOTA_OK);
    rec_wait(&rec, ROBOTA_EVENT_TURN_COMPLETED, 1);
    robota_session_free(s);

    /* thread delivery, strict: the same events */
    recorder rep;
    rec_init(&rep);
    session_cfg(cfg, sizeof cfg, dir, "rep", "");
    s = make_session(rt, cfg, &rep, NULL);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "read a"), 30000, NULL), ROBOTA_OK);
    rec_wait(&rep, ROBOTA_EVENT_TURN_COMPLETED, 1);
    check_same_events(&rec, &rep);
    char *text = rec_text(&rep);
    CHECK(strcmp(text, "Looking.\n\nDone reading.") == 0);
    free(text);
    CHECK_CONTAINS(rec_payload(&rep, ROBOTA_EVENT_TOOL_END, 0), "1\\\\talpha");
    robota_session_free(s);

    /* pull delivery: the same kinds in the same order, the same answer */
    session_cfg(cfg, sizeof cfg, dir, "rep", ",\"delivery\":\"pull\"");
    s = make_session(rt, cfg, NULL, NULL);
    submit_text(s, "read a");
    int n = 0, same = 1;
    for (;;) {
        char *ev = NULL;
        if (robota_session_next_event(s, 30000, &ev, NULL) != ROBOTA_OK) {
            same = 0;
            break;
        }
        char kind[32];
        snprintf(kind, sizeof kind, "\"kind\":%u,", n < rec.count ? rec.events[n].kind : 0u);
        if (!strstr(ev, kind)) same = 0;
        int done = strstr(ev, "\"type\":\"turn_completed\"") != NULL;
        if (done) CHECK_CONTAINS(ev, "\"response\":\"Done reading.\"");
        robota_string_free(ev);
        n++;
        if (done) break;
    }
    CHECK(same);
    CHECK_EQ_INT(n, rec.count);
    robota_session_free(s);
    robota_runtime_free(rt);
    rec_wait_freed(&rec);
    rec_wait_freed(&rep);
    rec_destroy(&rec);
    rec_destroy(&rep);
    snprintf(path, sizeof path, "%s/rec.jsonl", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/a.txt", dir);
    unlink(path);
    rmdir(dir);
}

void test_replay_refusals(void) {
    char dir[] = "/tmp/robota_rr_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[512], cfg[1024];
    robota_runtime *rt = rr_runtime(dir);
    session_cfg(cfg, sizeof cfg, dir, "s", ",\"record\":\"rec.jsonl\"");
    robota_session *s = make_session(rt, cfg, NULL, NULL);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "read a"), 30000, NULL), ROBOTA_OK);
    robota_session_free(s);

    /* strict: another prompt fails the turn naming message, role and field */
    session_cfg(cfg, sizeof cfg, dir, "rep", "");
    s = make_session(rt, cfg, NULL, NULL);
    robota_error *e = NULL;
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "read b"), 30000, &e), ROBOTA_E_PROVIDER);
    CHECK_CONTAINS(robota_error_message(e),
                   "replay: request 1 differs from the recording (line 2): message 0 (role user): "
                   "field \"content\": recorded \"read a\", got \"read b\"");
    robota_error_free(e);
    robota_session_free(s);

    /* a corrupt recording is refused at session creation, naming the line */
    snprintf(path, sizeof path, "%s/bad.jsonl", dir);
    FILE *f = fopen(path, "w");
    fputs("{\"robota_recording\":1}\nnot json\n", f);
    fclose(f);
    session_cfg(cfg, sizeof cfg, dir, "bad", "");
    robota_session *bad = NULL;
    CHECK_EQ_INT(robota_session_new(rt, cfg, NULL, NULL, NULL, &bad, &e), ROBOTA_E_INVALID_CONFIG);
    CHECK_CONTAINS(robota_error_message(e), "bad.jsonl\" line 2: ");
    robota_error_free(e);
    /* one of another format version too */
    f = fopen(path, "w");
    fputs("{\"robota_recording\":2,\"library\":\"9.9.9\"}\n", f);
    fclose(f);
    CHECK_EQ_INT(robota_session_new(rt, cfg, NULL, NULL, NULL, &bad, &e), ROBOTA_E_INVALID_CONFIG);
    CHECK_CONTAINS(robota_error_message(e), "line 1: recording format version 2 (written by robota 9.9.9) is not supported");
    robota_error_free(e);
    robota_runtime_free(rt);
    unlink(path);
    snprintf(path, sizeof path, "%s/rec.jsonl", dir);
    unlink(path);
    rmdir(dir);
}
