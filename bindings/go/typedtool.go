package robota

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Tool is a host tool built by NewTool: its definition (schema derived from the argument
// struct; set Def.ReadOnly or Def.TimeoutMS before adding it) and its handler. Add it with
// Runtime.AddTool.
type Tool struct {
	Def     ToolDef
	Handler ToolHandler
	err     error // the argument type has no schema
}

// NewTool makes a host tool of fn, whose argument struct A gives the tool's JSON Schema
// (SchemaOf) and receives the model's arguments, decoded with encoding/json:
//
//	type AddArgs struct {
//		A int `json:"a" jsonschema:"description=First addend"`
//		B int `json:"b"`
//	}
//	tool := robota.NewTool("add", "Adds two integers",
//		func(ctx context.Context, args AddArgs) (string, error) {
//			return strconv.Itoa(args.A + args.B), nil
//		})
//
// Arguments that do not fit A — a wrong type (19.0 for an int), an unknown name, a missing
// required one — never reach fn: the model gets the tool's failure naming the argument, and
// can correct its call. fn's result is JSON-encoded for the model (a string stays a string);
// its error is the tool's failure. A type without schema fails at Runtime.AddTool.
func NewTool[A any, R any](name, description string, fn func(ctx context.Context, args A) (R, error)) Tool {
	schema, err := SchemaOf[A]()
	def := ToolDef{Name: name, Description: description, InputSchema: schema}
	if err != nil {
		return Tool{Def: def, err: relabel(err, "AddTool")}
	}
	return Tool{Def: def, Handler: func(ctx context.Context, call ToolCall) (any, error) {
		var args A
		if err := decodeArgs(call.Arguments, &args, schema); err != nil {
			return nil, fmt.Errorf("tool %q: %w", name, err)
		}
		return fn(ctx, args)
	}}
}

// AddTool registers a tool made by NewTool for sessions created afterwards (RegisterTool).
func (rt *Runtime) AddTool(t Tool) error {
	if t.err != nil {
		return fmt.Errorf("tool %q: %w", t.Def.Name, t.err)
	}
	return rt.RegisterTool(t.Def, t.Handler)
}

// decodeArgs decodes a JSON object into v, rejecting unknown names and missing required ones
// (at any depth, as schema says) with a message naming the argument.
func decodeArgs(raw []byte, v any, schema map[string]any) error {
	if decodeFlatArgs(raw, v, schema) {
		return nil
	}
	present, ok := readMembers(raw)
	if !ok {
		if err := json.Unmarshal(raw, &present); err != nil {
			return fmt.Errorf("the arguments are not a JSON object: %v", err)
		}
	}
	if err := checkRequiredIn(raw, present, schema, ""); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			return errors.New("unexpected data after the arguments object")
		}
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return fmt.Errorf("argument %q must be %s, got %s", typeErr.Field, typeErr.Type, typeErr.Value)
	}
	if msg := err.Error(); strings.HasPrefix(msg, "json: unknown field ") {
		return fmt.Errorf("unknown argument %s", strings.TrimPrefix(msg, "json: unknown field "))
	}
	return fmt.Errorf("invalid arguments: %v", err)
}

// checkRequired reports the first required property missing in raw, a value of schema (the
// decoder reports values of the wrong type).
func checkRequired(raw json.RawMessage, schema map[string]any, path string) error {
	var obj map[string]json.RawMessage
	if _, ok := schema["properties"].(map[string]any); ok && json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	return checkRequiredIn(raw, obj, schema, path)
}

// checkRequiredIn is checkRequired where obj is raw decoded as an object (nil: it is not one),
// which a schema with properties needs.
func checkRequiredIn(raw json.RawMessage, obj map[string]json.RawMessage, schema map[string]any, path string) error {
	if props, ok := schema["properties"].(map[string]any); ok {
		if obj == nil {
			return nil
		}
		required, _ := schema["required"].([]string)
		for _, name := range required {
			if _, ok := obj[name]; !ok {
				return fmt.Errorf("missing required argument %q", path+name)
			}
		}
		// Only values whose schema can require something (objects, arrays, maps) are looked
		// into, in name order so that the first missing one reported is always the same.
		var nested []string
		for name := range obj {
			if sub, ok := props[name].(map[string]any); ok && canRequire(sub) {
				nested = append(nested, name)
			}
		}
		if len(nested) > 1 {
			sort.Strings(nested)
		}
		for _, name := range nested {
			if err := checkRequired(obj[name], props[name].(map[string]any), path+name+"."); err != nil {
				return err
			}
		}
		return nil
	}
	sub, isArray := schema["items"].(map[string]any)
	if !isArray {
		sub, _ = schema["additionalProperties"].(map[string]any)
	}
	if sub == nil {
		return nil
	}
	if isArray {
		var list []json.RawMessage
		_ = json.Unmarshal(raw, &list)
		for i, e := range list {
			if err := checkRequired(e, sub, path+strconv.Itoa(i)+"."); err != nil {
				return err
			}
		}
		return nil
	}
	var values map[string]json.RawMessage
	_ = json.Unmarshal(raw, &values)
	for _, key := range sortedKeys(values) {
		if err := checkRequired(values[key], sub, path+key+"."); err != nil {
			return err
		}
	}
	return nil
}

// canRequire reports whether checkRequired can find something missing in a value of schema.
func canRequire(schema map[string]any) bool {
	for _, key := range [...]string{"properties", "items", "additionalProperties"} {
		if _, ok := schema[key].(map[string]any); ok {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
