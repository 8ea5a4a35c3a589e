/* host_provider — the host brings the model. A tiny rule-based "engine" owned by this program
 * is registered as provider "tiny-engine" (robota_runtime_register_provider): for each model
 * call the library hands it a request document; the engine answers from its own thread by
 * pushing events (robota_provider_push): text word by word, a call of the host tool `add`, then
 * `done`. The whole agent loop (tool call, result, final answer) runs with no model server.
 * Its output is checked in CI (host_provider.expected). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <robota.h>

static robota_runtime *g_rt;

/* ---- the engine: one job queue, one inference thread ---------------------------------- */

typedef struct job {
    uint64_t call_id;
    char *request; /* the request document (a copy) */
    struct job *next;
} job;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static job *g_head, *g_tail;
static int g_stop;

static void push(uint64_t id, const char *event) {
    robota_error *e = NULL;
    if (robota_provider_push(g_rt, id, event, &e) != ROBOTA_OK)
        fprintf(stderr, "push failed: %s\n", robota_error_message(e));
    robota_error_free(e);
}

/* Streams `text` word by word as text events. */
static void say(uint64_t id, const char *text) {
    char word[128], event[256];
    for (const char *p = text; *p;) {
        const char *end = strchr(p + 1, ' ');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        snprintf(word, sizeof word, "%.*s", (int)n, p);
        snprintf(event, sizeof event, "{\"type\":\"text\",\"text\":\"%s\"}", word);
        push(id, event);
        p += n;
    }
}

/* The engine's whole "model": the last user text and the last tool result decide. */
static void infer(uint64_t id, const char *request) {
    const char *user = NULL, *p = request;
    while ((p = strstr(p, "{\"type\":\"text\",\"text\":\""))) user = p += 23;
    const char *last_role = NULL;
    for (p = request; (p = strstr(p, "\"role\":\"")); p += 8) last_role = p + 8;
    int a = 0, b = 0;
    if (!user || sscanf(user, "what is %d+%d", &a, &b) != 2) {
        say(id, "I can only add: ask me \\\"what is 2+3\\\".");
        push(id, "{\"type\":\"done\"}");
        return;
    }
    char event[256];
    if (last_role && strncmp(last_role, "tool\"", 5) == 0) {
        const char *content = strstr(last_role, "\"content\":\"");
        char answer[128];
        snprintf(answer, sizeof answer, "%d + %d = %ld.", a, b, content ? strtol(content + 11, NULL, 10) : 0L);
        say(id, answer);
        push(id, "{\"type\":\"usage\",\"input_tokens\":40,\"output_tokens\":5}");
        push(id, "{\"type\":\"done\"}");
        return;
    }
    say(id, "Let me add that.");
    snprintf(event, sizeof event,
             "{\"type\":\"tool_call\",\"id\":\"add-%llu\",\"name\":\"add\",\"arguments\":{\"a\":%d,\"b\":%d}}",
             (unsigned long long)id, a, b);
    push(id, event);
    push(id, "{\"type\":\"usage\",\"input_tokens\":30,\"output_tokens\":8}");
    push(id, "{\"type\":\"done\"}");
}

static void *inference_thread(void *unused) {
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&g_mu);
        while (!g_head && !g_stop) pthread_cond_wait(&g_cv, &g_mu);
        job *j = g_head;
        if (j) {
            g_head = j->next;
            if (!g_head) g_tail = NULL;
        }
        pthread_mutex_unlock(&g_mu);
        if (!j) return NULL;
        infer(j->call_id, j->request);
        free(j->request);
        free(j);
    }
}

/* The provider callback: queue the call and return at once. (A cancel document would stop
 * a long generation; this engine answers in microseconds, so a late push is simply stale.) */
static void on_model_call(void *ud, uint64_t call_id, const char *request, size_t len) {
    (void)ud;
    if (!strstr(request, "\"type\":\"call\"")) return;
    job *j = calloc(1, sizeof *j);
    j->call_id = call_id;
    j->request = strndup(request, len);
    pthread_mutex_lock(&g_mu);
    if (g_tail) g_tail->next = j; else g_head = j;
    g_tail = j;
    pthread_cond_signal(&g_cv);
    pthread_mutex_unlock(&g_mu);
}

/* ---- the host: the `add` tool and the session's events --------------------------------- */

static void add_tool(void *ud, robota_session *s, uint64_t call_id, const char *name, const char *in, size_t n) {
    (void)ud; (void)s; (void)name; (void)n;
    const char *a = strstr(in, "\"a\":"), *b = strstr(in, "\"b\":");
    char out[32];
    snprintf(out, sizeof out, "%ld", (a ? strtol(a + 4, NULL, 10) : 0) + (b ? strtol(b + 4, NULL, 10) : 0));
    robota_tool_call_complete(g_rt, call_id, out, 0, NULL);
}

static void on_event(void *ud, robota_session *s, uint32_t kind, uint64_t turn, const char *p, size_t n) {
    (void)ud; (void)s; (void)turn;
    if (kind == ROBOTA_EVENT_TEXT_DELTA) {
        fwrite(p, 1, n, stdout);
    } else if (kind == ROBOTA_EVENT_TOOL_END) {
        const char *out = strstr(p, "\"output\":\"");
        printf("\n[tool add -> %ld]", out ? strtol(out + 10, NULL, 10) : 0L);
    } else if (kind == ROBOTA_EVENT_TURN_COMPLETED) {
        const char *in = strstr(p, "\"input_tokens\":"), *out = strstr(p, "\"output_tokens\":");
        if (in && out)
            printf("\n[turn done: %ld tokens in, %ld out]\n", strtol(in + 15, NULL, 10), strtol(out + 16, NULL, 10));
        else
            printf("\n[turn done: no usage reported]\n");
    }
    fflush(stdout);
}

int main(void) {
    robota_error *e = NULL;
    if (robota_runtime_new("{\"v\":1,\"providers\":{}}", &g_rt, &e) != ROBOTA_OK) {
        fprintf(stderr, "runtime: %s\n", robota_error_message(e));
        return 1;
    }
    pthread_t engine;
    pthread_create(&engine, NULL, inference_thread, NULL);
    if (robota_runtime_register_provider(g_rt, "tiny-engine", "{\"context_window\":2048}", on_model_call, NULL,
                                         NULL, &e) != ROBOTA_OK) {
        fprintf(stderr, "provider: %s\n", robota_error_message(e));
        return 1;
    }
    robota_runtime_register_tool(g_rt,
        "{\"name\":\"add\",\"description\":\"Adds two integers\",\"input_schema\":{\"type\":\"object\","
        "\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}}",
        add_tool, NULL, NULL, NULL);
    robota_session *s = NULL;
    if (robota_session_new(g_rt,
            "{\"v\":1,\"provider\":\"tiny-engine\",\"model\":\"rules-1\",\"tools\":[\"add\"],"
            "\"system_prompt\":\"You add numbers.\",\"system_prompt_mode\":\"replace\","
            "\"permission_mode\":\"bypassPermissions\"}",
            on_event, NULL, NULL, &s, &e) != ROBOTA_OK) {
        fprintf(stderr, "session: %s\n", robota_error_message(e));
        return 1;
    }
    const char *prompts[] = {"what is 2+3", "what is 40+2", "hello"};
    int failed = 0;
    for (int i = 0; i < 3; i++) {
        char input[128];
        snprintf(input, sizeof input, "{\"text\":\"%s\"}", prompts[i]);
        printf("> %s\n", prompts[i]);
        uint64_t turn = 0;
        robota_session_submit(s, input, &turn, NULL);
        if (robota_session_wait(s, turn, 30000, NULL) != ROBOTA_OK) failed = 1;
    }
    robota_session_free(s);
    robota_runtime_free(g_rt);
    pthread_mutex_lock(&g_mu);
    g_stop = 1;
    pthread_cond_signal(&g_cv);
    pthread_mutex_unlock(&g_mu);
    pthread_join(engine, NULL);
    return failed;
}
