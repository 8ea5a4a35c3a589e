/* MCP tool servers through the C ABI: a stdio server (tests/mcp/echo_server.py, plain Python,
 * run from the repository root like every C test) configured by "mcp_servers"; the scripted
 * model calls its tool; robota_session_state and the "mcp" command show the server; a server
 * that cannot start leaves the session usable; the SIGCHLD handler the library installed for
 * the server carries SA_ONSTACK (Go hosts abort on one without it). A library built without the cargo feature "mcp"
 * (the slim build, --no-default-features, as the sanitized libraries of .ci/rust_asan.sh and
 * .ci/tsan.sh are) shows both servers failed with that reason, and the session still answers.
 * The real third-party servers are exercised by tests/suite/engine/mcp_servers.rs. */
/* SA_ONSTACK is an X/Open name: declared before any system header is included. */
#define _XOPEN_SOURCE 700
#include <signal.h>

#include "harness.h"

#define SCRIPT_MCP                                                                             \
    "{\"v\":1,\"providers\":{\"s\":{\"kind\":\"scripted\",\"turns\":["                         \
    "{\"tool_calls\":[{\"id\":\"c1\",\"name\":\"mcp__echo__echo\",\"arguments\":{\"text\":\"from C\"}}]}," \
    "{\"text\":\"done\"}]}}}"

void test_mcp_stdio_server(void) {
    robota_runtime *rt = make_runtime(SCRIPT_MCP);
    robota_session *s = make_session(
        rt,
        "{\"v\":1,\"provider\":\"s\",\"model\":\"m\",\"tools\":[],\"permission_mode\":\"bypassPermissions\","
        "\"mcp_servers\":{\"echo\":{\"command\":\"python3\",\"args\":[\"tests/mcp/echo_server.py\"]},"
        "\"gone\":{\"command\":\"/nonexistent/robota-mcp-server\"}}}",
        NULL, NULL);
    CHECK(s != NULL);
    if (!s) {
        robota_runtime_free(rt);
        return;
    }
    char *out = NULL;
    CHECK_EQ_INT(robota_session_state(s, &out, NULL), ROBOTA_OK);
    if (out && strstr(out, "(cargo feature \\\"mcp\\\")")) {
        CHECK_CONTAINS(out, "\"mcp_servers\":[{\"name\":\"echo\",\"transport\":\"stdio\",\"state\":\"failed\",\"tools\":0,"
                            "\"reason\":\"this build of the library has no MCP support (cargo feature \\\"mcp\\\")\"},{\"name\":\"gone\"");
        robota_string_free(out);
        CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "echo"), 30000, NULL), ROBOTA_OK);
        CHECK_EQ_INT(robota_session_messages(s, NULL, &out, NULL), ROBOTA_OK);
        CHECK_CONTAINS(out, "\"content\":\"done\"");
        robota_string_free(out);
        robota_session_free(s);
        robota_runtime_free(rt);
        return;
    }
    CHECK_CONTAINS(out, "\"mcp_servers\":[{\"name\":\"echo\",\"transport\":\"stdio\",\"state\":\"connected\",\"tools\":1},"
                        "{\"name\":\"gone\",\"transport\":\"stdio\",\"state\":\"failed\",\"tools\":0,"
                        "\"reason\":\"cannot start \\\"/nonexistent/robota-mcp-server\\\": No such file or directory (os error 2)\"}]");
    robota_string_free(out);
    struct sigaction chld;
    CHECK_EQ_INT(sigaction(SIGCHLD, NULL, &chld), 0);
    CHECK(chld.sa_handler != SIG_DFL && (chld.sa_flags & SA_ONSTACK) != 0);
    CHECK_EQ_INT(robota_session_wait(s, submit_text(s, "echo"), 30000, NULL), ROBOTA_OK);
    CHECK_EQ_INT(robota_session_messages(s, NULL, &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "\"role\":\"tool\",\"content\":\"from C\"");
    CHECK_CONTAINS(out, "\"content\":\"done\"");
    robota_string_free(out);
    CHECK_EQ_INT(robota_session_command(s, "{\"name\":\"mcp\"}", &out, NULL), ROBOTA_OK);
    CHECK_CONTAINS(out, "\"message\":\"MCP servers:\\n  echo (stdio) \xe2\x80\x94 connected, 1 tools\\n  gone (stdio) \xe2\x80\x94 failed: ");
    robota_string_free(out);
    robota_session_free(s);
    robota_runtime_free(rt);
}
