package robota

import (
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// flatArgs is how decodeArgs reads the arguments of a struct whose fields are all strings,
// bools and numbers without encoding/json: each JSON name's field. A struct with any other
// field (nested, a slice, a map, a pointer, an interface, an embedded struct, a ",string"
// option) has no plan and is decoded by encoding/json.
type flatArgs struct {
	fields map[string]flatField
}

type flatField struct {
	index int
	bit   uint64 // this field's bit in the set of the names seen
}

// flatPlans caches flatPlan by the struct's reflect.Type (a nil *flatArgs: not flat).
var flatPlans sync.Map

func flatPlan(t reflect.Type) *flatArgs {
	if p, ok := flatPlans.Load(t); ok {
		return p.(*flatArgs)
	}
	p := makeFlatPlan(t)
	flatPlans.Store(t, p)
	return p
}

func makeFlatPlan(t reflect.Type) *flatArgs {
	if t.NumField() > 64 {
		return nil
	}
	p := &flatArgs{fields: map[string]flatField{}}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			return nil
		}
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if strings.Contains(","+opts+",", ",string,") {
			return nil
		}
		if name == "" {
			name = f.Name
		}
		switch f.Type.Kind() {
		case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		default:
			return nil
		}
		if _, dup := p.fields[name]; dup {
			return nil // encoding/json's rules for clashing names apply
		}
		p.fields[name] = flatField{index: i, bit: 1 << uint(len(p.fields))}
	}
	return p
}

// decodeFlatArgs decodes raw into v (a pointer to a flat struct) when the document is an
// object of known names, each with a value of its field's type, and every name schema
// requires is there: then the result is what encoding/json decodes, and it reports true.
// Anything else (another shape, an unknown or case-folded name, a null, a wrong type, a
// number out of range) reports false, and decodeArgs decodes with encoding/json, which
// names the problem.
func decodeFlatArgs(raw []byte, v any, schema map[string]any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return false
	}
	st := rv.Elem()
	p := flatPlan(st.Type())
	if p == nil {
		return false
	}
	r := &jsonReader{b: raw}
	var seen uint64
	r.object(func(key string) bool {
		f, ok := p.fields[key]
		if !ok {
			r.fail()
			return true
		}
		seen |= f.bit
		setFlat(r, st.Field(f.index))
		return true
	}, nil)
	r.end()
	if r.failed {
		return false
	}
	required, _ := schema["required"].([]string)
	for _, name := range required {
		if f, ok := p.fields[name]; !ok || seen&f.bit == 0 {
			return false
		}
	}
	return true
}

// setFlat reads the value at r into field, failing r where encoding/json would not set it
// exactly so.
func setFlat(r *jsonReader, field reflect.Value) {
	switch field.Kind() {
	case reflect.String:
		field.SetString(r.str())
		return
	case reflect.Bool:
		field.SetBool(r.bool())
		return
	}
	n := r.number() // the plan holds no other kinds: the rest are numbers
	if r.failed {
		return
	}
	text := bytesString(n)
	set := false
	switch field.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, err := strconv.ParseInt(text, 10, 64)
		if set = err == nil && !field.OverflowInt(i); set {
			field.SetInt(i)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u, err := strconv.ParseUint(text, 10, 64)
		if set = err == nil && !field.OverflowUint(u); set {
			field.SetUint(u)
		}
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(text, field.Type().Bits())
		if set = err == nil && !field.OverflowFloat(f); set {
			field.SetFloat(f)
		}
	}
	if !set {
		r.fail()
	}
}
