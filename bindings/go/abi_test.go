package robota

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every function of include/robota.h is called by the binding: a function added to the
// header fails this test until it is wrapped (ABI.md: bindings wrap every function).
func TestEveryHeaderFunctionIsWrapped(t *testing.T) {
	header, err := os.ReadFile(filepath.Join("..", "..", "include", "robota.h"))
	if err != nil {
		t.Fatal(err)
	}
	decls := regexp.MustCompile(`(?m)^[a-z][\w \*]*?\b(robota_\w+)\(`).FindAllStringSubmatch(string(header), -1)
	if len(decls) < 28 { // the v1.0 header has 28
		t.Fatalf("found only %d functions in the header", len(decls))
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	// Functions whose whole behaviour a newer one has, which the binding calls instead.
	superseded := map[string]string{"robota_session_run": "robota_session_run_result"}
	for _, d := range decls {
		name := d[1]
		if by, ok := superseded[name]; ok {
			name = by
		}
		// Called from Go, or by a C helper of a cgo preamble ("r.status = robota_…(").
		inPreamble := regexp.MustCompile(`(?m)^//\s.*=\s*` + name + `\(`)
		if !strings.Contains(src.String(), "C."+name+"(") && !inPreamble.MatchString(src.String()) {
			t.Errorf("%s is not wrapped by the Go binding", d[1])
		}
	}
}
