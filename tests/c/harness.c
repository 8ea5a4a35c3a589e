#include "harness.h"

#include <errno.h>

int g_failures = 0;

void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

void rec_init(recorder *r) {
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->reentrancy_status_wait = 1;
    r->reentrancy_status_dispatch = 1;
    r->reentrancy_status_next = 1;
}

void rec_destroy(recorder *r) {
    for (int i = 0; i < r->count; i++) free(r->events[i].payload);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
}

static const char *find_u64(const char *p, const char *key, uint64_t *out) {
    const char *k = strstr(p, key);
    if (!k) return NULL;
    k += strlen(key);
    *out = strtoull(k, NULL, 10);
    return k;
}

void rec_on_event(void *ud, robota_session *s, uint32_t kind, uint64_t turn, const char *p, size_t n) {
    recorder *r = (recorder *)ud;
    if (p[n] != '\0') {
        fprintf(stderr, "  FAIL payload not NUL-terminated\n");
        g_failures++;
    }
    if (r->reentrancy_status_wait == 1) {
        robota_error *e = NULL;
        r->reentrancy_status_wait = robota_session_wait(s, 0, 1000, &e);
        robota_error_free(e);
        r->reentrancy_status_dispatch = robota_session_dispatch(s, 1, 10);
        char *ev = NULL;
        r->reentrancy_status_next = robota_session_next_event(s, 10, &ev, NULL);
        robota_string_free(ev);
    }
    pthread_mutex_lock(&r->mu);
    if (r->count < REC_MAX_EVENTS) {
        char *copy = malloc(n + 1);
        memcpy(copy, p, n + 1);
        r->events[r->count].kind = kind;
        r->events[r->count].turn_id = turn;
        r->events[r->count].payload = copy;
        r->count++;
    }
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    if (kind == ROBOTA_EVENT_TOOL_CALL && r->answer_tools) {
        uint64_t id = 0;
        if (find_u64(p, "\"call_id\":", &id)) {
            robota_status st = robota_tool_call_complete(r->rt, id, r->tool_answer, 0, NULL);
            CHECK_EQ_INT(st, ROBOTA_OK);
        }
    }
    if (kind == ROBOTA_EVENT_PERMISSION_REQUEST && r->answer_permissions) {
        uint64_t id = 0;
        if (find_u64(p, "\"request_id\":", &id)) {
            const char *ans = r->answer_permissions == 1   ? "{\"decision\":\"allow\",\"remember\":false}"
                              : r->answer_permissions == 3 ? "{\"decision\":\"allow\",\"remember\":true}"
                                                           : "{\"decision\":\"deny\",\"remember\":false}";
            CHECK_EQ_INT(robota_request_respond(r->rt, id, ans, NULL), ROBOTA_OK);
        }
    }
    if (kind == ROBOTA_EVENT_HOOK_REQUEST && r->answer_hooks) {
        uint64_t id = 0;
        if (find_u64(p, "\"request_id\":", &id)) {
            char ans[256];
            snprintf(ans, sizeof ans, "{\"exit_code\":%d,\"stdout\":\"\",\"stderr\":\"%s\"}",
                     r->answer_hooks - 1, r->hook_stderr ? r->hook_stderr : "");
            CHECK_EQ_INT(robota_request_respond(r->rt, id, ans, NULL), ROBOTA_OK);
        }
    }
    if (kind == ROBOTA_EVENT_TEXT_DELTA && r->free_in_callback && r->session) {
        robota_session *victim = r->session;
        r->session = NULL;
        robota_session_free(victim);
    }
}

void rec_free_fn(void *ud) {
    recorder *r = (recorder *)ud;
    pthread_mutex_lock(&r->mu);
    r->freed++;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

int rec_wait_freed(recorder *r) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 30;
    pthread_mutex_lock(&r->mu);
    while (r->freed == 0 && pthread_cond_timedwait(&r->cv, &r->mu, &deadline) == 0) {
    }
    int n = r->freed;
    pthread_mutex_unlock(&r->mu);
    return n;
}

int rec_count(recorder *r, uint32_t kind) {
    int c = 0;
    pthread_mutex_lock(&r->mu);
    for (int i = 0; i < r->count; i++)
        if (r->events[i].kind == kind) c++;
    pthread_mutex_unlock(&r->mu);
    return c;
}

int rec_wait(recorder *r, uint32_t kind, int n) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 30;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        int c = 0;
        for (int i = 0; i < r->count; i++)
            if (r->events[i].kind == kind) c++;
        if (c >= n) {
            pthread_mutex_unlock(&r->mu);
            return 1;
        }
        if (pthread_cond_timedwait(&r->cv, &r->mu, &deadline) == ETIMEDOUT) {
            pthread_mutex_unlock(&r->mu);
            fprintf(stderr, "  FAIL timed out waiting for %d event(s) of kind %u\n", n, kind);
            g_failures++;
            return 0;
        }
    }
}

char *rec_text(recorder *r) {
    pthread_mutex_lock(&r->mu);
    size_t total = 1;
    for (int i = 0; i < r->count; i++)
        if (r->events[i].kind == ROBOTA_EVENT_TEXT_DELTA) total += strlen(r->events[i].payload);
    char *out = malloc(total);
    out[0] = '\0';
    for (int i = 0; i < r->count; i++)
        if (r->events[i].kind == ROBOTA_EVENT_TEXT_DELTA) strcat(out, r->events[i].payload);
    pthread_mutex_unlock(&r->mu);
    return out;
}

const char *rec_payload(recorder *r, uint32_t kind, int idx) {
    const char *res = NULL;
    pthread_mutex_lock(&r->mu);
    int c = 0;
    for (int i = 0; i < r->count; i++) {
        if (r->events[i].kind == kind) {
            if (c == idx) {
                res = r->events[i].payload;
                break;
            }
            c++;
        }
    }
    pthread_mutex_unlock(&r->mu);
    return res;
}

int rec_index(recorder *r, uint32_t kind) {
    int res = -1;
    pthread_mutex_lock(&r->mu);
    for (int i = 0; i < r->count; i++) {
        if (r->events[i].kind == kind) {
            res = i;
            break;
        }
    }
    pthread_mutex_unlock(&r->mu);
    return res;
}

static void shutdown_watch_fired(void *ud) {
    shutdown_watch *w = (shutdown_watch *)ud;
    pthread_mutex_lock(&w->mu);
    w->gone++;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

static void shutdown_watch_tool(void *ud, robota_session *s, uint64_t id, const char *name, const char *in, size_t n) {
    (void)ud; (void)s; (void)id; (void)name; (void)in; (void)n;
}

void shutdown_watch_start(shutdown_watch *w, robota_runtime *rt) {
    memset(w, 0, sizeof *w);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    CHECK_EQ_INT(robota_runtime_register_tool(rt,
                                              "{\"name\":\"shutdown_watch\",\"description\":\"never called\","
                                              "\"input_schema\":{\"type\":\"object\"}}",
                                              shutdown_watch_tool, w, shutdown_watch_fired, NULL),
                 ROBOTA_OK);
}

int shutdown_watch_wait(shutdown_watch *w) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 30;
    pthread_mutex_lock(&w->mu);
    while (w->gone == 0 && pthread_cond_timedwait(&w->cv, &w->mu, &deadline) == 0) {
    }
    int gone = w->gone;
    pthread_mutex_unlock(&w->mu);
    CHECK_EQ_INT(gone, 1);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    return gone == 1;
}

robota_runtime *make_runtime(const char *config) {
    robota_runtime *rt = NULL;
    robota_error *e = NULL;
    robota_status st = robota_runtime_new(config, &rt, &e);
    if (st != ROBOTA_OK) {
        fprintf(stderr, "runtime_new failed: %d %s\n", st, robota_error_message(e));
        robota_error_free(e);
        exit(2);
    }
    return rt;
}

robota_session *make_session(robota_runtime *rt, const char *json, recorder *r, int *st) {
    robota_session *s = NULL;
    robota_error *e = NULL;
    int status = robota_session_new(rt, json, r ? rec_on_event : NULL, r, r ? rec_free_fn : NULL, &s, &e);
    if (status != ROBOTA_OK) fprintf(stderr, "  session_new: %d %s\n", status, robota_error_message(e));
    robota_error_free(e);
    if (st) *st = status;
    if (r) {
        r->rt = rt;
        r->session = s;
    }
    return s;
}

uint64_t submit_text(robota_session *s, const char *text) {
    char buf[1024];
    snprintf(buf, sizeof buf, "{\"text\":\"%s\"}", text);
    uint64_t id = 0;
    robota_error *e = NULL;
    robota_status st = robota_session_submit(s, buf, &id, &e);
    if (st != ROBOTA_OK) {
        fprintf(stderr, "  submit failed: %d %s\n", st, robota_error_message(e));
        g_failures++;
    }
    robota_error_free(e);
    return id;
}

char *messages_json(robota_session *s, const char *query) {
    char *out = NULL;
    robota_status st = robota_session_messages(s, query, &out, NULL);
    CHECK_EQ_INT(st, ROBOTA_OK);
    return out;
}
