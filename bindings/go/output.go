package robota

import (
	"context"
	"encoding/json"
	"errors"
)

// ErrNoOutput is returned by DecodeOutput and RunInto when the turn has no structured output
// (no output schema was given, or the turn did not complete).
var ErrNoOutput = errors.New("robota: the turn has no structured output")

// decodeOutput unmarshals raw (a turn's "output") into v.
func decodeOutput(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return ErrNoOutput
	}
	return json.Unmarshal(raw, v)
}

// RunInto runs in (whose OutputSchema, or the session's, describes the answer) and unmarshals
// the validated answer into v (a pointer). A turn that ends with StopSchemaError returns an
// *Error with Code "SCHEMA_ERROR" naming what did not match.
func (s *Session) RunInto(ctx context.Context, in Input, v any) (Result, error) {
	r, err := s.runInput(ctx, "RunInto", in)
	if err != nil {
		return r, err
	}
	return r, r.DecodeOutput(v)
}
