package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	robota "github.com/robota-ai/robota-native/bindings/go"
)

// providerName is the provider profile every node defines the same way, so a session saved
// by one node resumes on another.
const providerName = "model"

// validID is what a session id in a URL may be.
var validID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`)

// service answers the HTTP API. It holds the runtime (whose store is PostgreSQL) and the
// settings of new sessions; never a session between requests.
type service struct {
	rt    *robota.Runtime
	model string
	cwd   string
}

func newService(rt *robota.Runtime, model, cwd string) http.Handler {
	return &service{rt: rt, model: model, cwd: cwd}
}

func (sv *service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := cutPrefix(r.URL.Path, "/sessions")
	switch {
	case !ok || (rest != "" && rest[0] != '/'):
		httpError(w, http.StatusNotFound, "NOT_FOUND", "no such route: "+r.URL.Path)
	case rest == "" || rest == "/":
		if r.Method != http.MethodGet {
			methodNotAllowed(w, "GET")
			return
		}
		sv.list(w, r)
	default:
		id, tail, _ := strings.Cut(strings.TrimPrefix(rest, "/"), "/")
		if !validID.MatchString(id) {
			httpError(w, http.StatusBadRequest, "INVALID_SESSION_ID",
				"session id "+strconv.Quote(id)+" must be 1 to 128 characters of A-Z a-z 0-9 . _ -")
			return
		}
		switch {
		case tail == "messages" && r.Method == http.MethodPost:
			sv.turn(w, r, id)
		case tail == "messages":
			methodNotAllowed(w, "POST")
		case tail == "" && r.Method == http.MethodDelete:
			sv.delete(w, id)
		case tail == "":
			methodNotAllowed(w, "DELETE")
		default:
			httpError(w, http.StatusNotFound, "NOT_FOUND", "no such route: "+r.URL.Path)
		}
	}
}

// turn resumes session id from the store (or creates it), streams one turn as Server-Sent
// Events and frees the session. The turn's save goes to the store before its done event.
func (sv *service) turn(w http.ResponseWriter, r *http.Request, id string) {
	var body struct {
		Prompt string `json:"prompt"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		httpError(w, http.StatusBadRequest, "INVALID_BODY", `the body must be {"prompt":"…"}: `+err.Error())
		return
	}
	if strings.TrimSpace(body.Prompt) == "" {
		httpError(w, http.StatusBadRequest, "INVALID_BODY", `"prompt" must be a non-empty string`)
		return
	}
	s, err := sv.open(id)
	if err != nil {
		httpError(w, http.StatusBadGateway, errorCode(err), "cannot open session "+strconv.Quote(id)+": "+err.Error())
		return
	}
	defer s.Close()
	ev, err := newEventWriter(w)
	if err != nil {
		httpError(w, http.StatusInternalServerError, "INTERNAL", err.Error())
		return
	}
	// The request's context: a client that goes away aborts its turn.
	streamTurn(ev, s.Stream(r.Context(), body.Prompt), id)
}

// open resumes the stored session id, or creates it (persisted through the store) when the
// store has none.
func (sv *service) open(id string) (*robota.Session, error) {
	deny := func(context.Context, robota.PermissionRequest) (robota.PermissionDecision, error) {
		return robota.Deny, nil // no one to ask: tools that change things are refused
	}
	s, err := sv.rt.Resume(robota.ResumeConfig{SessionID: id, Overrides: robota.Overrides{OnPermission: deny}})
	if !errors.Is(err, robota.ErrNotFound) {
		return s, err
	}
	return sv.rt.NewSession(robota.SessionConfig{
		Provider: providerName, Model: sv.model, Cwd: sv.cwd,
		SessionID: id, Persist: true,
		Tools:        []string{"Read", "Glob", "Grep"},
		OnPermission: deny,
	})
}

func (sv *service) list(w http.ResponseWriter, r *http.Request) {
	q := robota.ListQuery{Cwd: r.URL.Query().Get("cwd")}
	if l := r.URL.Query().Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			httpError(w, http.StatusBadRequest, "INVALID_LIMIT", "limit must be a positive integer, got "+strconv.Quote(l))
			return
		}
		q.Limit = n
	}
	list, err := sv.rt.ListSessions(q)
	if err != nil {
		httpError(w, http.StatusBadGateway, errorCode(err), err.Error())
		return
	}
	if list.Sessions == nil {
		list.Sessions = []robota.StoredSummary{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"sessions": list.Sessions})
}

func (sv *service) delete(w http.ResponseWriter, id string) {
	err := sv.rt.DeleteSession(id)
	switch {
	case errors.Is(err, robota.ErrNotFound):
		httpError(w, http.StatusNotFound, "NOT_FOUND", "no stored session "+strconv.Quote(id))
	case err != nil:
		httpError(w, http.StatusBadGateway, errorCode(err), err.Error())
	default:
		writeJSON(w, http.StatusOK, map[string]any{"deleted": id})
	}
}

// errorCode is the taxonomy code of a library error ("CONFLICT", "PROVIDER_ERROR", …), else
// the name of its status.
func errorCode(err error) string {
	var e *robota.Error
	switch {
	case errors.As(err, &e) && e.Code != "":
		return e.Code
	case errors.Is(err, robota.ErrConflict):
		return "CONFLICT"
	case errors.As(err, &e):
		return strings.ToUpper(strings.ReplaceAll(e.Status.String(), " ", "_"))
	default:
		return "INTERNAL"
	}
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	httpError(w, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "this route answers "+allow)
}

func httpError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, map[string]any{"error": map[string]string{"code": code, "message": message}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// cutPrefix is strings.CutPrefix (Go 1.20) for Go 1.19.
func cutPrefix(s, prefix string) (string, bool) {
	if !strings.HasPrefix(s, prefix) {
		return s, false
	}
	return s[len(prefix):], true
}
