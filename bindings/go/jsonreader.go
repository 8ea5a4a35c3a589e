package robota

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// jsonReader reads the library's event JSON without encoding/json's reflection: the typed
// decoders of fastevents.go pull each member's value with the method its field needs. It
// checks the syntax as it goes, and anything it does not read exactly as encoding/json would
// (a malformed document, a value of another type, a key that matches a field only ignoring
// case) sets failed: the caller then decodes with encoding/json instead. Strings without
// escapes share the document's bytes, which its reader must therefore never change.
type jsonReader struct {
	b      []byte
	i      int
	failed bool
	arena  *payloadArena // when set, unescaped strings are kept in its blocks
}

// appendZero is s with one more zero element; it grows s to at least 4 elements at once, the
// usual count of a turn's tool calls (append would grow it 1, 2, 4: three allocations).
func appendZero[T any](s []T) []T {
	if len(s) == cap(s) {
		grown := make([]T, len(s), 2*cap(s)+4)
		copy(grown, s)
		s = grown
	}
	var zero T
	return append(s, zero)
}

// unescapeBufs are the buffers escaped unescapes into before the result is kept.
var unescapeBufs = sync.Pool{New: func() any { return new([]byte) }}

func (r *jsonReader) fail() { r.failed = true }

func (r *jsonReader) ws() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// peek is the next byte after white space (0 at the end).
func (r *jsonReader) peek() byte {
	r.ws()
	if r.i < len(r.b) {
		return r.b[r.i]
	}
	return 0
}

func (r *jsonReader) expect(c byte) {
	if r.peek() != c {
		r.fail()
		return
	}
	r.i++
}

// end checks that nothing but white space follows the document.
func (r *jsonReader) end() {
	if r.peek() != 0 || r.i != len(r.b) {
		r.fail()
	}
}

// object reads an object, calling member for each key with the reader at its value; member
// must read that value (or skip it). names are the JSON names of the target's fields: a key
// member does not take must not match one of them ignoring case.
func (r *jsonReader) object(member func(key string) bool, names []string) {
	r.expect('{')
	if r.failed {
		return
	}
	if r.peek() == '}' {
		r.i++
		return
	}
	for !r.failed {
		key := r.str()
		r.expect(':')
		if r.failed {
			return
		}
		if !member(key) {
			for _, n := range names {
				if strings.EqualFold(n, key) {
					r.fail()
				}
			}
			r.skip()
		}
		switch r.peek() {
		case ',':
			r.i++
		case '}':
			r.i++
			return
		default:
			r.fail()
		}
	}
}

// array reads an array, calling item with the reader at each element; it reports whether
// the value was an array (false: null, left as it is).
func (r *jsonReader) array(item func()) bool {
	if r.null() {
		return false
	}
	r.expect('[')
	if r.failed {
		return true
	}
	if r.peek() == ']' {
		r.i++
		return true
	}
	for !r.failed {
		item()
		switch r.peek() {
		case ',':
			r.i++
		case ']':
			r.i++
			return true
		default:
			r.fail()
		}
	}
	return true
}

// null reads a null literal when one comes next.
func (r *jsonReader) null() bool {
	if r.peek() == 'n' && r.literal("null") {
		return true
	}
	return false
}

func (r *jsonReader) literal(word string) bool {
	if len(r.b)-r.i < len(word) || string(r.b[r.i:r.i+len(word)]) != word {
		r.fail()
		return false
	}
	r.i += len(word)
	return true
}

// str reads a string (null is not one: encoding/json would leave the field as it is).
func (r *jsonReader) str() string {
	if r.peek() != '"' {
		r.fail()
		return ""
	}
	r.i++
	start := r.i
	for r.i < len(r.b) {
		c := r.b[r.i]
		switch {
		case c == '"':
			s := r.b[start:r.i]
			r.i++
			return bytesString(s)
		case c == '\\':
			return r.escaped(start)
		case c < 0x20:
			r.fail()
			return ""
		case c >= utf8.RuneSelf:
			ch, size := utf8.DecodeRune(r.b[r.i:])
			if ch == utf8.RuneError && size == 1 {
				r.fail() // encoding/json replaces invalid UTF-8: let it
				return ""
			}
			r.i += size
		default:
			r.i++
		}
	}
	r.fail()
	return ""
}

// escaped finishes a string that has escapes, from its first byte at start.
func (r *jsonReader) escaped(start int) string {
	buf := unescapeBufs.Get().(*[]byte)
	defer unescapeBufs.Put(buf)
	s, out := r.unescape(start, (*buf)[:0])
	if cap(out) <= 64<<10 { // a rare huge string's buffer is not kept
		*buf = out[:0]
	}
	return s
}

// unescape is escaped's work, in out: the string, kept in the arena or an allocation of its
// own, and out (grown) to reuse.
func (r *jsonReader) unescape(start int, out []byte) (string, []byte) {
	out = append(out, r.b[start:r.i]...)
	for r.i < len(r.b) {
		c := r.b[r.i]
		switch {
		case c == '"':
			r.i++
			if r.arena != nil {
				return bytesString(r.arena.keep(out)), out
			}
			return string(out), out
		case c < 0x20:
			r.fail()
			return "", out
		case c == '\\':
			if r.i+1 >= len(r.b) {
				r.fail()
				return "", out
			}
			r.i += 2
			switch e := r.b[r.i-1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				ch := r.hex4()
				if utf16.IsSurrogate(ch) {
					lo := rune(-1)
					if r.i+1 < len(r.b) && r.b[r.i] == '\\' && r.b[r.i+1] == 'u' {
						r.i += 2
						lo = r.hex4()
					}
					if ch = utf16.DecodeRune(ch, lo); ch == utf8.RuneError {
						r.fail() // an unpaired surrogate: encoding/json's rules apply
					}
				}
				out = utf8.AppendRune(out, ch)
			default:
				r.fail()
			}
			if r.failed {
				return "", out
			}
		case c >= utf8.RuneSelf:
			ch, size := utf8.DecodeRune(r.b[r.i:])
			if ch == utf8.RuneError && size == 1 {
				r.fail()
				return "", out
			}
			out = append(out, r.b[r.i:r.i+size]...)
			r.i += size
		default:
			out = append(out, c)
			r.i++
		}
	}
	r.fail()
	return "", out
}

func (r *jsonReader) hex4() rune {
	if len(r.b)-r.i < 4 {
		r.fail()
		return 0
	}
	var v rune
	for _, c := range r.b[r.i : r.i+4] {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			v = v<<4 | rune(c-'A'+10)
		default:
			r.fail()
			return 0
		}
	}
	r.i += 4
	return v
}

// number reads a number's text (JSON grammar).
func (r *jsonReader) number() []byte {
	r.ws()
	start := r.i
	if r.i < len(r.b) && r.b[r.i] == '-' {
		r.i++
	}
	switch {
	case r.i < len(r.b) && r.b[r.i] == '0':
		r.i++
	case r.digits() == 0:
		r.fail()
		return nil
	}
	if r.i < len(r.b) && r.b[r.i] == '.' {
		r.i++
		if r.digits() == 0 {
			r.fail()
			return nil
		}
	}
	if r.i < len(r.b) && (r.b[r.i] == 'e' || r.b[r.i] == 'E') {
		r.i++
		if r.i < len(r.b) && (r.b[r.i] == '+' || r.b[r.i] == '-') {
			r.i++
		}
		if r.digits() == 0 {
			r.fail()
			return nil
		}
	}
	return r.b[start:r.i]
}

func (r *jsonReader) digits() int {
	start := r.i
	for r.i < len(r.b) && '0' <= r.b[r.i] && r.b[r.i] <= '9' {
		r.i++
	}
	return r.i - start
}

// uint reads a number into a uint64 field (encoding/json refuses fractions and signs).
func (r *jsonReader) uint() uint64 {
	n := r.number()
	if r.failed {
		return 0
	}
	v, err := strconv.ParseUint(bytesString(n), 10, 64)
	if err != nil {
		r.fail()
	}
	return v
}

// float reads a number into a float64 field.
func (r *jsonReader) float() float64 {
	n := r.number()
	if r.failed {
		return 0
	}
	v, err := strconv.ParseFloat(bytesString(n), 64)
	if err != nil {
		r.fail()
	}
	return v
}

// bool reads true or false.
func (r *jsonReader) bool() bool {
	switch r.peek() {
	case 't':
		return r.literal("true")
	case 'f':
		r.literal("false")
	default:
		r.fail()
	}
	return false
}

// raw reads any value and returns its text (a json.RawMessage field's; null is left to
// encoding/json). It shares the document's bytes, but none that a string shares, and has no
// spare capacity: changing or appending to it changes no other value.
func (r *jsonReader) raw() []byte {
	if r.peek() == 'n' {
		r.fail()
		return nil
	}
	start := r.i
	r.skip()
	if r.failed {
		return nil
	}
	return r.b[start:r.i:r.i]
}

// skip reads any value, checking its syntax.
func (r *jsonReader) skip() {
	switch c := r.peek(); {
	case c == '{':
		r.object(func(string) bool { return false }, nil)
	case c == '[':
		r.array(r.skip)
	case c == '"':
		r.rawString()
	case c == 't':
		r.literal("true")
	case c == 'f':
		r.literal("false")
	case c == 'n':
		r.literal("null")
	default:
		r.number()
	}
}

// rawString skips a string (any bytes >= 0x20, well-formed escapes).
func (r *jsonReader) rawString() {
	r.i++
	for r.i < len(r.b) {
		c := r.b[r.i]
		switch {
		case c == '"':
			r.i++
			return
		case c < 0x20:
			r.fail()
			return
		case c == '\\':
			if r.i+1 >= len(r.b) {
				r.fail()
				return
			}
			r.i += 2
			switch r.b[r.i-1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				r.hex4()
			default:
				r.fail()
			}
			if r.failed {
				return
			}
		default:
			r.i++
		}
	}
	r.fail()
}

// bytesString is b as a string without a copy; b must never change afterwards.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return *(*string)(unsafe.Pointer(&b))
}

// readMembers reads a JSON object's members as encoding/json reads it into a
// map[string]json.RawMessage; false when encoding/json must. The keys and values share doc's
// bytes: use them only while doc does not change.
func readMembers(doc []byte) (map[string]json.RawMessage, bool) {
	r := &jsonReader{b: doc}
	members := map[string]json.RawMessage{}
	r.object(func(key string) bool {
		members[key] = r.raw()
		return true
	}, nil)
	r.end()
	return members, !r.failed
}
