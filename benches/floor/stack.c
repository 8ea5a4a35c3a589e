/* How deep the library takes a host's own thread: the stack a thread pays for opening a
 * session and running its turn, in pages every such thread keeps (docs/performance.md, "A host
 * thread's stack"). Checked against budgets by .ci/stack.sh on the library as it ships.
 *
 *   floor_stack KIND BASE_URL
 *     KIND: anthropic | openai; BASE_URL: the floor's fake server (`floor serve KIND`).
 *
 * A thread with a stack of its own, filled with a pattern, opens a session with one host tool
 * add(a,b) and runs the floor's scenario (3 tool rounds, a 50-delta answer) in two ways:
 * submit + wait ("delivery":"thread") and robota_session_run ("delivery":"inline": the thread
 * drives the turn and receives its events). The
 * deepest byte the pattern lost, counted from where the thread's function started, is what the
 * library took. Each way runs twice on fresh threads and the second is reported: the first
 * also pays the process's one-time setup (statics made at first use). Prints one line:
 *   {"submit_wait_bytes":N,"run_bytes":N}
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "robota.h"

#define STACK_BYTES (1 << 20)
#define PATTERN 0xAA

static robota_runtime *rt;
static char session_json[2][512]; /* [0] submit + wait, [1] run */
static unsigned char *stack_base;
static int run_mode;
static size_t depth_from_entry;
static int deltas, tool_calls;

static void on_event(void *ud, robota_session *s, uint32_t kind, uint64_t turn, const char *payload,
                     size_t len) {
    (void)ud, (void)s, (void)turn;
    /* A model's text delta (the "\n\n" between rounds' texts is the library's, not one). */
    if (kind == ROBOTA_EVENT_TEXT_DELTA && !(len == 2 && payload[0] == '\n' && payload[1] == '\n'))
        __atomic_fetch_add(&deltas, 1, __ATOMIC_RELAXED);
}

static void on_tool(void *ud, robota_session *s, uint64_t call_id, const char *name,
                    const char *input, size_t len) {
    (void)ud, (void)s, (void)name, (void)input, (void)len;
    robota_error *e = NULL;
    __atomic_fetch_add(&tool_calls, 1, __ATOMIC_RELAXED);
    if (robota_tool_call_complete(rt, call_id, "3", 0, &e) != ROBOTA_OK) {
        fprintf(stderr, "tool_call_complete: %s\n", robota_error_message(e));
        exit(1);
    }
}

/* Bytes of the stack below `mark` that no longer hold the pattern. */
static size_t touched_below(const unsigned char *mark) {
    const unsigned char *p = stack_base;
    while (p < mark && *p == PATTERN) p++;
    return (size_t)(mark - p);
}

static void fail(const char *what, robota_error *e) {
    fprintf(stderr, "%s: %s\n", what, e ? robota_error_message(e) : "failed");
    exit(1);
}

static void *body(void *arg) {
    (void)arg;
    unsigned char here;
    robota_session *s = NULL;
    robota_error *e = NULL;
    uint64_t turn = 0;
    const char *prompt = "{\"text\":\"Add 1 and 2, three times.\"}";
    if (robota_session_new(rt, session_json[run_mode], on_event, NULL, NULL, &s, &e) != ROBOTA_OK)
        fail("robota_session_new", e);
    if (run_mode) {
        if (robota_session_run(s, prompt, &turn, &e) != ROBOTA_OK) fail("robota_session_run", e);
    } else {
        if (robota_session_submit(s, prompt, &turn, &e) != ROBOTA_OK) fail("submit", e);
        if (robota_session_wait(s, turn, -1, &e) != ROBOTA_OK) fail("wait", e);
    }
    robota_session_free(s);
    depth_from_entry = touched_below(&here);
    return NULL;
}

/* One scenario on a fresh thread whose stack holds the pattern; the bytes it took. */
static size_t measure(int run) {
    stack_base = mmap(NULL, STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack_base == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    memset(stack_base, PATTERN, STACK_BYTES);
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    pthread_attr_setstack(&attr, stack_base, STACK_BYTES);
    run_mode = run;
    deltas = tool_calls = 0;
    if (pthread_create(&t, &attr, body, NULL) != 0) {
        perror("pthread_create");
        exit(1);
    }
    pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
    munmap(stack_base, STACK_BYTES);
    if (deltas != 53 || tool_calls != 3) {
        fprintf(stderr, "scenario went wrong: %d text deltas (53 expected), %d tool calls (3)\n",
                deltas, tool_calls);
        exit(1);
    }
    return depth_from_entry;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: floor_stack anthropic|openai BASE_URL\n");
        return 2;
    }
    char cfg[512];
    robota_error *e = NULL;
    snprintf(cfg, sizeof cfg,
             "{\"v\":1,\"providers\":{\"p\":{\"kind\":\"%s\",\"base_url\":\"%s\",\"api_key\":\"k\","
             "\"max_retries\":0}}}",
             argv[1], argv[2]);
    for (int run = 0; run < 2; run++)
        snprintf(session_json[run], sizeof session_json[run],
                 "{\"v\":1,\"provider\":\"p\",\"model\":\"m\",\"tools\":[\"add\"],"
                 "\"permission_mode\":\"bypassPermissions\",\"delivery\":\"%s\"}",
                 run ? "inline" : "thread");
    if (robota_runtime_new(cfg, &rt, &e) != ROBOTA_OK) fail("robota_runtime_new", e);
    if (robota_runtime_register_tool(
            rt,
            "{\"name\":\"add\",\"description\":\"Adds.\",\"read_only\":true,\"input_schema\":"
            "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},"
            "\"b\":{\"type\":\"integer\"}}}}",
            on_tool, NULL, NULL, &e) != ROBOTA_OK)
        fail("robota_runtime_register_tool", e);
    size_t submit_wait = 0, run = 0;
    for (int round = 0; round < 2; round++) {
        submit_wait = measure(0);
        run = measure(1);
    }
    robota_runtime_free(rt);
    printf("{\"submit_wait_bytes\":%zu,\"run_bytes\":%zu}\n", submit_wait, run);
    return 0;
}
