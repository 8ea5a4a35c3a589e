package robota

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// flatKinds has a field of every kind the fast path reads.
type flatKinds struct {
	S   string  `json:"s"`
	B   bool    `json:"b"`
	I   int     `json:"i"`
	I8  int8    `json:"i8,omitempty"`
	U16 uint16  `json:"u16"`
	F32 float32 `json:"f32"`
	F   float64 `json:"f"`
	Raw string  // no tag: its Go name
	Not string  `json:"-"`
	off int
}

// decodeFlatArgs decodes exactly what encoding/json (unknown fields refused) decodes, or
// declines: every document either gives the same struct both ways or is left to decodeArgs's
// encoding/json path.
func TestDecodeFlatArgsMatchesEncodingJSON(t *testing.T) {
	schema := map[string]any{"type": "object", "required": []string{"s", "i"}}
	fast := []string{
		`{"s":"x","i":1}`,
		` { "s" : "caf\u00e9 \"q\"" , "i" : -7 , "b" : true , "u16" : 65535 , "f32" : 1.5 , "f" : -2e-3 , "Raw" : "r" } `,
		`{"i":0,"s":"","b":false,"i8":-128,"f":1E3}`,
		`{"s":"a","i":1,"s":"b"}`, // the last one wins, as in encoding/json
		`{"s":"☃","i":9223372036854775807}`,
	}
	declined := []string{
		`{"i":1}`,                    // "s" is required
		`{"s":"x","i":1,"zz":2}`,     // unknown
		`{"S":"x","i":1}`,            // matches only ignoring case
		`{"s":null,"i":1}`,           // null keeps the field: encoding/json's call
		`{"s":"x","i":1.0}`,          // a fraction for an int
		`{"s":"x","i":1e2}`,          // an exponent for an int
		`{"s":"x","i":1,"i8":128}`,   // out of range
		`{"s":"x","i":1,"u16":-1}`,   // negative for a uint
		`{"s":"x","i":1,"f32":1e39}`, // out of float32's range
		`{"s":1,"i":1}`,              // a number for a string
		`{"s":"x","i":1,"Not":"n"}`,  // a field json ignores
		`{"s":"x","i":1,"off":1}`,    // an unexported field
		`{"s":"x","i":1} x`,          // trailing data
		`{"s":"x","i":1,}`,           // malformed
		"{\"s\":\"\xff\",\"i\":1}",   // invalid UTF-8 (encoding/json replaces it)
		`[1]`,
	}
	for _, doc := range fast {
		var got, want flatKinds
		if !decodeFlatArgs([]byte(doc), &got, schema) {
			t.Fatalf("%s: declined", doc)
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(doc)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("%s: encoding/json: %v", doc, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: fast %+v, encoding/json %+v", doc, got, want)
		}
	}
	for _, doc := range declined {
		var got flatKinds
		if decodeFlatArgs([]byte(doc), &got, schema) {
			t.Fatalf("%s: decoded %+v, want it left to encoding/json", doc, got)
		}
	}

	// Types with other fields have no plan.
	type nested struct{ P struct{ X int } }
	type withSlice struct{ L []int }
	type withString struct {
		N int `json:"n,string"`
	}
	for _, v := range []any{&nested{}, &withSlice{}, &withString{}, &struct{ flatKinds }{}} {
		if decodeFlatArgs([]byte(`{}`), v, nil) {
			t.Fatalf("%T decoded by the fast path", v)
		}
	}
}

// A typed tool's arguments cost one allocation or none when they take the fast path.
func TestDecodeFlatArgsAllocations(t *testing.T) {
	schema, err := SchemaOf[addArgs]()
	if err != nil {
		t.Fatal(err)
	}
	raw := []byte(`{"a":2,"b":3}`)
	var a addArgs
	if n := testing.AllocsPerRun(100, func() {
		if err := decodeArgs(raw, &a, schema); err != nil {
			t.Fatal(err)
		}
	}); n > 1 {
		t.Fatalf("%v allocations per decode", n)
	}
	if a.A != 2 || a.B != 3 {
		t.Fatalf("decoded %+v", a)
	}
}

// resultJSON encodes what encoding/json encodes, integers and bools included.
func TestResultJSONMatchesEncodingJSON(t *testing.T) {
	for _, v := range []any{0, -7, 1 << 40, int64(-1 << 62), int32(-5), uint64(1<<64 - 1), true, false,
		"a<b", 1.5, nil, map[string]int{"x": 1}, json.RawMessage(` {"y": 2} `)} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := resultJSON(v); err != nil || got != string(want) {
			t.Fatalf("resultJSON(%#v) = %q, %v; encoding/json: %s", v, got, err, want)
		}
	}
	if _, err := resultJSON(make(chan int)); err == nil {
		t.Fatal("a channel was encoded")
	}
}
