/* pump_loop — a game-loop style host: the session uses "pump" delivery, so callbacks run only
 * inside robota_session_dispatch, on this thread, once per frame (like Unity's Update()).
 * Here dispatch's timeout (up to 16 ms for the first event) stands in for the frame time. */
#include <stdio.h>
#include <string.h>

#include <robota.h>

typedef struct {
    int frame;
    int done;
    int deltas;
} game;

static void on_event(void *ud, robota_session *s, uint32_t kind, uint64_t turn, const char *p, size_t n) {
    (void)s; (void)turn;
    game *g = (game *)ud;
    if (kind == ROBOTA_EVENT_TEXT_DELTA) {
        g->deltas++;
        printf("[frame %3d] text: %.*s\n", g->frame, (int)n, p);
    } else if (kind == ROBOTA_EVENT_TURN_STARTED) {
        printf("[frame %3d] turn started\n", g->frame);
    } else if (kind == ROBOTA_EVENT_TURN_COMPLETED) {
        printf("[frame %3d] turn completed: %.*s\n", g->frame, (int)n, p);
        g->done = 1;
    }
}

int main(void) {
    robota_runtime *rt = NULL;
    robota_error *e = NULL;
    if (robota_runtime_new("{\"v\":1,\"providers\":{\"npc\":{\"kind\":\"scripted\",\"turns\":["
                           "{\"deltas\":[\"Greetings, \",\"traveller. \",\"The bridge \",\"is out.\"],\"delay_ms\":30}]}}}",
                           &rt, &e) != ROBOTA_OK) {
        fprintf(stderr, "%s\n", robota_error_message(e));
        return 1;
    }
    game g = {0, 0, 0};
    robota_session *s = NULL;
    if (robota_session_new(rt, "{\"v\":1,\"provider\":\"npc\",\"model\":\"scripted\",\"delivery\":\"pump\"}",
                           on_event, &g, NULL, &s, &e) != ROBOTA_OK) {
        fprintf(stderr, "%s\n", robota_error_message(e));
        return 1;
    }
    robota_session_submit(s, "{\"text\":\"Hello NPC\"}", NULL, NULL);
    for (g.frame = 0; !g.done && g.frame < 10000; g.frame++) {
        /* ... update the world, render ... then deliver whatever the agent produced */
        int n = robota_session_dispatch(s, 0, 16);
        if (n < 0) {
            fprintf(stderr, "dispatch: %s\n", robota_status_str(n));
            break;
        }
    }
    printf("%d text deltas over %d frames\n", g.deltas, g.frame);
    robota_session_free(s);
    robota_runtime_free(rt);
    return g.done ? 0 : 1;
}
