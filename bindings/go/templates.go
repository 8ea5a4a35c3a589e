package robota

// #include <stdlib.h>
// #include "robota.h"
import "C"

import (
	"encoding/json"
	"unsafe"
)

// Template is a team template: assignTask (sessions with SessionConfig.Team) runs a child
// session with its system message, provider and model. The library ships "general" and
// "task_coordinator"; Runtime.RegisterTemplate adds more.
type Template struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Provider names a provider profile of the runtime config, or a provider kind ("openai",
	// "anthropic", …: the first profile of that kind).
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// Temperature of the child's model calls, 0 to 2 (nil = the provider's default).
	Temperature   *float64 `json:"temperature,omitempty"`
	SystemMessage string   `json:"systemMessage"`
}

// RegisterTemplate adds a team template to the runtime (existing sessions see it too). An id
// that exists already (a built-in or an earlier registration) fails with ErrInvalidConfig
// and the registered template is kept.
func (rt *Runtime) RegisterTemplate(t Template) error {
	const op = "RegisterTemplate"
	core, err := rt.live(op)
	if err != nil {
		return err
	}
	defer core.release()
	doc, err := json.Marshal(t)
	if err != nil {
		return newError(op, encodeStatus(err), "template %q: cannot encode it: %v", t.ID, err)
	}
	cdoc := C.CString(string(doc))
	defer C.free(unsafe.Pointer(cdoc))
	var cerr *C.robota_error
	if st := C.robota_runtime_register_template(core.ptr, cdoc, &cerr); st != C.ROBOTA_OK {
		return takeError(op, st, cerr)
	}
	return nil
}
