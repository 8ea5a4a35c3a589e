/* Host I/O port: the built-in tools run over an in-memory virtual file system served by the
 * host (no shell: exec is answered "unsupported"), in thread mode (answers inside the
 * callback) and pull mode (answers from another thread; abort makes late answers stale). */
#include "harness.h"

#define VFS_MAX 32

typedef struct {
    pthread_mutex_t mu;
    char *paths[VFS_MAX];
    char *contents[VFS_MAX]; /* NULL = directory */
    int n;
    char log[8192];           /* "op path\n" of every request seen */
    int freed;
    int bad_read_shape;       /* answer read with a wrong-shaped document */
    robota_runtime *rt;
} vfs;

static void vfs_put(vfs *v, const char *path, const char *content) {
    for (int i = 0; i < v->n; i++) {
        if (strcmp(v->paths[i], path) == 0) {
            free(v->contents[i]);
            v->contents[i] = content ? strdup(content) : NULL;
            return;
        }
    }
    if (v->n == VFS_MAX) return;
    v->paths[v->n] = strdup(path);
    v->contents[v->n] = content ? strdup(content) : NULL;
    v->n++;
}

static void vfs_init(vfs *v, robota_runtime *rt) {
    memset(v, 0, sizeof *v);
    pthread_mutex_init(&v->mu, NULL);
    v->rt = rt;
    vfs_put(v, "/vfs", NULL);
    vfs_put(v, "/vfs/src", NULL);
    vfs_put(v, "/vfs/src/main.c", "int main(void) {\n    return 0;\n}\n");
    vfs_put(v, "/vfs/notes.txt", "first line\nsecond line\n");
    vfs_put(v, "/vfs/secret", NULL);
    vfs_put(v, "/vfs/secret/key.txt", "hunter2\n");
}

static void vfs_destroy(vfs *v) {
    for (int i = 0; i < v->n; i++) {
        free(v->paths[i]);
        free(v->contents[i]);
    }
    pthread_mutex_destroy(&v->mu);
}

static int vfs_find(vfs *v, const char *path) {
    for (int i = 0; i < v->n; i++)
        if (strcmp(v->paths[i], path) == 0) return i;
    return -1;
}

/* The JSON string value of `key` in `json`, unescaped (\n \" \\ \t \/ only). Caller frees. */
static char *json_str(const char *json, const char *key) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *p = strstr(json, pat);
    if (!p) return NULL;
    p += strlen(pat);
    char *out = malloc(strlen(p) + 1);
    size_t o = 0;
    while (*p && *p != '"') {
        if (*p == '\\' && p[1]) {
            p++;
            out[o++] = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
        } else {
            out[o++] = *p;
        }
        p++;
    }
    out[o] = 0;
    return out;
}

/* Appends `s` JSON-escaped (with quotes) to `buf`. */
static void json_put(char *buf, size_t cap, const char *s) {
    size_t o = strlen(buf);
    if (o + 2 >= cap) return;
    buf[o++] = '"';
    for (; *s && o + 3 < cap; s++) {
        if (*s == '"' || *s == '\\') { buf[o++] = '\\'; buf[o++] = *s; }
        else if (*s == '\n') { buf[o++] = '\\'; buf[o++] = 'n'; }
        else buf[o++] = *s;
    }
    buf[o++] = '"';
    buf[o] = 0;
}

/* Serves one request; writes the answer document into `ans`. */
static void vfs_serve(vfs *v, const char *req, char *ans, size_t cap) {
    char *op = json_str(req, "op");
    char *path = json_str(req, "path");
    pthread_mutex_lock(&v->mu);
    size_t l = strlen(v->log);
    snprintf(v->log + l, sizeof v->log - l, "%s %s\n", op ? op : "?", path ? path : (op && strcmp(op, "exec") == 0 ? "-" : "?"));
    int i = path ? vfs_find(v, path) : -1;
    ans[0] = 0;
    if (!op) {
        snprintf(ans, cap, "{\"error\":\"no op\"}");
    } else if (strcmp(op, "stat") == 0) {
        if (i < 0) snprintf(ans, cap, "{\"exists\":false}");
        else snprintf(ans, cap, "{\"exists\":true,\"is_dir\":%s,\"size\":%zu,\"mtime_ms\":1700000000000}",
                      v->contents[i] ? "false" : "true", v->contents[i] ? strlen(v->contents[i]) : 0);
    } else if (strcmp(op, "read") == 0) {
        if (v->bad_read_shape) snprintf(ans, cap, "{\"content\":5}");
        else if (i < 0 || !v->contents[i]) snprintf(ans, cap, "{\"error\":\"no such file\"}");
        else { strcat(ans, "{\"content\":"); json_put(ans, cap - 1, v->contents[i]); strcat(ans, "}"); }
    } else if (strcmp(op, "write") == 0) {
        char *content = json_str(req, "content");
        vfs_put(v, path, content ? content : "");
        free(content);
        snprintf(ans, cap, "{}");
    } else if (strcmp(op, "list") == 0) {
        strcat(ans, "{\"entries\":[");
        size_t plen = strlen(path);
        int first = 1;
        for (int k = 0; k < v->n; k++) {
            const char *p = v->paths[k];
            if (strncmp(p, path, plen) != 0 || p[plen] != '/' || strchr(p + plen + 1, '/')) continue;
            if (!first) strcat(ans, ",");
            first = 0;
            strcat(ans, "{\"name\":");
            json_put(ans, cap - 40, p + plen + 1);
            strcat(ans, v->contents[k] ? ",\"is_dir\":false}" : ",\"is_dir\":true}");
        }
        strcat(ans, "]}");
    } else {
        snprintf(ans, cap, "{\"error\":\"unsupported\"}");
    }
    pthread_mutex_unlock(&v->mu);
    free(op);
    free(path);
}

static void vfs_cb(void *ud, robota_session *s, uint64_t io_id, const char *req, size_t n) {
    (void)s;
    vfs *v = (vfs *)ud;
    CHECK_EQ_INT(strlen(req), n);
    char ans[4096];
    vfs_serve(v, req, ans, sizeof ans);
    CHECK_EQ_INT(robota_host_io_complete(v->rt, io_id, ans, NULL), ROBOTA_OK);
    CHECK_EQ_INT(robota_host_io_complete(v->rt, io_id, ans, NULL), ROBOTA_E_STALE);
}

static void vfs_free(void *ud) { ((vfs *)ud)->freed++; }

#define CALL(id, name, args) "{\"id\":\"" id "\",\"name\":\"" name "\",\"arguments\":" args "}"

#define VFS_SCRIPT                                                                                \
    "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":["                            \
    "{\"tool_calls\":[" CALL("c1", "Write", "{\"filePath\":\"out/new.txt\",\"content\":\"made \\\"here\\\"\\n\"}") "]}," \
    "{\"tool_calls\":[" CALL("c2", "Read", "{\"filePath\":\"src/../notes.txt\"}") "]},"          \
    "{\"tool_calls\":[" CALL("c3", "Edit", "{\"filePath\":\"/vfs/notes.txt\",\"oldString\":\"second\",\"newString\":\"2nd\"}") "]}," \
    "{\"tool_calls\":[" CALL("c4", "Grep", "{\"pattern\":\"line\",\"outputMode\":\"content\"}") "]}," \
    "{\"tool_calls\":[" CALL("c5", "Glob", "{\"pattern\":\"**/*.c\"}") "]},"                     \
    "{\"tool_calls\":[" CALL("c6", "Bash", "{\"command\":\"ls\"}") "]},"                          \
    "{\"tool_calls\":[" CALL("c7", "Read", "{\"filePath\":\"secret/key.txt\"}") "]},"            \
    "{\"text\":\"Done.\"}]}}}"

void test_host_io_virtual_fs(void) {
    robota_runtime *rt = make_runtime(VFS_SCRIPT);
    vfs v;
    vfs_init(&v, rt);
    /* a host_io session in thread mode needs the callback first */
    int st = 0;
    robota_session *none = make_session(rt, "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"host_io\":true}", NULL, &st);
    CHECK(none == NULL);
    CHECK_EQ_INT(st, ROBOTA_E_INVALID_CONFIG);
    CHECK_EQ_INT(robota_runtime_set_host_io(rt, vfs_cb, &v, vfs_free, NULL), ROBOTA_OK);
    recorder r;
    rec_init(&r);
    robota_session *s = make_session(rt,
        "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"host_io\":true,\"cwd\":\"/vfs\","
        "\"permission_mode\":\"bypassPermissions\",\"permissions\":{\"deny\":[\"Read(/vfs/secret/**)\"]}}",
        &r, NULL);
    CHECK(s != NULL);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "work on the vfs"), 30000, NULL), ROBOTA_OK);
    char *m = messages_json(s, NULL);
    /* Write: relative path resolved against the session cwd, stored in the host's memory */
    int i = vfs_find(&v, "/vfs/out/new.txt");
    CHECK(i >= 0);
    if (i >= 0) CHECK(strcmp(v.contents[i], "made \"here\"\n") == 0);
    /* Read: src/../notes.txt normalized before the host saw it */
    CHECK_CONTAINS(m, "Written 12 bytes to out/new.txt");
    CHECK_CONTAINS(m, "[File: src/../notes.txt (2 lines)]\\\\n1\\\\tfirst line\\\\n2\\\\tsecond line");
    CHECK_CONTAINS(v.log, "read /vfs/notes.txt\n");
    CHECK(strstr(v.log, "..") == NULL);
    /* Edit through read + write */
    i = vfs_find(&v, "/vfs/notes.txt");
    if (i >= 0) CHECK(strcmp(v.contents[i], "first line\n2nd line\n") == 0);
    /* Grep and Glob walk through list + read */
    CHECK_CONTAINS(m, "\\\"output\\\":\\\"/vfs/notes.txt:1:first line\\\\n/vfs/notes.txt:2:2nd line\\\"}");
    CHECK_CONTAINS(v.log, "list /vfs\n");
    CHECK_CONTAINS(v.log, "list /vfs/src\n");
    CHECK_CONTAINS(m, "{\\\"success\\\":true,\\\"output\\\":\\\"src/main.c\\\"}");
    /* Bash: no shell on this host */
    CHECK_CONTAINS(v.log, "exec -\n");
    CHECK_CONTAINS(m, "host I/O exec is not supported by the host");
    /* the deny rule stopped Read(secret/key.txt) before the host saw a request */
    CHECK(strstr(v.log, "stat /vfs/secret/key.txt") == NULL);
    CHECK_CONTAINS(m, "Permission denied");
    CHECK(strstr(m, "hunter2") == NULL);
    CHECK_CONTAINS(m, "\"content\":\"Done.\"");
    robota_string_free(m);
    robota_session_free(s);
    robota_runtime_free(rt);
    CHECK_EQ_INT(v.freed, 1);
    rec_destroy(&r);
    vfs_destroy(&v);
}

typedef struct {
    robota_runtime *rt;
    uint64_t id;
    const char *answer;
    int status;
} later_io;

static void *answer_later(void *arg) {
    later_io *a = (later_io *)arg;
    sleep_ms(20);
    a->status = robota_host_io_complete(a->rt, a->id, a->answer, NULL);
    return NULL;
}

/* Next HOST_IO event of a pull session (other events skipped); returns its io_id and copies the
 * event into `out`. */
static uint64_t next_host_io(robota_session *s, char *out, size_t cap) {
    for (int k = 0; k < 200; k++) {
        char *ev = NULL;
        if (robota_session_next_event(s, 30000, &ev, NULL) != ROBOTA_OK) return 0;
        int is_io = strstr(ev, "\"kind\":19") != NULL;
        if (is_io) {
            snprintf(out, cap, "%s", ev);
            const char *p = strstr(ev, "\"io_id\":");
            uint64_t id = p ? strtoull(p + 8, NULL, 10) : 0;
            robota_string_free(ev);
            return id;
        }
        robota_string_free(ev);
    }
    return 0;
}

#define PULL_SCRIPT                                                                               \
    "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":["                            \
    "{\"tool_calls\":[" CALL("c1", "Read", "{\"filePath\":\"/vfs/a.txt\"}") "]},"                \
    "{\"text\":\"Read it.\"},"                                                                  \
    "{\"tool_calls\":[" CALL("c2", "Read", "{\"filePath\":\"/vfs/b.txt\"}") "]},"                \
    "{\"text\":\"unused\"}]}}}"

void test_host_io_pull_async_and_abort(void) {
    robota_runtime *rt = make_runtime(PULL_SCRIPT);
    robota_session *s = make_session(rt,
        "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"host_io\":true,\"cwd\":\"/vfs\","
        "\"delivery\":\"pull\",\"permission_mode\":\"bypassPermissions\"}", NULL, NULL);
    CHECK(s != NULL);
    uint64_t turn = submit_text(s, "read a");
    char ev[2048] = "";
    /* one read (no stat first), answered later from another thread */
    uint64_t id = next_host_io(s, ev, sizeof ev);
    CHECK(id > 0);
    CHECK_CONTAINS(ev, "\"type\":\"host_io\"");
    CHECK_CONTAINS(ev, "\"request\":{\"v\":1,\"op\":\"read\",\"path\":\"/vfs/a.txt\"}");
    /* wrong shapes are refused and the request keeps waiting */
    CHECK_EQ_INT(robota_host_io_complete(rt, id, "[1]", NULL), ROBOTA_E_INVALID_CONFIG);
    CHECK_EQ_INT(robota_host_io_complete(rt, id, "{nope", NULL), ROBOTA_E_INVALID_JSON);
    CHECK_EQ_INT(robota_host_io_complete(rt, id + 1000, "{}", NULL), ROBOTA_E_NOT_FOUND);
    later_io b = {rt, id, "{\"content\":\"alpha\\n\"}", -1};
    pthread_t th;
    pthread_create(&th, NULL, answer_later, &b);
    CHECK_EQ_INT(robota_session_wait(s, turn, 30000, NULL), ROBOTA_OK);
    pthread_join(th, NULL);
    CHECK_EQ_INT(b.status, ROBOTA_OK);
    uint64_t id2 = id;
    char *m = messages_json(s, NULL);
    CHECK_CONTAINS(m, "alpha");
    CHECK_CONTAINS(m, "\"content\":\"Read it.\"");
    robota_string_free(m);
    /* abort while the host holds a request: the late answer is stale */
    uint64_t turn2 = submit_text(s, "read b");
    uint64_t id3 = next_host_io(s, ev, sizeof ev);
    CHECK(id3 > id2);
    CHECK_EQ_INT(robota_session_abort(s, turn2), ROBOTA_OK);
    CHECK_EQ_INT(robota_session_wait(s, turn2, 30000, NULL), ROBOTA_E_ABORTED);
    CHECK_EQ_INT(robota_host_io_complete(rt, id3, "{\"exists\":false}", NULL), ROBOTA_E_STALE);
    robota_session_free(s);
    robota_runtime_free(rt);
}

#define SHAPE_SCRIPT                                                                              \
    "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":["                            \
    "{\"tool_calls\":[" CALL("c1", "Read", "{\"filePath\":\"notes.txt\"}") "]},"                 \
    "{\"text\":\"ok\"}]}}}"

void test_host_io_wrong_shape_pump(void) {
    robota_runtime *rt = make_runtime(SHAPE_SCRIPT);
    vfs v;
    vfs_init(&v, rt);
    v.bad_read_shape = 1;
    CHECK_EQ_INT(robota_runtime_set_host_io(rt, vfs_cb, &v, vfs_free, NULL), ROBOTA_OK);
    robota_session *s = make_session(rt,
        "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"host_io\":true,\"cwd\":\"/vfs\","
        "\"delivery\":\"pump\",\"permission_mode\":\"bypassPermissions\"}", NULL, NULL);
    uint64_t turn = submit_text(s, "read");
    /* pump mode: requests are served on this thread, inside robota_session_dispatch */
    for (int k = 0; k < 1000 && robota_session_wait(s, turn, 0, NULL) == ROBOTA_E_TIMEOUT; k++)
        robota_session_dispatch(s, 0, 100);
    CHECK_EQ_INT(robota_session_wait(s, turn, 30000, NULL), ROBOTA_OK);
    char *m = messages_json(s, NULL);
    CHECK_CONTAINS(m, "host I/O read answer: field \\\\\\\"content\\\\\\\" must be a string");
    robota_string_free(m);
    robota_session_free(s);
    /* NULL removes the registration: its free_fn runs */
    CHECK_EQ_INT(robota_runtime_set_host_io(rt, NULL, NULL, NULL, NULL), ROBOTA_OK);
    CHECK_EQ_INT(v.freed, 1);
    robota_runtime_free(rt);
    vfs_destroy(&v);
}
