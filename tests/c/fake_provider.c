#include "fake_provider.h"

static void fp_callback(void *ud, uint64_t id, const char *doc, size_t len) {
    fake_provider *f = (fake_provider *)ud;
    if (doc[len] != '\0' || strlen(doc) != len) {
        fprintf(stderr, "  FAIL provider document not NUL-terminated at its length\n");
        g_failures++;
    }
    const char *const *script = NULL;
    pthread_mutex_lock(&f->mu);
    if (f->count < FP_MAX_DOCS) {
        f->docs[f->count] = strdup(doc);
        f->ids[f->count] = id;
        f->count++;
    }
    if (strstr(doc, "\"type\":\"call\"")) {
        if (f->calls < FP_MAX_CALLS) script = f->script[f->calls];
        f->calls++;
    }
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    for (int i = 0; script && script[i]; i++) {
        if (robota_provider_push(f->rt, id, script[i], NULL) != ROBOTA_OK) {
            pthread_mutex_lock(&f->mu);
            f->failed_pushes++;
            pthread_mutex_unlock(&f->mu);
        }
    }
}

static void fp_free(void *ud) {
    fake_provider *f = (fake_provider *)ud;
    pthread_mutex_lock(&f->mu);
    f->freed++;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

void fp_init(fake_provider *f, robota_runtime *rt) {
    memset(f, 0, sizeof *f);
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    f->rt = rt;
}

void fp_destroy(fake_provider *f) {
    for (int i = 0; i < f->count; i++) free(f->docs[i]);
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->cv);
}

robota_status fp_register(fake_provider *f, const char *name, const char *caps, char *msg) {
    robota_error *e = NULL;
    robota_status st = robota_runtime_register_provider(f->rt, name, caps, fp_callback, f, fp_free, &e);
    if (msg) snprintf(msg, 512, "%s", e ? robota_error_message(e) : "");
    robota_error_free(e);
    return st;
}

int fp_wait(fake_provider *f, int n) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 30;
    pthread_mutex_lock(&f->mu);
    int rc = 0;
    while (f->count < n && rc == 0) rc = pthread_cond_timedwait(&f->cv, &f->mu, &deadline);
    int ok = f->count >= n;
    pthread_mutex_unlock(&f->mu);
    return ok;
}

const char *fp_doc(fake_provider *f, int i) {
    pthread_mutex_lock(&f->mu);
    const char *d = i < f->count ? f->docs[i] : NULL;
    pthread_mutex_unlock(&f->mu);
    return d;
}

uint64_t fp_id(fake_provider *f, int i) {
    pthread_mutex_lock(&f->mu);
    uint64_t id = i < f->count ? f->ids[i] : 0;
    pthread_mutex_unlock(&f->mu);
    return id;
}

int fp_count(fake_provider *f, const char *needle) {
    pthread_mutex_lock(&f->mu);
    int n = 0;
    for (int i = 0; i < f->count; i++)
        if (strstr(f->docs[i], needle)) n++;
    pthread_mutex_unlock(&f->mu);
    return n;
}

robota_status fp_push(robota_runtime *rt, uint64_t id, const char *event, char *msg) {
    robota_error *e = NULL;
    robota_status st = robota_provider_push(rt, id, event, &e);
    if (msg) snprintf(msg, 512, "%s", e ? robota_error_message(e) : "");
    robota_error_free(e);
    return st;
}

int fp_stat(fake_provider *f, fp_counter which) {
    pthread_mutex_lock(&f->mu);
    int n = which == FP_DOCS ? f->count : which == FP_FAILED_PUSHES ? f->failed_pushes : f->freed;
    pthread_mutex_unlock(&f->mu);
    return n;
}

int fp_wait_freed(fake_provider *f) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 30;
    pthread_mutex_lock(&f->mu);
    int rc = 0;
    while (f->freed == 0 && rc == 0) rc = pthread_cond_timedwait(&f->cv, &f->mu, &deadline);
    int n = f->freed;
    pthread_mutex_unlock(&f->mu);
    return n;
}
