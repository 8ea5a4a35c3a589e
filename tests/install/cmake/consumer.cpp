// The C++ consumer of the installed library (tests/install/drive.py describes the turn it runs),
// built by CMake from find_package(robota) only.
#include <robota.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace {

robota_runtime *g_rt = nullptr;
std::string g_text;

struct Free {
    void operator()(robota_runtime *rt) const { robota_runtime_free(rt); }
    void operator()(robota_session *s) const { robota_session_free(s); }
};

void add_tool(void *, robota_session *, uint64_t call_id, const char *, const char *in, size_t n) {
    std::string args(in, n);
    std::printf("tool add %s\n", args.c_str());
    int a = 0, b = 0;
    if (std::sscanf(args.c_str(), "{\"a\":%d,\"b\":%d}", &a, &b) == 2) {
        robota_tool_call_complete(g_rt, call_id, std::to_string(a + b).c_str(), 0, nullptr);
    } else {
        robota_tool_call_complete(g_rt, call_id, "\"arguments are not {a,b}\"", 1, nullptr);
    }
}

void on_event(void *, robota_session *, uint32_t kind, uint64_t, const char *p, size_t n) {
    if (kind == ROBOTA_EVENT_TEXT_DELTA) g_text.append(p, n);
}

int fail(const char *what, robota_error *e) {
    std::fprintf(stderr, "%s: %s\n", what, e ? robota_error_message(e) : "failed");
    robota_error_free(e);
    return 1;
}

}  // namespace

int main() {
    const char *base_url = std::getenv("ROBOTA_BASE_URL");
    if (!base_url) return fail("ROBOTA_BASE_URL is not set", nullptr);
    std::string config = std::string("{\"v\":1,\"providers\":{\"fake\":{\"kind\":\"openai-compatible\",") +
                         "\"base_url\":\"" + base_url + "\",\"api_key\":\"test\"}}}";
    robota_error *e = nullptr;
    if (robota_runtime_new(config.c_str(), &g_rt, &e) != ROBOTA_OK) return fail("runtime", e);
    std::unique_ptr<robota_runtime, Free> rt(g_rt);
    const char *tool =
        R"({"name":"add","description":"Adds two integers","read_only":true,"input_schema":)"
        R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}})";
    if (robota_runtime_register_tool(g_rt, tool, add_tool, nullptr, nullptr, &e) != ROBOTA_OK) return fail("tool", e);
    robota_session *raw = nullptr;
    if (robota_session_new(g_rt, R"({"v":1,"provider":"fake","model":"fake-model"})", on_event, nullptr, nullptr,
                           &raw, &e) != ROBOTA_OK)
        return fail("session", e);
    std::unique_ptr<robota_session, Free> session(raw);
    uint64_t turn = 0;
    if (robota_session_submit(raw, R"({"text":"What is 2 + 3?"})", &turn, &e) != ROBOTA_OK) return fail("submit", e);
    if (robota_session_wait(raw, turn, 60000, &e) != ROBOTA_OK) return fail("turn", e);
    std::printf("text %s\n", g_text.c_str());
    return 0;
}
