package robota

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// goEventKindName maps a header event name to the binding's constant: upper snake case →
// "Kind" + Pascal case (each word capitalized, the rest lower case), with Go's initialisms
// kept upper case (IO): TEXT_DELTA → KindTextDelta, HOST_IO → KindHostIO.
func goEventKindName(header string) string {
	var b strings.Builder
	b.WriteString("Kind")
	for _, w := range strings.Split(header, "_") {
		switch w {
		case "IO", "ID", "URL", "JSON", "MCP", "HTTP":
			b.WriteString(w)
		default:
			b.WriteString(w[:1] + strings.ToLower(w[1:]))
		}
	}
	return b.String()
}

// headerEventKinds is every `#define ROBOTA_EVENT_<NAME> <n>` of include/robota.h.
func headerEventKinds(t *testing.T) map[string]uint32 {
	t.Helper()
	header, err := os.ReadFile(filepath.Join("..", "..", "include", "robota.h"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]uint32{}
	for _, m := range regexp.MustCompile(`(?m)^#define ROBOTA_EVENT_([A-Z0-9_]+)\s+(\d+)\s*$`).FindAllStringSubmatch(string(header), -1) {
		n, err := strconv.ParseUint(m[2], 10, 32)
		if err != nil {
			t.Fatal(err)
		}
		kinds[m[1]] = uint32(n)
	}
	if len(kinds) < 20 { // the header has 20 kinds today
		t.Fatalf("found only %d ROBOTA_EVENT_* kinds in the header", len(kinds))
	}
	return kinds
}

// The binding's EventKind constants are exactly the header's event kinds (name and number),
// each has its "type" name and decodes to a typed event: a kind added to the header fails
// this test until the binding knows it.
func TestEventKindsMatchHeader(t *testing.T) {
	header := headerEventKinds(t)

	// The EventKind constants declared in events.go: name → the header constant it names.
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "events.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]string{}
	for _, d := range file.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "EventKind" {
				continue
			}
			for i, n := range v.Names {
				sel, ok := v.Values[i].(*ast.SelectorExpr)
				if !ok || sel.X.(*ast.Ident).Name != "C" {
					t.Errorf("%s is not defined as C.ROBOTA_EVENT_*", n.Name)
					continue
				}
				declared[n.Name] = strings.TrimPrefix(sel.Sel.Name, "ROBOTA_EVENT_")
			}
		}
	}
	for name := range header {
		goName := goEventKindName(name)
		if got, ok := declared[goName]; !ok {
			t.Errorf("ROBOTA_EVENT_%s has no constant %s in events.go", name, goName)
		} else if got != name {
			t.Errorf("%s is C.ROBOTA_EVENT_%s, want C.ROBOTA_EVENT_%s", goName, got, name)
		}
	}
	if len(declared) != len(header) {
		t.Errorf("events.go declares %d EventKind constants, the header %d kinds", len(declared), len(header))
	}

	// The numbers: the binding's kinds (by their "type" name) are exactly the header's.
	if len(kindNames) != len(header) {
		t.Errorf("the binding names %d kinds, the header defines %d", len(kindNames), len(header))
	}
	for name, n := range header {
		k := EventKind(n)
		if got := k.String(); got != strings.ToLower(name) {
			t.Errorf("EventKind(%d).String() = %q, want %q (ROBOTA_EVENT_%s)", n, got, strings.ToLower(name), name)
		}
		// Every JSON kind decodes to its typed event (text kinds are decoded from raw text).
		if k == KindTextDelta || k == KindThinkingDelta {
			continue
		}
		ev := decodeJSONEvent(k, 1, []byte(`{}`))
		if _, unknown := ev.(UnknownEvent); unknown {
			t.Errorf("ROBOTA_EVENT_%s (%d) decodes to UnknownEvent", name, n)
		} else if ev.Kind() != k {
			t.Errorf("ROBOTA_EVENT_%s decodes to %T of kind %d, want %d", name, ev, ev.Kind(), n)
		}
	}
}
