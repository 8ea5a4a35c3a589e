/* The host's session store (robota_runtime_set_store, robota_store_complete): a C host keeps
   one session in memory with a real version check; saves, a resume on another runtime, a
   conflict, and an answer given later from another thread. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    pthread_mutex_t mu;
    robota_runtime *rt;
    unsigned long long version; /* 0: nothing stored */
    char *snapshot;             /* the stored snapshot object */
    int saves, loads, freed;
    int answer_later;           /* answer from a thread of its own */
} c_store;

typedef struct {
    c_store *store;
    uint64_t id;
    char *answer;
} later_answer;

static void *answer_thread(void *arg) {
    later_answer *a = arg;
    CHECK_EQ_INT(robota_store_complete(a->store->rt, a->id, a->answer, NULL), ROBOTA_OK);
    free(a->answer);
    free(a);
    return NULL;
}

static unsigned long long number_after(const char *json, const char *key) {
    const char *p = strstr(json, key);
    return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* The store's answer to one request (owned). */
static char *store_answer(c_store *st, const char *req) {
    char *out = NULL;
    pthread_mutex_lock(&st->mu);
    if (strstr(req, "\"op\":\"save\"")) {
        unsigned long long expected = number_after(req, "\"expected_version\":");
        st->saves++;
        if (expected != st->version) {
            out = malloc(64);
            snprintf(out, 64, "{\"conflict\":true,\"version\":%llu}", st->version);
        } else {
            const char *from = strstr(req, "\"snapshot\":") + strlen("\"snapshot\":");
            const char *to = strstr(from, ",\"summary\":");
            free(st->snapshot);
            st->snapshot = strndup(from, (size_t)(to - from));
            st->version = expected + 1;
            out = malloc(32);
            snprintf(out, 32, "{\"version\":%llu}", st->version);
        }
    } else if (strstr(req, "\"op\":\"load\"")) {
        st->loads++;
        if (st->version == 0) {
            out = strdup("{\"found\":false}");
        } else {
            size_t n = strlen(st->snapshot) + 64;
            out = malloc(n);
            snprintf(out, n, "{\"version\":%llu,\"snapshot\":%s}", st->version, st->snapshot);
        }
    } else {
        out = strdup("{\"error\":\"unsupported\"}");
    }
    pthread_mutex_unlock(&st->mu);
    return out;
}

static void store_cb(void *ud, uint64_t id, const char *req, size_t len) {
    c_store *st = ud;
    CHECK_EQ_INT(strlen(req), len);
    char *answer = store_answer(st, req);
    if (st->answer_later) {
        later_answer *a = malloc(sizeof *a);
        a->store = st;
        a->id = id;
        a->answer = answer;
        pthread_t t;
        CHECK_EQ_INT(pthread_create(&t, NULL, answer_thread, a), 0);
        pthread_detach(t);
        return;
    }
    CHECK_EQ_INT(robota_store_complete(st->rt, id, answer, NULL), ROBOTA_OK);
    free(answer);
}

static void store_free(void *ud) {
    c_store *st = ud;
    pthread_mutex_lock(&st->mu);
    st->freed++;
    pthread_mutex_unlock(&st->mu);
}

static robota_runtime *runtime_with_store(c_store *st) {
    robota_runtime *rt = make_runtime(
        "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\"}},\"session_dir\":\"/nonexistent/robota\"}");
    st->rt = rt;
    CHECK_EQ_INT(robota_runtime_set_store(rt, store_cb, st, store_free, NULL), ROBOTA_OK);
    return rt;
}

void test_store_port(void) {
    c_store st;
    memset(&st, 0, sizeof st);
    pthread_mutex_init(&st.mu, NULL);
    robota_runtime *rt = runtime_with_store(&st);
    const char *cfg = "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"session_id\":\"c-port\",\"persist\":true}";
    robota_session *s = make_session(rt, cfg, NULL, NULL);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "hello"), 30000, NULL), ROBOTA_OK);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "again"), 30000, NULL), ROBOTA_OK);
    CHECK_EQ_INT(st.version, 2);
    CHECK_EQ_INT(st.saves, 2);
    CHECK_CONTAINS(st.snapshot, "\"content\":\"offline:again\"");
    robota_session_free(s);

    /* Another runtime, answering later from its own thread, resumes it with its history. */
    c_store st2 = st;
    pthread_mutex_init(&st2.mu, NULL);
    st2.answer_later = 1;
    st2.snapshot = strdup(st.snapshot);
    robota_runtime *rt2 = runtime_with_store(&st2);
    robota_session *r = NULL;
    CHECK_EQ_INT(robota_session_resume(rt2, "{\"v\":1,\"session_id\":\"c-port\"}", NULL, NULL, NULL, &r, NULL),
                 ROBOTA_OK);
    char *msgs = messages_json(r, NULL);
    CHECK_CONTAINS(msgs, "\"content\":\"offline:hello\"");
    robota_string_free(msgs);
    CHECK_EQ_INT(robota_session_wait(r, submit_text(r, "third"), 30000, NULL), ROBOTA_OK);
    CHECK_EQ_INT(st2.version, 3);

    /* The first runtime's store is behind: its resumed session's save is a conflict. */
    robota_session *a = NULL;
    CHECK_EQ_INT(robota_session_resume(rt, "{\"v\":1,\"session_id\":\"c-port\"}", NULL, NULL, NULL, &a, NULL),
                 ROBOTA_OK);
    pthread_mutex_lock(&st.mu);
    st.version = 7; /* another node saved meanwhile */
    pthread_mutex_unlock(&st.mu);
    robota_error *e = NULL;
    CHECK_EQ_INT(robota_session_wait(a, submit_text(a, "late"), 30000, &e), ROBOTA_E_CONFLICT);
    CHECK_CONTAINS(robota_error_message(e), "the store holds version 7, this session replaces version 2");
    robota_error_free(e);
    CHECK_EQ_INT(st.version, 7);

    /* Bad answers. */
    CHECK_EQ_INT(robota_store_complete(rt, 999, "{}", NULL), ROBOTA_E_NOT_FOUND);
    CHECK_EQ_INT(robota_store_complete(rt, 1, "{}", NULL), ROBOTA_E_STALE);
    CHECK_EQ_INT(robota_store_complete(rt, 1, NULL, NULL), ROBOTA_E_NULL_ARG);
    robota_session_free(a);
    robota_session_free(r);
    robota_runtime_free(rt2);
    robota_runtime_free(rt);
    CHECK_EQ_INT(st.freed, 1);
    CHECK_EQ_INT(st2.freed, 1);
    free(st.snapshot);
    free(st2.snapshot);
}
