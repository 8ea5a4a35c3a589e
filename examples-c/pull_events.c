/* pull_events — "pull" delivery: no callbacks at all. The host reads every event as JSON with
 * robota_session_next_event and answers tool calls and permission requests it finds there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <robota.h>

static uint64_t field(const char *json, const char *key) {
    const char *p = strstr(json, key);
    return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

int main(void) {
    robota_runtime *rt = NULL;
    robota_error *e = NULL;
    if (robota_runtime_new("{\"v\":1,\"providers\":{\"offline\":{\"kind\":\"scripted\",\"turns\":["
                           "{\"text\":\"Let me count.\",\"tool_calls\":[{\"name\":\"count_words\",\"arguments\":{\"text\":\"one two three\"}}]},"
                           "{\"deltas\":[\"There are \",\"3 words.\"]}]}}}",
                           &rt, &e) != ROBOTA_OK) {
        fprintf(stderr, "%s\n", robota_error_message(e));
        return 1;
    }
    /* NULL callback: calls arrive as tool_call events */
    robota_runtime_register_tool(rt,
        "{\"name\":\"count_words\",\"description\":\"Counts words\",\"input_schema\":{\"type\":\"object\","
        "\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}}",
        NULL, NULL, NULL, NULL);
    robota_session *s = NULL;
    if (robota_session_new(rt, "{\"v\":1,\"provider\":\"offline\",\"model\":\"scripted\",\"delivery\":\"pull\"}",
                           NULL, NULL, NULL, &s, &e) != ROBOTA_OK) {
        fprintf(stderr, "%s\n", robota_error_message(e));
        return 1;
    }
    robota_session_submit(s, "{\"text\":\"How many words in 'one two three'?\"}", NULL, NULL);
    int rc = 1;
    for (;;) {
        char *ev = NULL;
        robota_status st = robota_session_next_event(s, 30000, &ev, &e);
        if (st != ROBOTA_OK) {
            fprintf(stderr, "next_event: %s\n", robota_error_message(e));
            robota_error_free(e);
            break;
        }
        printf("%s\n", ev);
        if (strstr(ev, "\"type\":\"permission_request\"")) {
            robota_request_respond(rt, field(ev, "\"request_id\":"), "{\"decision\":\"allow\",\"remember\":true}", NULL);
        } else if (strstr(ev, "\"type\":\"tool_call\"")) {
            robota_tool_call_complete(rt, field(ev, "\"call_id\":"), "{\"words\":3}", 0, NULL);
        } else if (strstr(ev, "\"type\":\"turn_completed\"")) {
            rc = 0;
            robota_string_free(ev);
            break;
        }
        robota_string_free(ev);
    }
    robota_session_free(s);
    robota_runtime_free(rt);
    return rc;
}
