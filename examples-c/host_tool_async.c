/* host_tool_async — a host tool completed later from another thread (a job queue, a game's
 * main thread, a Swift task...). The tool callback only records the call and returns; a worker
 * thread answers it with robota_tool_call_complete. Runs offline (scripted provider). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <robota.h>

static robota_runtime *g_rt;

typedef struct {
    uint64_t call_id;
    char input[256];
} job;

static void *worker(void *p) {
    job *j = (job *)p;
    /* ... the real work happens here, as long as it takes ... */
    char result[512];
    snprintf(result, sizeof result, "{\"temperature_c\":21.5,\"query\":%s}", j->input);
    printf("[worker] completing call %llu\n", (unsigned long long)j->call_id);
    robota_status st = robota_tool_call_complete(g_rt, j->call_id, result, 0, NULL);
    if (st != ROBOTA_OK) printf("[worker] complete failed: %s\n", robota_status_str(st));
    free(j);
    return NULL;
}

static void weather_tool(void *ud, robota_session *s, uint64_t call_id, const char *name, const char *in, size_t n) {
    (void)ud; (void)s;
    printf("[tool] %s(%.*s) -> answering later from a worker thread\n", name, (int)n, in);
    job *j = calloc(1, sizeof *j);
    j->call_id = call_id;
    snprintf(j->input, sizeof j->input, "%.*s", (int)n, in);
    pthread_t th;
    pthread_create(&th, NULL, worker, j);
    pthread_detach(th);
}

static void on_event(void *ud, robota_session *s, uint32_t kind, uint64_t turn, const char *p, size_t n) {
    (void)ud; (void)s; (void)turn;
    if (kind == ROBOTA_EVENT_TEXT_DELTA) {
        fwrite(p, 1, n, stdout);
        fflush(stdout);
    } else if (kind == ROBOTA_EVENT_TOOL_END) {
        printf("\n[tool_end] %.*s\n", (int)n, p);
    }
}

int main(void) {
    robota_error *e = NULL;
    const char *config =
        "{\"v\":1,\"providers\":{\"offline\":{\"kind\":\"scripted\",\"turns\":["
        "{\"text\":\"Checking the weather. \",\"tool_calls\":[{\"name\":\"weather\",\"arguments\":{\"city\":\"Seoul\"}}]},"
        "{\"deltas\":[\"It is \",\"21.5 \\u00b0C \",\"in Seoul.\"]}]}}}";
    if (robota_runtime_new(config, &g_rt, &e) != ROBOTA_OK) {
        fprintf(stderr, "%s\n", robota_error_message(e));
        return 1;
    }
    robota_runtime_register_tool(g_rt,
        "{\"name\":\"weather\",\"description\":\"Weather for a city\",\"read_only\":true,"
        "\"input_schema\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}}",
        weather_tool, NULL, NULL, NULL);
    robota_session *s = NULL;
    if (robota_session_new(g_rt, "{\"v\":1,\"provider\":\"offline\",\"model\":\"scripted\"}", on_event, NULL, NULL, &s, &e) != ROBOTA_OK) {
        fprintf(stderr, "%s\n", robota_error_message(e));
        return 1;
    }
    uint64_t turn = 0;
    robota_session_submit(s, "{\"text\":\"What is the weather in Seoul?\"}", &turn, NULL);
    /* returns once the turn's last callback has returned: all its output is printed */
    robota_status st = robota_session_wait(s, turn, 30000, NULL);
    printf("\n[turn %llu finished: %s]\n", (unsigned long long)turn, robota_status_str(st));
    robota_session_free(s);
    robota_runtime_free(g_rt);
    return st == ROBOTA_OK ? 0 : 1;
}
