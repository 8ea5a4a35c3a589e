/* A host provider for the C tests: records every document the library hands it (calls and
 * cancels) and, for the n-th call, pushes a scripted list of events inside the callback (no
 * script = the test answers later from its own thread). */
#ifndef ROBOTA_TEST_FAKE_PROVIDER_H
#define ROBOTA_TEST_FAKE_PROVIDER_H

#include "harness.h"

#define FP_MAX_DOCS 64
#define FP_MAX_CALLS 16

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    robota_runtime *rt;
    char *docs[FP_MAX_DOCS]; /* every document, in arrival order */
    uint64_t ids[FP_MAX_DOCS];
    int count;
    int calls;                               /* call documents among them */
    const char *const *script[FP_MAX_CALLS]; /* NULL-terminated events for the n-th call */
    int failed_pushes;                       /* scripted pushes that did not return OK */
    int freed;                               /* times free_fn ran */
} fake_provider;

void fp_init(fake_provider *f, robota_runtime *rt);
void fp_destroy(fake_provider *f);
/* Registers `f` as provider `name` on its runtime; returns the status (message in *msg when
 * msg is not NULL, copied into a buffer of 512 bytes). */
robota_status fp_register(fake_provider *f, const char *name, const char *caps, char *msg);
/* Waits (30 s deadline) until `n` documents arrived; returns 1 when they did. */
int fp_wait(fake_provider *f, int n);
/* The i-th document (borrowed; NULL when there is none) and its call id. */
const char *fp_doc(fake_provider *f, int i);
uint64_t fp_id(fake_provider *f, int i);
/* Documents containing `needle`. */
int fp_count(fake_provider *f, const char *needle);
/* Waits (30 s deadline) until free_fn ran (it may run just after robota_runtime_free returns,
 * when a freed session was still letting go of the runtime); returns how often it ran. */
int fp_wait_freed(fake_provider *f);
/* A counter, read under the lock. */
typedef enum { FP_DOCS, FP_FAILED_PUSHES, FP_FREED } fp_counter;
int fp_stat(fake_provider *f, fp_counter which);
/* robota_provider_push with the error message copied into `msg` (512 bytes, may be NULL). */
robota_status fp_push(robota_runtime *rt, uint64_t id, const char *event, char *msg);

#endif
