package robota

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// SchemaOf derives the JSON Schema of the arguments NewTool decodes into a T (a struct):
//
//   - the property names are the `json` tag names (the field name without one; "-" skips it);
//   - string, bool, signed and unsigned integers ("minimum": 0), floats, slices and arrays
//     ("items"), []byte (a base64 string), maps with string keys ("additionalProperties"),
//     nested and embedded structs, time.Time ("format": "date-time"), any and json.RawMessage
//     (no constraint);
//   - a pointer field, or one tagged `json:",omitempty"`, is optional; every other is in
//     "required";
//   - `jsonschema:"description=…,enum=a|b"` (or `desc:"…"`) gives a description and the allowed
//     values (parsed as the field's type);
//   - objects have "additionalProperties": false: unknown arguments are rejected.
//
// A channel, function or complex field, a map without string keys or a recursive type is an
// ErrInvalidConfig naming the field.
func SchemaOf[T any]() (map[string]any, error) {
	return schemaOfType(reflect.TypeOf((*T)(nil)).Elem())
}

var (
	timeType       = reflect.TypeOf(time.Time{})
	rawMessageType = reflect.TypeOf(json.RawMessage{})
	unmarshalerTyp = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
)

func schemaOfType(t reflect.Type) (map[string]any, error) {
	if t.Kind() != reflect.Struct {
		return nil, newError("NewTool", StatusInvalidConfig, "tool arguments must be a struct, not %s", t)
	}
	b := schemaBuilder{seen: map[reflect.Type]bool{}}
	return b.object(t, t.Name())
}

// schemaBuilder walks a type; seen holds the structs being walked (a recursive type is refused).
type schemaBuilder struct {
	seen map[reflect.Type]bool
}

// object is the schema of struct t; path names it in errors.
func (b schemaBuilder) object(t reflect.Type, path string) (map[string]any, error) {
	if b.seen[t] {
		return nil, newError("NewTool", StatusInvalidConfig, "%s: the recursive type %s has no finite schema", path, t)
	}
	b.seen[t] = true
	defer delete(b.seen, t)
	props := map[string]any{}
	required := []string{}
	if err := b.fields(t, path, props, &required); err != nil {
		return nil, err
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s, nil
}

// fields adds the properties of struct t (embedded structs flattened, as encoding/json does).
func (b schemaBuilder) fields(t reflect.Type, path string, props map[string]any, required *[]string) error {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Tag.Get("json") == "-" {
			continue
		}
		name, opts, hasName := jsonName(f)
		if f.Anonymous && !hasName && indirect(f.Type).Kind() == reflect.Struct {
			if err := b.fields(indirect(f.Type), path, props, required); err != nil {
				return err
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		fieldPath := path + "." + name
		s, err := b.schema(f.Type, fieldPath)
		if err != nil {
			return err
		}
		if err := applyTags(s, f, fieldPath); err != nil {
			return err
		}
		props[name] = s
		optional := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		if f.Type.Kind() != reflect.Pointer && !optional {
			*required = append(*required, name)
		}
	}
	return nil
}

// jsonName is a field's JSON name and tag options; hasName: the tag names it.
func jsonName(f reflect.StructField) (name, opts string, hasName bool) {
	tag, ok := f.Tag.Lookup("json")
	if !ok {
		return f.Name, "", false
	}
	name, opts, _ = strings.Cut(tag, ",")
	if name == "" {
		return f.Name, opts, false
	}
	return name, opts, true
}

func indirect(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}

// schema is the schema of a value of type t.
func (b schemaBuilder) schema(t reflect.Type, path string) (map[string]any, error) {
	switch {
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}, nil
	case t == rawMessageType:
		return map[string]any{}, nil
	case t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(unmarshalerTyp):
		return map[string]any{}, nil // decodes itself: no constraint the binding can state
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}, nil
	case reflect.Bool:
		return map[string]any{"type": "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return map[string]any{"type": "integer"}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return map[string]any{"type": "integer", "minimum": 0}, nil
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}, nil
	case reflect.Interface:
		return map[string]any{}, nil
	case reflect.Pointer:
		return b.schema(t.Elem(), path)
	case reflect.Struct:
		return b.object(t, path)
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return map[string]any{"type": "string", "contentEncoding": "base64"}, nil
		}
		items, err := b.schema(t.Elem(), path+"[]")
		if err != nil {
			return nil, err
		}
		s := map[string]any{"type": "array", "items": items}
		if t.Kind() == reflect.Array {
			s["minItems"], s["maxItems"] = t.Len(), t.Len()
		}
		return s, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, newError("NewTool", StatusInvalidConfig, "%s: a map needs string keys to be a JSON object, not %s", path, t.Key())
		}
		values, err := b.schema(t.Elem(), path+"[]")
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "object", "additionalProperties": values}, nil
	}
	return nil, newError("NewTool", StatusInvalidConfig, "%s: a %s cannot be a tool argument (no JSON form)", path, t)
}

// applyTags adds the description and enum of a field's `jsonschema` (or `desc`) tag.
func applyTags(s map[string]any, f reflect.StructField, path string) error {
	if d, ok := f.Tag.Lookup("desc"); ok {
		s["description"] = d
	}
	tag, ok := f.Tag.Lookup("jsonschema")
	if !ok {
		return nil
	}
	for key, value := range parseSchemaTag(tag) {
		switch key {
		case "description":
			s["description"] = value
		case "enum":
			values, err := enumValues(indirect(f.Type), strings.Split(value, "|"))
			if err != nil {
				return newError("NewTool", StatusInvalidConfig, "%s: enum: %v", path, err)
			}
			s["enum"] = values
		default:
			return newError("NewTool", StatusInvalidConfig, "%s: unknown jsonschema tag key %q (description, enum)", path, key)
		}
	}
	return nil
}

// parseSchemaTag splits "description=a, b,enum=x|y": a part that does not start with a known
// key continues the previous value (descriptions may contain commas).
func parseSchemaTag(tag string) map[string]string {
	out := map[string]string{}
	last := ""
	for _, part := range strings.Split(tag, ",") {
		key, value, ok := strings.Cut(part, "=")
		if ok && (key == "description" || key == "enum") || last == "" {
			out[key], last = value, key
			continue
		}
		out[last] += "," + part
	}
	return out
}

// enumValues parses the enum values as the field's type.
func enumValues(t reflect.Type, raw []string) ([]any, error) {
	out := make([]any, 0, len(raw))
	for _, r := range raw {
		var v any
		var err error
		switch t.Kind() {
		case reflect.String:
			v = r
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			v, err = strconv.ParseInt(r, 10, 64)
		case reflect.Float32, reflect.Float64:
			v, err = strconv.ParseFloat(r, 64)
		default:
			return nil, fmt.Errorf("only string and number fields take an enum, not %s", t)
		}
		if err != nil {
			return nil, fmt.Errorf("%q is not a %s", r, t)
		}
		out = append(out, v)
	}
	return out, nil
}
