package robota

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

type point struct {
	X float64 `json:"x"`
	Y float64 `json:"y,omitempty"`
}

type Common struct {
	Trace string `json:"trace,omitempty" desc:"A trace id"`
}

type everyKind struct {
	Common
	Name     string            `json:"name" jsonschema:"description=Who, or what, to greet"`
	Mode     string            `json:"mode" jsonschema:"enum=fast|slow,description=Speed"`
	Level    int               `json:"level" jsonschema:"enum=1|2|3"`
	Count    uint16            `json:"count"`
	Ratio    float32           `json:"ratio"`
	On       bool              `json:"on"`
	Tags     []string          `json:"tags"`
	Pair     [2]int            `json:"pair"`
	Blob     []byte            `json:"blob,omitempty"`
	Labels   map[string]int    `json:"labels"`
	Where    point             `json:"where"`
	Path     []point           `json:"path,omitempty"`
	Note     *string           `json:"note"`
	Origin   *point            `json:"origin"`
	When     time.Time         `json:"when"`
	Extra    json.RawMessage   `json:"extra,omitempty"`
	Anything any               `json:"anything,omitempty"`
	Nested   map[string][]bool `json:"nested,omitempty"`
	NoTag    int
	Skipped  string `json:"-"`
	hidden   int
}

func TestSchemaOfEveryKind(t *testing.T) {
	s, err := SchemaOf[everyKind]()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(s)
	pointSchema := `{"additionalProperties":false,"properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x"],"type":"object"}`
	want := `{"additionalProperties":false,"properties":{` +
		`"NoTag":{"type":"integer"},` +
		`"anything":{},` +
		`"blob":{"contentEncoding":"base64","type":"string"},` +
		`"count":{"minimum":0,"type":"integer"},` +
		`"extra":{},` +
		`"labels":{"additionalProperties":{"type":"integer"},"type":"object"},` +
		`"level":{"enum":[1,2,3],"type":"integer"},` +
		`"mode":{"description":"Speed","enum":["fast","slow"],"type":"string"},` +
		`"name":{"description":"Who, or what, to greet","type":"string"},` +
		`"nested":{"additionalProperties":{"items":{"type":"boolean"},"type":"array"},"type":"object"},` +
		`"note":{"type":"string"},` +
		`"on":{"type":"boolean"},` +
		`"origin":` + pointSchema + `,` +
		`"pair":{"items":{"type":"integer"},"maxItems":2,"minItems":2,"type":"array"},` +
		`"path":{"items":` + pointSchema + `,"type":"array"},` +
		`"ratio":{"type":"number"},` +
		`"tags":{"items":{"type":"string"},"type":"array"},` +
		`"trace":{"description":"A trace id","type":"string"},` +
		`"when":{"format":"date-time","type":"string"},` +
		`"where":` + pointSchema +
		`},"required":["name","mode","level","count","ratio","on","tags","pair","labels","where","when","NoTag"],"type":"object"}`
	if string(got) != want {
		t.Fatalf("schema\n got %s\nwant %s", got, want)
	}
}

type recursive struct {
	Next *recursive `json:"next"`
}

func TestSchemaOfRefusesWhatHasNoSchema(t *testing.T) {
	cases := []struct {
		name string
		err  func() error
		want string
	}{
		{"chan", func() error { _, err := SchemaOf[struct{ C chan int }](); return err }, "robota: NewTool: .C: a chan int cannot be a tool argument (no JSON form)"},
		{"func", func() error {
			_, err := SchemaOf[struct {
				F func() `json:"f"`
			}]()
			return err
		}, "robota: NewTool: .f: a func() cannot be a tool argument (no JSON form)"},
		{"map key", func() error { _, err := SchemaOf[struct{ M map[int]string }](); return err }, "robota: NewTool: .M: a map needs string keys to be a JSON object, not int"},
		{"recursive", func() error { _, err := SchemaOf[recursive](); return err }, "robota: NewTool: recursive.next: the recursive type robota.recursive has no finite schema"},
		{"not a struct", func() error { _, err := SchemaOf[int](); return err }, "robota: NewTool: tool arguments must be a struct, not int"},
		{"enum type", func() error {
			_, err := SchemaOf[struct {
				N int `json:"n" jsonschema:"enum=1|x"`
			}]()
			return err
		}, `robota: NewTool: .n: enum: "x" is not a int`},
		{"tag key", func() error {
			_, err := SchemaOf[struct {
				N int `json:"n" jsonschema:"minimum=1"`
			}]()
			return err
		}, `robota: NewTool: .n: unknown jsonschema tag key "minimum" (description, enum)`},
	}
	for _, c := range cases {
		err := c.err()
		if !errors.Is(err, ErrInvalidConfig) || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	rt := newRuntime(t, scripted())
	err := rt.AddTool(NewTool("bad", "d", func(ctx context.Context, a struct{ C chan int }) (string, error) { return "", nil }))
	var e *Error
	if !errors.As(err, &e) || e.Op != "AddTool" || err.Error() != `tool "bad": robota: AddTool: .C: a chan int cannot be a tool argument (no JSON form)` {
		t.Fatalf("AddTool: %v", err)
	}
}

type addArgs struct {
	A     int    `json:"a" desc:"First addend"`
	B     int    `json:"b"`
	Label string `json:"label,omitempty"`
}

type routeArgs struct {
	Stops []point           `json:"stops"`
	Named map[string]*point `json:"named,omitempty"`
}

func TestDecodeArgsNamesTheArgument(t *testing.T) {
	schema, err := SchemaOf[addArgs]()
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		`{"a":19.0,"b":1}`:        `argument "a" must be int, got number 19.0`,
		`{"a":1,"b":"2"}`:         `argument "b" must be int, got string`,
		`{"a":1,"b":2,"c":3}`:     `unknown argument "c"`,
		`{"a":1}`:                 `missing required argument "b"`,
		`[1,2]`:                   `the arguments are not a JSON object: json: cannot unmarshal array into Go value of type map[string]json.RawMessage`,
		`{"a":1,"b":2,"label":7}`: `argument "label" must be string, got number`,
	}
	for in, want := range cases {
		var a addArgs
		if err := decodeArgs([]byte(in), &a, schema); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
	var a addArgs
	if err := decodeArgs([]byte(`{"a":2,"b":3}`), &a, schema); err != nil || a != (addArgs{A: 2, B: 3}) {
		t.Fatalf("decoded %+v, %v", a, err)
	}
	// Nested: required properties of array items and map values, by their path.
	route, err := SchemaOf[routeArgs]()
	if err != nil {
		t.Fatal(err)
	}
	nested := map[string]string{
		`{"stops":[{"x":1},{"y":2}]}`:           `missing required argument "stops.1.x"`,
		`{"stops":[],"named":{"home":{"y":1}}}`: `missing required argument "named.home.x"`,
		`{"stops":[{"x":1,"z":0}]}`:             `unknown argument "z"`,
		`{"stops":[{"x":"1"}]}`:                 `argument "stops.x" must be float64, got string`,
	}
	for in, want := range nested {
		var r routeArgs
		if err := decodeArgs([]byte(in), &r, route); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
	var r routeArgs
	if err := decodeArgs([]byte(`{"stops":[{"x":1}],"named":{"home":null}}`), &r, route); err != nil || len(r.Stops) != 1 || r.Stops[0].X != 1 {
		t.Fatalf("decoded %+v, %v", r, err)
	}
}

// The model calls a NewTool tool twice over HTTP: a bad call gets the failure naming the
// argument, the corrected one the handler's answer.
func TestNewToolRoundTripAgainstFakeServer(t *testing.T) {
	f := startFakeServer(t)
	f.do(t, map[string]any{"cmd": "enqueue", "kind": "openai", "text": []string{"Adding."},
		"tools": [][]string{{"call_1", "add", `{"a":19.0,"b":1}`}}})
	f.do(t, map[string]any{"cmd": "enqueue", "kind": "openai", "text": []string{"Again."},
		"tools": [][]string{{"call_2", "add", `{"a":19,"b":23}`}}})
	f.do(t, map[string]any{"cmd": "enqueue", "kind": "openai", "text": []string{"It is 42."}})
	rt := httpRuntime(t, f, "openai-compatible", f.BaseURL+"/v1")
	calls := make(chan addArgs, 2)
	tool := NewTool("add", "Adds two integers", func(ctx context.Context, a addArgs) (string, error) {
		calls <- a
		return strconv.Itoa(a.A + a.B), nil
	})
	tool.Def.ReadOnly = true
	if err := rt.AddTool(tool); err != nil {
		t.Fatal(err)
	}
	s := newSession(t, rt, SessionConfig{Provider: "fake", Model: "gpt-test"})
	r, err := s.Run(testCtx(t), "add 19 and 23")
	if err != nil || r.Response != "It is 42." {
		t.Fatalf("Run: %#v, %v", r, err)
	}
	if got := <-calls; got != (addArgs{A: 19, B: 23}) || len(calls) != 0 {
		t.Fatalf("handler got %+v (and %d more)", got, len(calls))
	}
	var reqs []struct {
		Body json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(f.do(t, map[string]any{"cmd": "requests"}), &reqs); err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	schema := `"parameters":{"additionalProperties":false,"properties":{"a":{"description":"First addend","type":"integer"},"b":{"type":"integer"},"label":{"type":"string"}},"required":["a","b"],"type":"object"}`
	mustContain(t, string(reqs[0].Body), schema)
	mustContain(t, string(reqs[1].Body), `"content":"Error: tool \"add\": argument \"a\" must be int, got number 19.0"`)
	mustContain(t, string(reqs[2].Body), `{"role":"tool","tool_call_id":"call_2","content":"42"}`)
	if !strings.Contains(string(reqs[2].Body), "must be int, got number 19.0") {
		t.Fatalf("the failure is not in the history: %s", reqs[2].Body)
	}
}
