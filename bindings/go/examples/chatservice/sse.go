package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	robota "github.com/robota-ai/robota-native/bindings/go"
)

// eventWriter writes Server-Sent Events, each flushed at once.
type eventWriter struct {
	w http.ResponseWriter
	f http.Flusher
}

func newEventWriter(w http.ResponseWriter) (*eventWriter, error) {
	f, ok := w.(http.Flusher)
	if !ok {
		return nil, errors.New("the HTTP server cannot stream (no http.Flusher)")
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: pass events through unbuffered
	w.WriteHeader(http.StatusOK)
	f.Flush()
	return &eventWriter{w: w, f: f}, nil
}

// send writes one event: its name and its data as one line of JSON.
func (e *eventWriter) send(name string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"code": "INTERNAL", "message": err.Error()})
		name = "error"
	}
	fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", name, b)
	e.f.Flush()
}

// streamTurn forwards a turn's events: text deltas, tool starts and ends, then one final
// done (the turn's result) or error (its failure; code CONFLICT when another node saved the
// session first).
func streamTurn(ev *eventWriter, st *robota.TurnStream, sessionID string) {
	for st.Next() {
		switch e := st.Event().(type) {
		case robota.TextDelta:
			ev.send("text", map[string]string{"text": e.Text})
		case robota.ToolStart:
			var args any // null when the call had none
			if len(e.Arguments) > 0 {
				args = e.Arguments
			}
			ev.send("tool_start", map[string]any{"tool_call_id": e.ToolCallID, "tool_name": e.ToolName, "arguments": args})
		case robota.ToolEnd:
			ev.send("tool_end", map[string]any{"tool_call_id": e.ToolCallID, "tool_name": e.ToolName, "result": e.Result, "output": e.Output})
		}
	}
	if err := st.Err(); err != nil {
		ev.send("error", map[string]string{"code": errorCode(err), "message": err.Error(), "session_id": sessionID})
		return
	}
	r := st.Result()
	ev.send("done", map[string]any{"session_id": sessionID, "turn_id": r.TurnID, "stop_reason": r.StopReason,
		"response": r.Response, "usage": r.Usage})
}
