package robota

// Int returns a pointer to v, for optional fields such as ProviderConfig.MaxRetries
// (robota.Int(0) says "no retries", where nil keeps the default).
func Int(v int) *int { return &v }

// Float returns a pointer to v, for optional fields such as SessionConfig.Temperature.
func Float(v float64) *float64 { return &v }

// String returns a pointer to v, for optional string fields.
func String(v string) *string { return &v }

// Bool returns a pointer to v, for optional boolean fields.
func Bool(v bool) *bool { return &v }
