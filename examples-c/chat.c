/* chat — an interactive terminal agent over the Robota C ABI.
 *
 *   ./chat                 interactive (type /help for commands, Ctrl-C aborts a turn, EOF quits)
 *   ./chat "a prompt"      one-shot: answers and exits
 *
 * Uses a real model when ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL is set, and the
 * offline scripted provider otherwise. Streams text, runs the built-in file tools and a host
 * tool (`get_time`), and asks y/n before tools that change things. Never hangs without a
 * terminal: end of input declines prompts and exits. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <robota.h>

static robota_runtime *g_rt;
static volatile sig_atomic_t g_interrupt;
static pthread_mutex_t g_out = PTHREAD_MUTEX_INITIALIZER;

static void on_sigint(int sig) {
    (void)sig;
    g_interrupt = 1;
}

/* Extracts a string field from a flat JSON payload (display only; good enough for a demo). */
static void json_str(const char *json, const char *key, char *out, size_t cap) {
    char needle[64];
    snprintf(needle, sizeof needle, "\"%s\":\"", key);
    out[0] = '\0';
    const char *p = strstr(json, needle);
    if (!p) return;
    p += strlen(needle);
    size_t i = 0;
    while (*p && *p != '"' && i + 1 < cap) {
        if (*p == '\\' && p[1]) {
            p++;
            out[i++] = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
            p++;
            continue;
        }
        out[i++] = *p++;
    }
    out[i] = '\0';
}

static uint64_t json_u64(const char *json, const char *key) {
    char needle[64];
    snprintf(needle, sizeof needle, "\"%s\":", key);
    const char *p = strstr(json, needle);
    return p ? strtoull(p + strlen(needle), NULL, 10) : 0;
}

/* Asks y/n on the terminal; end of input (or no terminal) means no. */
static int ask_yes_no(const char *question) {
    pthread_mutex_lock(&g_out);
    printf("\n%s [y/N] ", question);
    fflush(stdout);
    char line[64];
    int yes = fgets(line, sizeof line, stdin) != NULL && (line[0] == 'y' || line[0] == 'Y');
    if (!yes) printf("(declined)\n");
    pthread_mutex_unlock(&g_out);
    return yes;
}

static void on_event(void *ud, robota_session *s, uint32_t kind, uint64_t turn, const char *p, size_t n) {
    (void)ud; (void)s; (void)turn;
    char a[256], b[256];
    switch (kind) {
    case ROBOTA_EVENT_TEXT_DELTA:
        pthread_mutex_lock(&g_out);
        fwrite(p, 1, n, stdout);
        fflush(stdout);
        pthread_mutex_unlock(&g_out);
        break;
    case ROBOTA_EVENT_TOOL_START:
        json_str(p, "tool_name", a, sizeof a);
        json_str(p, "first_arg", b, sizeof b);
        printf("\n  \xe2\x9f\xb3 %s(%s)\n", a, b);
        break;
    case ROBOTA_EVENT_TOOL_END:
        json_str(p, "tool_name", a, sizeof a);
        json_str(p, "result", b, sizeof b);
        printf("  %s %s\n", strcmp(b, "success") == 0 ? "\xe2\x9c\x93" : strcmp(b, "denied") == 0 ? "\xe2\x8a\x98" : "\xe2\x9c\x97", a);
        break;
    case ROBOTA_EVENT_PERMISSION_REQUEST: {
        json_str(p, "tool_name", a, sizeof a);
        char q[512];
        snprintf(q, sizeof q, "[Permission Required] Tool: %s — allow?", a);
        int yes = ask_yes_no(q);
        robota_request_respond(g_rt, json_u64(p, "request_id"),
                               yes ? "{\"decision\":\"allow\",\"remember\":false}" : "{\"decision\":\"deny\",\"remember\":false}",
                               NULL);
        break;
    }
    case ROBOTA_EVENT_ERROR:
        json_str(p, "message", a, sizeof a);
        printf("\n[error] %s\n", a);
        break;
    case ROBOTA_EVENT_TURN_COMPLETED:
        json_str(p, "stop_reason", a, sizeof a);
        if (strcmp(a, "complete") != 0) printf("\n[%s]", a);
        printf("\n");
        fflush(stdout);
        break;
    default:
        break;
    }
}

/* The host tool: answered synchronously inside the callback. */
static void get_time(void *ud, robota_session *s, uint64_t call_id, const char *name, const char *in, size_t n) {
    (void)ud; (void)s; (void)name; (void)in; (void)n;
    char buf[128];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, sizeof buf, "\"%Y-%m-%d %H:%M:%S UTC\"", &tm);
    robota_tool_call_complete(g_rt, call_id, buf, 0, NULL);
}

static const char *SCRIPTED =
    "{\"v\":1,\"providers\":{\"offline\":{\"kind\":\"scripted\",\"fallback\":\"echo\",\"turns\":["
    "{\"deltas\":[\"Hello! \",\"I am running \",\"offline on the scripted provider. \",\"Let me check the time and look at the C files here.\"],"
    "\"delay_ms\":40,\"tool_calls\":[{\"name\":\"get_time\",\"arguments\":{}},"
    "{\"name\":\"Glob\",\"arguments\":{\"pattern\":\"*.c\"}}]},"
    "{\"deltas\":[\"Got it. \",\"Now I will save a note \",\"(this asks for permission).\"],\"delay_ms\":40,"
    "\"tool_calls\":[{\"name\":\"save_note\",\"arguments\":{\"text\":\"hello from chat\"}}]},"
    "{\"deltas\":[\"Done. \",\"Ask me anything; \",\"offline I echo it back.\"],\"delay_ms\":40}]}}}";

static void save_note(void *ud, robota_session *s, uint64_t call_id, const char *name, const char *in, size_t n) {
    (void)ud; (void)s; (void)name;
    printf("  (note: %.*s)\n", (int)n, in);
    robota_tool_call_complete(g_rt, call_id, "\"saved\"", 0, NULL);
}

static int run_turn(robota_session *s, const char *text) {
    /* escape the prompt as a JSON string */
    size_t len = strlen(text);
    char *json = malloc(len * 6 + 32);
    char *o = json + sprintf(json, "{\"text\":\"");
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\') { *o++ = '\\'; *o++ = (char)*c; }
        else if (*c < 0x20) o += sprintf(o, "\\u%04x", *c);
        else *o++ = (char)*c;
    }
    strcpy(o, "\"}");
    uint64_t turn = 0;
    robota_error *e = NULL;
    robota_status st = robota_session_submit(s, json, &turn, &e);
    free(json);
    if (st != ROBOTA_OK) {
        fprintf(stderr, "submit failed: %s\n", robota_error_message(e));
        robota_error_free(e);
        return 1;
    }
    for (;;) {
        st = robota_session_wait(s, turn, 100, NULL);
        if (st != ROBOTA_E_TIMEOUT) break;
        if (g_interrupt) {
            g_interrupt = 0;
            robota_session_abort(s, turn);
        }
    }
    /* wait returned after the turn's last callback: everything is printed already */
    return st == ROBOTA_OK || st == ROBOTA_E_ABORTED ? 0 : 1;
}

int main(int argc, char **argv) {
    const char *anthropic = getenv("ANTHROPIC_API_KEY");
    const char *openai = getenv("OPENAI_API_KEY");
    const char *base = getenv("OPENAI_BASE_URL");
    const char *model_env = getenv("ROBOTA_MODEL");
    char config[1024];
    const char *model = "scripted";
    const char *provider = "offline";
    if (anthropic && *anthropic) {
        snprintf(config, sizeof config, "{\"v\":1,\"providers\":{\"main\":{\"kind\":\"anthropic\",\"api_key\":\"$ENV:ANTHROPIC_API_KEY\"}}}");
        model = model_env ? model_env : "claude-sonnet-4-5";
        provider = "main";
        printf("[robota chat] using Anthropic (%s)\n", model);
    } else if ((openai && *openai) || (base && *base)) {
        snprintf(config, sizeof config, "{\"v\":1,\"providers\":{\"main\":{\"kind\":\"%s\"%s%s%s%s}}}",
                 base && *base ? "openai-compatible" : "openai",
                 openai && *openai ? ",\"api_key\":\"$ENV:OPENAI_API_KEY\"" : "",
                 base && *base ? ",\"base_url\":\"" : "", base && *base ? base : "", base && *base ? "\"" : "");
        model = model_env ? model_env : "gpt-4o-mini";
        provider = "main";
        printf("[robota chat] using %s (%s)\n", base && *base ? base : "OpenAI", model);
    } else {
        snprintf(config, sizeof config, "%s", SCRIPTED);
        printf("[robota chat] offline: scripted provider (set ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL for a real model)\n");
    }
    fflush(stdout);
    robota_error *e = NULL;
    if (robota_runtime_new(config, &g_rt, &e) != ROBOTA_OK) {
        fprintf(stderr, "runtime: %s\n", robota_error_message(e));
        robota_error_free(e);
        return 1;
    }
    robota_runtime_register_tool(g_rt,
        "{\"name\":\"get_time\",\"description\":\"Current UTC time\",\"read_only\":true,"
        "\"input_schema\":{\"type\":\"object\",\"properties\":{}}}", get_time, NULL, NULL, NULL);
    robota_runtime_register_tool(g_rt,
        "{\"name\":\"save_note\",\"description\":\"Saves a note for the user\","
        "\"input_schema\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}}",
        save_note, NULL, NULL, NULL);
    char cwd[1024];
    if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, ".");
    char sjson[2048];
    snprintf(sjson, sizeof sjson,
             "{\"v\":1,\"provider\":\"%s\",\"model\":\"%s\",\"cwd\":\"%s\","
             "\"system_prompt\":\"You are a helpful terminal assistant. Use tools when useful.\"}",
             provider, model, cwd);
    robota_session *s = NULL;
    if (robota_session_new(g_rt, sjson, on_event, NULL, NULL, &s, &e) != ROBOTA_OK) {
        fprintf(stderr, "session: %s\n", robota_error_message(e));
        robota_error_free(e);
        robota_runtime_free(g_rt);
        return 1;
    }
    signal(SIGINT, on_sigint);
    int rc = 0;
    if (argc > 1) {
        rc = run_turn(s, argv[1]);
    } else {
        char line[4096];
        for (;;) {
            printf("> ");
            fflush(stdout);
            if (!fgets(line, sizeof line, stdin)) {
                printf("\n");
                break;
            }
            line[strcspn(line, "\n")] = '\0';
            if (line[0] == '\0') continue;
            if (strcmp(line, "/quit") == 0 || strcmp(line, "/exit") == 0) break;
            if (line[0] == '/') {
                char name[64] = {0};
                const char *args = "";
                sscanf(line + 1, "%63s", name);
                const char *sp = strchr(line, ' ');
                if (sp) args = sp + 1;
                char cmd[4400];
                snprintf(cmd, sizeof cmd, "{\"name\":\"%s\",\"args\":\"%s\"}", name, args);
                char *out = NULL;
                if (robota_session_command(s, cmd, &out, &e) == ROBOTA_OK) {
                    char msg[2048];
                    json_str(out, "message", msg, sizeof msg);
                    printf("%s\n", msg);
                    robota_string_free(out);
                } else {
                    printf("%s\n", robota_error_message(e));
                    robota_error_free(e);
                    e = NULL;
                }
                continue;
            }
            run_turn(s, line);
        }
    }
    robota_session_free(s);
    robota_runtime_free(g_rt);
    return rc;
}
