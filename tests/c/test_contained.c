/* Contained tools: what a child process inherits (`tool_env`, resolved `$ENV:` secrets) and
 * what happens when the kernel has no Landlock (`SANDBOX_UNAVAILABLE`, `fallback`). Both need
 * a process of their own: the first sets variables of this process's environment, the second
 * runs this program again under a seccomp filter that answers Landlock's syscalls with ENOSYS,
 * as a kernel without Landlock does. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define SECRET_VALUE "sk-ct-provider-0123456789"

/* A scripted model that calls Bash with `cmd` (a JSON string literal) once, then answers. */
#define BASH_SCRIPT(cmd, extra_profiles)                                                            \
    "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":["                               \
    "{\"tool_calls\":[{\"id\":\"c1\",\"name\":\"Bash\",\"arguments\":{\"command\":" cmd "}}]},"      \
    "{\"text\":\"done\"}]}" extra_profiles "}}"

static void make_workspace(char *dir) {
    strcpy(dir, "/tmp/robota-contained-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
}

/* Runs one turn of `session_json` (with `%s` for the workspace) and returns the Bash call's
 * tool_end payload (caller frees); in *warning the SANDBOX_UNAVAILABLE warning's payload (or
 * NULL), checked to come just before the Bash call's tool_start; in *mcp_warning the first
 * MCP_SERVER warning's payload (or NULL). */
static char *bash_turn_warnings(const char *runtime_json, const char *session_fmt, const char *ws,
                                char **warning, char **mcp_warning) {
    robota_runtime *rt = make_runtime(runtime_json);
    recorder r;
    rec_init(&r);
    char session_json[2048];
    snprintf(session_json, sizeof session_json, session_fmt, ws);
    robota_session *s = make_session(rt, session_json, &r, NULL);
    char *out = NULL;
    if (s) {
        CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "go"), 30000, NULL), ROBOTA_OK);
        rec_wait(&r, ROBOTA_EVENT_TOOL_END, 1);
        const char *p = rec_payload(&r, ROBOTA_EVENT_TOOL_END, 0);
        out = strdup(p ? p : "");
        if (warning) {
            *warning = NULL;
            pthread_mutex_lock(&r.mu);
            for (int i = 0; i + 1 < r.count; i++)
                if (r.events[i].kind == ROBOTA_EVENT_WARNING &&
                    strstr(r.events[i].payload, "SANDBOX_UNAVAILABLE")) {
                    CHECK_EQ_INT(r.events[i + 1].kind, ROBOTA_EVENT_TOOL_START);
                    *warning = strdup(r.events[i].payload);
                }
            pthread_mutex_unlock(&r.mu);
        }
        if (mcp_warning) {
            *mcp_warning = NULL;
            for (int i = 0; rec_payload(&r, ROBOTA_EVENT_WARNING, i); i++) {
                const char *w = rec_payload(&r, ROBOTA_EVENT_WARNING, i);
                if (strstr(w, "\"code\":\"MCP_SERVER\"") && !*mcp_warning) *mcp_warning = strdup(w);
            }
        }
        robota_session_free(s);
    }
    robota_runtime_free(rt);
    rec_destroy(&r);
    return out ? out : strdup("");
}

static char *bash_turn(const char *runtime_json, const char *session_fmt, const char *ws, char **warning) {
    return bash_turn_warnings(runtime_json, session_fmt, ws, warning, NULL);
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return strdup("");
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strdup(buf);
}

/* A `$ENV:` provider key, a `*_TOKEN` variable and a variable holding the key's value under an
 * innocent name reach neither Bash, a command hook nor a stdio MCP server; a plain variable and
 * `tool_env.set` do. */
void test_contained_secrets_never_reach_children(void) {
    setenv("ROBOTA_CT_PROVIDER_SECRET", SECRET_VALUE, 1);
    setenv("ROBOTA_CT_TOKEN", "tok-ct-0123456789", 1);
    setenv("ROBOTA_CT_ALIAS", "Bearer " SECRET_VALUE, 1);
    setenv("ROBOTA_CT_PLAIN", "plain-value", 1);
    char ws[64];
    make_workspace(ws);
    const char *runtime_json = BASH_SCRIPT(
        "\"env\"",
        ",\"unused\":{\"kind\":\"openai\",\"base_url\":\"http://127.0.0.1:9/v1\","
        "\"api_key\":\"$ENV:ROBOTA_CT_PROVIDER_SECRET\"}");
    const char *session_fmt =
        "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"cwd\":\"%s\",\"tools\":[\"Bash\"],"
        "\"permission_mode\":\"bypassPermissions\",\"tool_env\":{\"set\":{\"ROBOTA_CT_SET\":\"set-value\"}},"
        "\"hooks\":{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\","
        "\"command\":\"env > hook_env.txt\"}]}]},"
        "\"mcp_servers\":{\"envcheck\":{\"command\":\"sh\",\"args\":[\"-c\",\"env > mcp_env.txt\"]}}}";
    char *mcp_warning = NULL;
    char *out = bash_turn_warnings(runtime_json, session_fmt, ws, NULL, &mcp_warning);
    CHECK_CONTAINS(out, "\"result\":\"success\"");
    CHECK_CONTAINS(out, "ROBOTA_CT_PLAIN=plain-value");
    CHECK_CONTAINS(out, "ROBOTA_CT_SET=set-value");
    CHECK(strstr(out, "ROBOTA_CT_TOKEN") == NULL);
    CHECK(strstr(out, "ROBOTA_CT_PROVIDER_SECRET") == NULL);
    CHECK(strstr(out, SECRET_VALUE) == NULL);
    CHECK(strstr(out, "ROBOTA_CT_ALIAS") == NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/hook_env.txt", ws);
    char *hook = read_file(path);
    CHECK_CONTAINS(hook, "ROBOTA_CT_PLAIN=plain-value");
    CHECK_CONTAINS(hook, "ROBOTA_CT_SET=set-value");
    CHECK(strstr(hook, "ROBOTA_CT_TOKEN") == NULL);
    CHECK(strstr(hook, SECRET_VALUE) == NULL);
    free(hook);
    /* The stdio MCP server (it exits at once: the session goes on with a warning). A library
     * built without the cargo feature "mcp" (the sanitizer builds) starts no server and says so. */
    snprintf(path, sizeof path, "%s/mcp_env.txt", ws);
    CHECK(mcp_warning != NULL);
    if (mcp_warning && strstr(mcp_warning, "(cargo feature \\\"mcp\\\")")) {
        CHECK(access(path, F_OK) != 0);
    } else {
        char *mcp = read_file(path);
        CHECK_CONTAINS(mcp, "ROBOTA_CT_PLAIN=plain-value");
        CHECK_CONTAINS(mcp, "ROBOTA_CT_SET=set-value");
        CHECK(strstr(mcp, "ROBOTA_CT_TOKEN") == NULL);
        CHECK(strstr(mcp, SECRET_VALUE) == NULL);
        free(mcp);
    }
    free(mcp_warning);
    free(out);

    /* inherit none: only `set` (and what sh itself adds). */
    out = bash_turn(runtime_json,
                    "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"cwd\":\"%s\",\"tools\":[\"Bash\"],"
                    "\"permission_mode\":\"bypassPermissions\",\"sandbox\":{\"mode\":\"off\"},"
                    "\"tool_env\":{\"inherit\":\"none\",\"set\":{\"ONLY\":\"1\"}}}",
                    ws, NULL);
    CHECK_CONTAINS(out, "ONLY=1");
    CHECK(strstr(out, "ROBOTA_CT_PLAIN") == NULL);
    CHECK(strstr(out, "HOME=") == NULL);
    free(out);
    unsetenv("ROBOTA_CT_PROVIDER_SECRET");
    unsetenv("ROBOTA_CT_TOKEN");
    unsetenv("ROBOTA_CT_ALIAS");
    unsetenv("ROBOTA_CT_PLAIN");
}

/* In the child: both fallbacks on a "kernel" without Landlock. Returns the failures. */
int contained_child_without_landlock(void) {
    char ws[64];
    make_workspace(ws);
    char sibling[128];
    snprintf(sibling, sizeof sibling, "%s-sibling", ws);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "\"echo x > %s && echo wrote\"", sibling);
    char runtime_json[1024];
    snprintf(runtime_json, sizeof runtime_json, BASH_SCRIPT("%s", ""), cmd);
    char *warning = NULL;
    char *out = bash_turn(runtime_json,
                          "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"cwd\":\"%s\",\"tools\":[\"Bash\"],"
                          "\"permission_mode\":\"bypassPermissions\"}",
                          ws, &warning);
    CHECK_CONTAINS(warning, "\"code\":\"SANDBOX_UNAVAILABLE\"");
    CHECK_CONTAINS(warning, "Landlock is not available in this kernel");
    CHECK_CONTAINS(warning, "commands run without it (sandbox.fallback \\\"unsandboxed\\\")");
    CHECK_CONTAINS(out, "\"result\":\"success\"");
    CHECK_CONTAINS(out, "wrote");
    CHECK(access(sibling, F_OK) == 0);
    unlink(sibling);
    free(warning);
    free(out);

    warning = NULL;
    out = bash_turn(runtime_json,
                    "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"cwd\":\"%s\",\"tools\":[\"Bash\"],"
                    "\"permission_mode\":\"bypassPermissions\",\"sandbox\":{\"fallback\":\"refuse\"}}",
                    ws, &warning);
    CHECK_CONTAINS(warning, "\"code\":\"SANDBOX_UNAVAILABLE\"");
    CHECK_CONTAINS(warning, "Bash commands are refused (sandbox.fallback \\\"refuse\\\")");
    CHECK_CONTAINS(out, "{\\\"success\\\":false,\\\"output\\\":\\\"\\\",\\\"error\\\":\\\"The sandbox cannot run this command: Landlock is not available");
    CHECK(access(sibling, F_OK) != 0);
    free(warning);
    free(out);
    return g_failures;
}

/* Runs this program again as `--contained-child` with landlock_create_ruleset (444 on every
 * architecture) failing with ENOSYS. */
void test_contained_sandbox_unavailable(void) {
    /* The program's own path (valgrind answers readlink with its client's). */
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(n > 0);
    if (n <= 0) return;
    self[n] = 0;
    pid_t pid = fork();
    if (pid == 0) {
        struct sock_filter filter[] = {
            BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 444, 0, 1),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = {(unsigned short)(sizeof filter / sizeof filter[0]), filter};
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(90);
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) _exit(91);
        char *args[] = {self, (char *)"--contained-child", NULL};
        execv(self, args);
        _exit(92);
    }
    CHECK(pid > 0);
    int status = 0;
    CHECK_EQ_INT(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ_INT(WEXITSTATUS(status), 0);
}
