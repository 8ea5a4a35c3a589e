/* Shared helpers for the C ABI tests: checks and a thread-safe event recorder. */
#ifndef ROBOTA_TEST_HARNESS_H
#define ROBOTA_TEST_HARNESS_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "robota.h"

extern int g_failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "  FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);        \
            g_failures++;                                                            \
        }                                                                            \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                           \
    do {                                                                             \
        long long va_ = (long long)(a), vb_ = (long long)(b);                        \
        if (va_ != vb_) {                                                            \
            fprintf(stderr, "  FAIL %s:%d: %s == %s (%lld != %lld)\n", __FILE__,     \
                    __LINE__, #a, #b, va_, vb_);                                     \
            g_failures++;                                                            \
        }                                                                            \
    } while (0)

#define CHECK_CONTAINS(hay, needle)                                                  \
    do {                                                                             \
        const char *h_ = (hay);                                                      \
        if (!h_ || !strstr(h_, (needle))) {                                          \
            fprintf(stderr, "  FAIL %s:%d: \"%s\" does not contain \"%s\"\n",        \
                    __FILE__, __LINE__, h_ ? h_ : "(null)", (needle));               \
            g_failures++;                                                            \
        }                                                                            \
    } while (0)

#define REC_MAX_EVENTS 4096

typedef struct {
    uint32_t kind;
    uint64_t turn_id;
    char *payload;
} rec_event;

/* Records every event of a session; wait helpers block with a generous deadline. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    rec_event events[REC_MAX_EVENTS];
    int count;
    int freed;                 /* times free_fn ran */
    robota_runtime *rt;        /* for answering inside callbacks */
    int answer_tools;          /* complete TOOL_CALL events inside the callback */
    const char *tool_answer;
    int answer_permissions;    /* 1 allow, 2 deny, 3 allow + remember, 0 leave */
    int answer_hooks;          /* exit code + 1 (0 = leave) */
    const char *hook_stderr;
    int reentrancy_status_wait;     /* status of robota_session_wait from a callback */
    int reentrancy_status_dispatch; /* status of robota_session_dispatch from a callback */
    int reentrancy_status_next;     /* status of next_event with a timeout from a callback */
    int free_in_callback;      /* free the session on the first text delta */
    robota_session *session;
} recorder;

void rec_init(recorder *r);
void rec_destroy(recorder *r);
void rec_on_event(void *ud, robota_session *s, uint32_t kind, uint64_t turn, const char *p, size_t n);
void rec_free_fn(void *ud);
int rec_count(recorder *r, uint32_t kind);
/* Waits until at least `n` events of `kind` were recorded (30 s deadline). */
int rec_wait(recorder *r, uint32_t kind, int n);
/* Waits (up to 30 s) until the session's free_fn ran; returns how often it ran. free_fn may run
   just after robota_session_free returns when a callback was still finishing (the contract). */
int rec_wait_freed(recorder *r);
/* Concatenated text deltas. Caller frees. */
char *rec_text(recorder *r);
/* Payload of the i-th event of `kind` (borrowed), or NULL. */
const char *rec_payload(recorder *r, uint32_t kind, int i);
/* Index of the first event of `kind`, or -1. */
int rec_index(recorder *r, uint32_t kind);

/* Observes a runtime's end: a never-called host tool whose free_fn runs once the runtime has
 * shut down (after robota_runtime_free, or after the session holding its last reference was
 * freed: the shutdown then finishes on a library thread). */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int gone;
} shutdown_watch;

void shutdown_watch_start(shutdown_watch *w, robota_runtime *rt);
/* Waits (30 s deadline) until the runtime has shut down; returns 1 when it did. */
int shutdown_watch_wait(shutdown_watch *w);

/* Creates a runtime from config JSON or aborts the test run. */
robota_runtime *make_runtime(const char *config);
/* Creates a session or returns NULL (status in *st). */
robota_session *make_session(robota_runtime *rt, const char *json, recorder *r, int *st);
/* Submits text; returns the turn id (0 on failure). */
uint64_t submit_text(robota_session *s, const char *text);
/* JSON output of robota_session_messages with `query`; caller frees with robota_string_free. */
char *messages_json(robota_session *s, const char *query);
void sleep_ms(int ms);

/* The second translation unit (tu2.c) includes the header too. */
uint32_t tu2_abi_version(void);
const char *tu2_status_text(robota_status s);

#endif
