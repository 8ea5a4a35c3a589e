/* Runs every C ABI test (or the ones named on the command line). Exit 0 = all passed. */
#include "harness.h"

#include <signal.h>

void test_version(void);
void test_streaming_thread(void);
void test_commands(void);
void test_queue_and_abort_mid_stream(void);
void test_free_inside_callback(void);
void test_host_tool_sync(void);
void test_host_tool_async(void);
void test_tool_call_event_and_abort_mid_tool(void);
void test_permissions_allow_deny(void);
void test_hook_blocks(void);
void test_command_hook_blocks_tool(void);
void test_deny_rule_normalized_path(void);
void test_permission_remember(void);
void test_permission_request_timeout(void);
void test_prompt_blocked_by_command_hook(void);
void test_pump_mode(void);
void test_pull_mode(void);
void test_save_resume_fork(void);
void test_misuse(void);
void test_log_callback(void);
void test_http_streaming_and_tool(void);
void test_http_abort_mid_stream(void);
void test_quickstart_thread(void);
void test_quickstart_inline(void);
void test_quickstart_pump(void);
void test_quickstart_pull(void);
void test_quickstart_run_thread(void);
void test_quickstart_run_inline(void);
void test_free_session_after_runtime_is_prompt(void);
void test_store_list_delete_resume(void);
void test_store_port(void);
void test_contained_secrets_never_reach_children(void);
void test_contained_sandbox_unavailable(void);
int contained_child_without_landlock(void);
void test_compact_command(void);
void test_query_every_delivery_mode(void);
void test_query_null_callback_bad_input_and_reentry(void);
void test_host_io_virtual_fs(void);
void test_host_io_pull_async_and_abort(void);
void test_host_io_wrong_shape_pump(void);
void test_host_io_thread_answer_later_and_abort(void);
void test_budget_model_calls(void);
void test_budget_tool_calls(void);
void test_budget_tokens(void);
void test_budget_wall_time(void);
void test_budget_bad_config(void);
void test_host_commands(void);
void test_subagent_events_every_delivery_mode(void);
void test_budget_cost(void);
void test_budget_subagent(void);
void test_record_replay_thread_and_pull(void);
void test_replay_refusals(void);
void test_mcp_stdio_server(void);
void test_team_tools_and_register_template(void);
void test_prompt_hooks_allow_block_and_garbage(void);
void test_concurrency_stress(void);
void test_abi12_request_cancelled_tool_call(void);
void test_abi12_abort_queued_turn_and_results(void);
void test_abi12_run_result_message_order_and_wait_zero(void);
void test_abi12_inject_message_and_clear(void);
void test_host_provider_two_tool_rounds(void);
void test_host_provider_abort_mid_stream(void);
void test_host_provider_session_freed_mid_call(void);
void test_host_provider_timeout(void);
void test_host_provider_bad_pushes(void);
void test_host_provider_error_classes(void);
void test_host_provider_refused_registrations(void);

static const struct {
    const char *name;
    void (*fn)(void);
} TESTS[] = {
    {"store_list_delete_resume", test_store_list_delete_resume},
    {"store_port", test_store_port},
    {"contained_secrets_never_reach_children", test_contained_secrets_never_reach_children},
    {"contained_sandbox_unavailable", test_contained_sandbox_unavailable},
    {"subagent_events_every_delivery_mode", test_subagent_events_every_delivery_mode},
    {"compact_command", test_compact_command},
    {"host_commands", test_host_commands},
    {"version", test_version},
    {"mcp_stdio_server", test_mcp_stdio_server},
    {"streaming_thread", test_streaming_thread},
    {"commands", test_commands},
    {"queue_and_abort_mid_stream", test_queue_and_abort_mid_stream},
    {"free_inside_callback", test_free_inside_callback},
    {"host_tool_sync", test_host_tool_sync},
    {"host_tool_async", test_host_tool_async},
    {"tool_call_event_and_abort_mid_tool", test_tool_call_event_and_abort_mid_tool},
    {"permissions_allow_deny", test_permissions_allow_deny},
    {"hook_blocks", test_hook_blocks},
    {"command_hook_blocks_tool", test_command_hook_blocks_tool},
    {"deny_rule_normalized_path", test_deny_rule_normalized_path},
    {"permission_remember", test_permission_remember},
    {"permission_request_timeout", test_permission_request_timeout},
    {"prompt_blocked_by_command_hook", test_prompt_blocked_by_command_hook},
    {"pump_mode", test_pump_mode},
    {"pull_mode", test_pull_mode},
    {"save_resume_fork", test_save_resume_fork},
    {"misuse", test_misuse},
    {"log_callback", test_log_callback},
    {"http_streaming_and_tool", test_http_streaming_and_tool},
    {"http_abort_mid_stream", test_http_abort_mid_stream},
    {"quickstart_thread", test_quickstart_thread},
    {"quickstart_inline", test_quickstart_inline},
    {"quickstart_pump", test_quickstart_pump},
    {"quickstart_pull", test_quickstart_pull},
    {"quickstart_run_thread", test_quickstart_run_thread},
    {"quickstart_run_inline", test_quickstart_run_inline},
    {"free_session_after_runtime_is_prompt", test_free_session_after_runtime_is_prompt},
    {"query_every_delivery_mode", test_query_every_delivery_mode},
    {"query_null_callback_bad_input_and_reentry", test_query_null_callback_bad_input_and_reentry},
    {"host_io_virtual_fs", test_host_io_virtual_fs},
    {"host_io_pull_async_and_abort", test_host_io_pull_async_and_abort},
    {"host_io_wrong_shape_pump", test_host_io_wrong_shape_pump},
    {"host_io_thread_answer_later_and_abort", test_host_io_thread_answer_later_and_abort},
    {"budget_model_calls", test_budget_model_calls},
    {"budget_tool_calls", test_budget_tool_calls},
    {"budget_tokens", test_budget_tokens},
    {"budget_wall_time", test_budget_wall_time},
    {"budget_bad_config", test_budget_bad_config},
    {"budget_cost", test_budget_cost},
    {"budget_subagent", test_budget_subagent},
    {"record_replay_thread_and_pull", test_record_replay_thread_and_pull},
    {"replay_refusals", test_replay_refusals},
    {"team_tools_and_register_template", test_team_tools_and_register_template},
    {"prompt_hooks_allow_block_and_garbage", test_prompt_hooks_allow_block_and_garbage},
    {"abi12_request_cancelled_tool_call", test_abi12_request_cancelled_tool_call},
    {"abi12_abort_queued_turn_and_results", test_abi12_abort_queued_turn_and_results},
    {"abi12_run_result_message_order_and_wait_zero", test_abi12_run_result_message_order_and_wait_zero},
    {"abi12_inject_message_and_clear", test_abi12_inject_message_and_clear},
    {"host_provider_two_tool_rounds", test_host_provider_two_tool_rounds},
    {"host_provider_abort_mid_stream", test_host_provider_abort_mid_stream},
    {"host_provider_session_freed_mid_call", test_host_provider_session_freed_mid_call},
    {"host_provider_timeout", test_host_provider_timeout},
    {"host_provider_bad_pushes", test_host_provider_bad_pushes},
    {"host_provider_error_classes", test_host_provider_error_classes},
    {"host_provider_refused_registrations", test_host_provider_refused_registrations},
    {"concurrency_stress", test_concurrency_stress},
};

int main(int argc, char **argv) {
    /* SIGPIPE keeps its default disposition on purpose: a command hook that exits without
     * reading its stdin must not kill the host (the library blocks SIGPIPE on its own threads). */
    /* test_contained_sandbox_unavailable runs this program again without Landlock. */
    if (argc == 2 && strcmp(argv[1], "--contained-child") == 0) {
        int failures = contained_child_without_landlock();
        printf("%s contained_child_without_landlock\n", failures == 0 ? "ok  " : "FAIL");
        return failures == 0 ? 0 : 1;
    }
    int ran = 0;
    for (size_t i = 0; i < sizeof TESTS / sizeof TESTS[0]; i++) {
        int selected = argc < 2;
        for (int a = 1; a < argc; a++)
            if (strcmp(argv[a], TESTS[i].name) == 0) selected = 1;
        if (!selected) continue;
        int before = g_failures;
        TESTS[i].fn();
        printf("%s %s\n", g_failures == before ? "ok  " : "FAIL", TESTS[i].name);
        fflush(stdout);
        ran++;
    }
    printf("%d test(s), %d failure(s)\n", ran, g_failures);
    return g_failures == 0 && ran > 0 ? 0 : 1;
}
