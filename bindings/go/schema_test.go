package robota

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// schemaKeys reads the top-level keys of docs/schema/NAME.schema.json, the JSON Schema the
// library generates from its document types.
func schemaKeys(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile("../../docs/schema/" + name + ".schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		t.Fatalf("%s.schema.json has no properties", name)
	}
	return keys
}

// fill sets every exported field of the struct v points to a non-zero value (handlers
// aside), so that each field the type has shows up in its JSON document.
func fill(v reflect.Value) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if !v.Type().Field(i).IsExported() || !f.CanSet() || f.Kind() == reflect.Func {
			continue
		}
		fillValue(f)
	}
}

func fillValue(f reflect.Value) {
	if f.Type() == reflect.TypeOf(json.RawMessage(nil)) { // a JSON document (output_schema)
		f.SetBytes([]byte(`{}`))
		return
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString("x")
	case reflect.Bool:
		f.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		f.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		f.SetUint(1)
	case reflect.Float32, reflect.Float64:
		f.SetFloat(0.5)
	case reflect.Ptr:
		f.Set(reflect.New(f.Type().Elem()))
		fillValue(f.Elem())
	case reflect.Slice:
		s := reflect.MakeSlice(f.Type(), 1, 1)
		fillValue(s.Index(0))
		f.Set(s)
	case reflect.Map:
		if f.Type().Key().Kind() != reflect.String {
			return
		}
		m := reflect.MakeMap(f.Type())
		e := reflect.New(f.Type().Elem()).Elem()
		fillValue(e)
		m.SetMapIndex(reflect.ValueOf("x").Convert(f.Type().Key()), e)
		f.Set(m)
	case reflect.Interface:
		f.Set(reflect.ValueOf(true))
	case reflect.Struct:
		fill(f)
	}
}

// documentKeys is the set of top-level keys of a JSON object.
func documentKeys(t *testing.T, doc string) map[string]bool {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("%v: %s", err, doc)
	}
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// The config types express every top-level key of the library's document schemas: a key the
// library accepts that RuntimeConfig or SessionConfig cannot set fails here, naming it.
func TestConfigTypesCoverTheDocumentSchemas(t *testing.T) {
	var rc RuntimeConfig
	fill(reflect.ValueOf(&rc).Elem())
	rc.Extra = nil
	doc, err := rc.json()
	if err != nil {
		t.Fatal(err)
	}
	have := documentKeys(t, doc)
	for _, k := range schemaKeys(t, "runtime") {
		if !have[k] {
			t.Errorf("runtime.schema.json key %q cannot be expressed by RuntimeConfig (document: %s)", k, doc)
		}
	}

	var sc SessionConfig
	fill(reflect.ValueOf(&sc).Elem())
	sc.Extra = nil
	doc, err = sc.json()
	if err != nil {
		t.Fatal(err)
	}
	have = documentKeys(t, doc)
	// `snapshot` is reserved for resuming: ResumeConfig expresses it.
	var rs ResumeConfig
	fill(reflect.ValueOf(&rs).Elem())
	rs.Snapshot = Snapshot(`{}`) // raw JSON
	b, err := json.Marshal(rs)
	if err != nil {
		t.Fatal(err)
	}
	resume := documentKeys(t, string(b))
	for _, k := range schemaKeys(t, "session") {
		if !have[k] && !(k == "snapshot" && resume[k]) {
			t.Errorf("session.schema.json key %q cannot be expressed by SessionConfig (document: %s)", k, doc)
		}
	}
	if strings.Contains(doc, `"on_permission"`) {
		t.Fatalf("handlers leaked: %s", doc)
	}
}
