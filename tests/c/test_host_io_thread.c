/* Host I/O in thread delivery when the host answers later from another thread: the callback
 * only takes the request (the library's tool thread may call it directly); the answer from the
 * test's thread wakes the tool, and after an abort a late answer is STALE. Requests never reach
 * the event callback in thread mode. */
#include "harness.h"

#define INBOX_MAX 8

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t ids[INBOX_MAX];
    char reqs[INBOX_MAX][256];
    int n;
} io_inbox;

static void inbox_cb(void *ud, robota_session *s, uint64_t io_id, const char *req, size_t n) {
    (void)s;
    (void)n;
    io_inbox *b = (io_inbox *)ud;
    pthread_mutex_lock(&b->mu);
    if (b->n < INBOX_MAX) {
        b->ids[b->n] = io_id;
        snprintf(b->reqs[b->n], sizeof b->reqs[b->n], "%s", req);
        b->n++;
    }
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

/* Waits (30 s deadline) for the i-th request; its id, or 0. */
static uint64_t inbox_wait(io_inbox *b, int i) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 30;
    pthread_mutex_lock(&b->mu);
    while (b->n <= i && pthread_cond_timedwait(&b->cv, &b->mu, &deadline) == 0) {
    }
    uint64_t id = b->n > i ? b->ids[i] : 0;
    pthread_mutex_unlock(&b->mu);
    return id;
}

#define THREAD_IO_SCRIPT                                                                          \
    "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":["                            \
    "{\"tool_calls\":[{\"id\":\"c1\",\"name\":\"Read\",\"arguments\":{\"filePath\":\"/vfs/a.txt\"}}]}," \
    "{\"text\":\"Read it.\"},"                                                                  \
    "{\"tool_calls\":[{\"id\":\"c2\",\"name\":\"Read\",\"arguments\":{\"filePath\":\"/vfs/b.txt\"}}]}," \
    "{\"text\":\"unused\"}]}}}"

void test_host_io_thread_answer_later_and_abort(void) {
    robota_runtime *rt = make_runtime(THREAD_IO_SCRIPT);
    io_inbox b;
    memset(&b, 0, sizeof b);
    pthread_mutex_init(&b.mu, NULL);
    pthread_cond_init(&b.cv, NULL);
    CHECK_EQ_INT(robota_runtime_set_host_io(rt, inbox_cb, &b, NULL, NULL), ROBOTA_OK);
    recorder r;
    rec_init(&r);
    robota_session *s = make_session(rt,
        "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"host_io\":true,\"cwd\":\"/vfs\","
        "\"permission_mode\":\"bypassPermissions\"}", &r, NULL);
    CHECK(s != NULL);
    uint64_t turn = submit_text(s, "read a");
    uint64_t id = inbox_wait(&b, 0);
    CHECK(id > 0);
    CHECK_CONTAINS(b.reqs[0], "{\"v\":1,\"op\":\"read\",\"path\":\"/vfs/a.txt\"}");
    /* the tool waits: answered from this thread, after the callback returned */
    CHECK_EQ_INT(robota_host_io_complete(rt, id, "{\"content\":\"alpha\\n\"}", NULL), ROBOTA_OK);
    CHECK_EQ_INT(robota_session_wait(s, turn, 30000, NULL), ROBOTA_OK);
    CHECK_EQ_INT(robota_host_io_complete(rt, id, "{\"content\":\"again\"}", NULL), ROBOTA_E_STALE);
    char *m = messages_json(s, NULL);
    CHECK_CONTAINS(m, "1\\\\talpha");
    CHECK_CONTAINS(m, "\"content\":\"Read it.\"");
    robota_string_free(m);
    CHECK_EQ_INT(rec_count(&r, ROBOTA_EVENT_HOST_IO), 0);
    CHECK(rec_index(&r, ROBOTA_EVENT_TOOL_START) < rec_index(&r, ROBOTA_EVENT_TOOL_END));
    /* abort while the host holds a request: the late answer is stale */
    uint64_t turn2 = submit_text(s, "read b");
    uint64_t id2 = inbox_wait(&b, 1);
    CHECK(id2 > id);
    CHECK_CONTAINS(b.reqs[1], "\"path\":\"/vfs/b.txt\"");
    CHECK_EQ_INT(robota_session_abort(s, turn2), ROBOTA_OK);
    CHECK_EQ_INT(robota_session_wait(s, turn2, 30000, NULL), ROBOTA_E_ABORTED);
    CHECK_EQ_INT(robota_host_io_complete(rt, id2, "{\"content\":\"late\"}", NULL), ROBOTA_E_STALE);
    robota_session_free(s);
    robota_runtime_free(rt);
    rec_destroy(&r);
    pthread_cond_destroy(&b.cv);
    pthread_mutex_destroy(&b.mu);
}
