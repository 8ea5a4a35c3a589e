/* virtual_fs — the host I/O port: the built-in tools (Read, Write, Glob, Bash, ...) run on an
 * in-memory file system this program serves, with no shell ("exec" is answered unsupported).
 * Nothing touches the real disk. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <robota.h>

#define MAX_FILES 16
static char *g_path[MAX_FILES], *g_data[MAX_FILES];
static int g_n;
static robota_runtime *g_rt;

static char *str_field(const char *json, const char *key) {
    char pat[32];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *p = strstr(json, pat);
    if (!p) return NULL;
    p += strlen(pat);
    char *out = malloc(strlen(p) + 1), *o = out;
    for (; *p && *p != '"'; p++) {
        if (*p == '\\' && p[1]) { p++; *o++ = *p == 'n' ? '\n' : *p; } else *o++ = *p;
    }
    *o = 0;
    return out;
}

static int find(const char *path) {
    for (int i = 0; i < g_n; i++) if (strcmp(g_path[i], path) == 0) return i;
    return -1;
}

static void escape_into(char *out, size_t cap, const char *s) {
    size_t o = strlen(out);
    for (; *s && o + 3 < cap; s++) {
        if (*s == '"' || *s == '\\') { out[o++] = '\\'; out[o++] = *s; }
        else if (*s == '\n') { out[o++] = '\\'; out[o++] = 'n'; }
        else out[o++] = *s;
    }
    out[o] = 0;
}

/* Answers inside the callback; a real host could answer later from any thread. */
static void on_io(void *ud, robota_session *s, uint64_t id, const char *req, size_t len) {
    (void)ud; (void)s; (void)len;
    char ans[4096] = "";
    char *op = str_field(req, "op"), *path = str_field(req, "path");
    int i = path ? find(path) : -1;
    printf("[host] %s %s\n", op ? op : "?", path ? path : "");
    if (op && strcmp(op, "stat") == 0) {
        if (strcmp(path, "/vfs") == 0) snprintf(ans, sizeof ans, "{\"exists\":true,\"is_dir\":true}");
        else if (i < 0) snprintf(ans, sizeof ans, "{\"exists\":false}");
        else snprintf(ans, sizeof ans, "{\"exists\":true,\"is_dir\":false,\"size\":%zu}", strlen(g_data[i]));
    } else if (op && strcmp(op, "read") == 0 && i >= 0) {
        strcpy(ans, "{\"content\":\"");
        escape_into(ans, sizeof ans - 4, g_data[i]);
        strcat(ans, "\"}");
    } else if (op && strcmp(op, "write") == 0 && g_n < MAX_FILES) {
        if (i < 0) { i = g_n++; g_path[i] = strdup(path); } else free(g_data[i]);
        g_data[i] = str_field(req, "content");
        strcpy(ans, "{}");
    } else if (op && strcmp(op, "list") == 0) {
        strcpy(ans, "{\"entries\":[");
        for (int k = 0; k < g_n; k++) {
            if (k) strcat(ans, ",");
            strcat(ans, "{\"name\":\"");
            escape_into(ans, sizeof ans - 40, g_path[k] + strlen("/vfs/"));
            strcat(ans, "\",\"is_dir\":false}");
        }
        strcat(ans, "]}");
    } else if (op && strcmp(op, "read") == 0) {
        strcpy(ans, "{\"error\":\"no such file\"}");
    } else {
        strcpy(ans, "{\"error\":\"unsupported\"}");
    }
    robota_host_io_complete(g_rt, id, ans, NULL);
    free(op);
    free(path);
}

#define CALL(name, args) "{\"tool_calls\":[{\"name\":\"" name "\",\"arguments\":" args "}]},"

int main(void) {
    robota_error *e = NULL;
    if (robota_runtime_new("{\"v\":1,\"providers\":{\"offline\":{\"kind\":\"scripted\",\"turns\":["
                           CALL("Write", "{\"filePath\":\"notes.md\",\"content\":\"# Notes\\nbuy milk\\n\"}")
                           CALL("Glob", "{\"pattern\":\"*.md\"}")
                           CALL("Read", "{\"filePath\":\"notes.md\"}")
                           CALL("Bash", "{\"command\":\"rm -rf /\"}")
                           "{\"text\":\"Your notes say: buy milk.\"}]}}}",
                           &g_rt, &e) != ROBOTA_OK) {
        fprintf(stderr, "%s\n", robota_error_message(e));
        return 1;
    }
    robota_runtime_set_host_io(g_rt, on_io, NULL, NULL, NULL);
    robota_session *s = NULL;
    if (robota_session_new(g_rt, "{\"v\":1,\"provider\":\"offline\",\"model\":\"scripted\",\"host_io\":true,"
                                 "\"cwd\":\"/vfs\",\"permission_mode\":\"bypassPermissions\"}",
                           NULL, NULL, NULL, &s, &e) != ROBOTA_OK) {
        fprintf(stderr, "%s\n", robota_error_message(e));
        return 1;
    }
    uint64_t turn = 0;
    robota_session_submit(s, "{\"text\":\"What do my notes say?\"}", &turn, NULL);
    int rc = robota_session_wait(s, turn, 30000, NULL) == ROBOTA_OK ? 0 : 1;
    char *m = NULL;
    robota_session_messages(s, NULL, &m, NULL);
    printf("%s\n", m ? m : "");
    if (!m || !strstr(m, "buy milk") || !strstr(m, "host I/O exec is not supported by the host")) rc = 1;
    robota_string_free(m);
    robota_session_free(s);
    robota_runtime_free(g_rt);
    for (int i = 0; i < g_n; i++) { free(g_path[i]); free(g_data[i]); }
    return rc;
}
