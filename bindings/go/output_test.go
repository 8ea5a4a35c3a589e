package robota

import (
	"encoding/json"
	"errors"
	"testing"
)

type cityAnswer struct {
	City string `json:"city"`
	Days int    `json:"days"`
}

const citySchema = `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city","days"],"additionalProperties":false}`

func TestRunIntoDecodesTheValidatedOutput(t *testing.T) {
	// The scripted provider has no native form: its first answer already matches (no extra
	// call); the second turn's text does not, so the forced final_answer call gives it.
	rt := newRuntime(t, scripted(
		ScriptedTurn{Text: `{"city":"Oslo","days":3}`},
		ScriptedTurn{Text: "Bergen, for two days."},
		ScriptedTurn{ToolCalls: []ScriptedToolCall{{Name: "final_answer", Arguments: map[string]any{"city": "Bergen", "days": 2}}}},
	))
	s := newSession(t, rt, SessionConfig{OutputSchema: json.RawMessage(citySchema)})
	var got cityAnswer
	r, err := s.RunInto(testCtx(t), Input{Text: "Where and how long?"}, &got)
	if err != nil {
		t.Fatal(err)
	}
	if got != (cityAnswer{"Oslo", 3}) || r.StopReason != StopComplete {
		t.Fatalf("got %+v, %q", got, r.StopReason)
	}
	if string(r.Output) != `{"city":"Oslo","days":3}` {
		t.Fatalf("output %s", r.Output)
	}
	r, err = s.RunInto(testCtx(t), Input{Text: "And next?"}, &got)
	if err != nil {
		t.Fatal(err)
	}
	if got != (cityAnswer{"Bergen", 2}) || r.Response != `{"city":"Bergen","days":2}` {
		t.Fatalf("got %+v, response %q", got, r.Response)
	}
}

func TestATurnThatNeverMatchesIsASchemaError(t *testing.T) {
	rt := newRuntime(t, scripted(
		ScriptedTurn{Text: `{"city":"Oslo"}`},
		ScriptedTurn{ToolCalls: []ScriptedToolCall{{Name: "final_answer", Arguments: map[string]any{"city": "Oslo"}}}},
		ScriptedTurn{Text: "Oslo."},
		ScriptedTurn{ToolCalls: []ScriptedToolCall{{Name: "final_answer", Arguments: map[string]any{"city": 7}}}},
	))
	s := newSession(t, rt, SessionConfig{})
	var got cityAnswer
	r, err := s.RunInto(testCtx(t), Input{Text: "Where?", OutputSchema: json.RawMessage(citySchema)}, &got)
	var e *Error
	if !errors.As(err, &e) || e.Code != "SCHEMA_ERROR" || e.Status != StatusProvider {
		t.Fatalf("err %v", err)
	}
	if r.StopReason != StopSchemaError || r.Output != nil {
		t.Fatalf("result %+v", r)
	}
	if err := r.DecodeOutput(&got); !errors.Is(err, ErrNoOutput) {
		t.Fatalf("DecodeOutput: %v", err)
	}
}

func TestABadOutputSchemaFailsTheSubmit(t *testing.T) {
	rt := newRuntime(t, scripted())
	s := newSession(t, rt, SessionConfig{})
	_, err := s.SubmitInput(testCtx(t), Input{Text: "x", OutputSchema: json.RawMessage(`"json"`)})
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusInvalidConfig {
		t.Fatalf("err %v", err)
	}
}
