/* The C consumer of the installed library (tests/install/drive.py describes the turn it runs).
 * Built with `pkg-config --cflags --libs robota` only: no path into the source tree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <robota.h>

static robota_runtime *g_rt;
static char g_text[4096];

static void add_tool(void *ud, robota_session *s, uint64_t call_id, const char *name, const char *in, size_t n) {
    (void)ud; (void)s; (void)name;
    int a = 0, b = 0;
    char args[256];
    snprintf(args, sizeof args, "%.*s", (int)n, in);
    printf("tool add %s\n", args);
    char result[32];
    if (sscanf(args, "{\"a\":%d,\"b\":%d}", &a, &b) == 2) {
        snprintf(result, sizeof result, "%d", a + b);
        robota_tool_call_complete(g_rt, call_id, result, 0, NULL);
    } else {
        robota_tool_call_complete(g_rt, call_id, "\"arguments are not {a,b}\"", 1, NULL);
    }
}

static void on_event(void *ud, robota_session *s, uint32_t kind, uint64_t turn, const char *p, size_t n) {
    (void)ud; (void)s; (void)turn;
    if (kind == ROBOTA_EVENT_TEXT_DELTA && strlen(g_text) + n < sizeof g_text) strncat(g_text, p, n);
}

static int fail(const char *what, robota_error *e) {
    fprintf(stderr, "%s: %s\n", what, e ? robota_error_message(e) : "failed");
    robota_error_free(e);
    return 1;
}

int main(void) {
    const char *base_url = getenv("ROBOTA_BASE_URL");
    if (!base_url) return fail("ROBOTA_BASE_URL is not set", NULL);
    if ((robota_abi_version() >> 16) != (ROBOTA_ABI_VERSION >> 16)) return fail("ABI major version", NULL);
    char config[512];
    snprintf(config, sizeof config,
             "{\"v\":1,\"providers\":{\"fake\":{\"kind\":\"openai-compatible\",\"base_url\":\"%s\","
             "\"api_key\":\"test\"}}}", base_url);
    robota_error *e = NULL;
    if (robota_runtime_new(config, &g_rt, &e) != ROBOTA_OK) return fail("runtime", e);
    const char *tool =
        "{\"name\":\"add\",\"description\":\"Adds two integers\",\"read_only\":true,\"input_schema\":"
        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},"
        "\"required\":[\"a\",\"b\"]}}";
    if (robota_runtime_register_tool(g_rt, tool, add_tool, NULL, NULL, &e) != ROBOTA_OK) return fail("tool", e);
    robota_session *s = NULL;
    if (robota_session_new(g_rt, "{\"v\":1,\"provider\":\"fake\",\"model\":\"fake-model\"}", on_event, NULL,
                           NULL, &s, &e) != ROBOTA_OK)
        return fail("session", e);
    uint64_t turn = 0;
    if (robota_session_submit(s, "{\"text\":\"What is 2 + 3?\"}", &turn, &e) != ROBOTA_OK) return fail("submit", e);
    robota_status st = robota_session_wait(s, turn, 60000, &e);
    if (st != ROBOTA_OK) return fail("turn", e);
    printf("text %s\n", g_text);
    robota_session_free(s);
    robota_runtime_free(g_rt);
    return 0;
}
