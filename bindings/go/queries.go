package robota

// #include <stdlib.h>
// #include "robota.h"
import "C"

import (
	"encoding/json"
	"unsafe"
)

// View selects what Session.Messages returns.
type View string

// Message views.
const (
	// ViewConversation is what the model sees (system prompt and tool results included).
	ViewConversation View = "conversation"
	// ViewMessages is the UI's chat entries.
	ViewMessages View = "messages"
)

// Messages is a consistent snapshot of the history (also during a turn).
func (s *Session) Messages(view View) ([]Message, error) {
	var doc struct {
		Messages []Message `json:"messages"`
	}
	err := s.messages("Messages", view, &doc)
	return doc.Messages, err
}

// History is the full UI timeline: chat messages plus tool-start, tool-end and
// tool-summary entries.
func (s *Session) History() ([]HistoryEntry, error) {
	var doc struct {
		Entries []HistoryEntry `json:"entries"`
	}
	err := s.messages("History", "history", &doc)
	return doc.Entries, err
}

func (s *Session) messages(op string, view View, v any) error {
	q, _ := json.Marshal(map[string]string{"view": string(view)})
	cq := C.CString(string(q))
	defer C.free(unsafe.Pointer(cq))
	return s.core.jsonOut(op, v, func(p *C.robota_session, out **C.char, cerr **C.robota_error) C.robota_status {
		return C.robota_session_messages(p, cq, out, cerr)
	})
}

// State is the session's current state.
func (s *Session) State() (State, error) {
	var st State
	err := s.core.jsonOut("State", &st, func(p *C.robota_session, out **C.char, cerr **C.robota_error) C.robota_status {
		return C.robota_session_state(p, out, cerr)
	})
	return st, err
}

// Save returns a snapshot for Runtime.Resume (history, mode, approvals; never API keys,
// never hooks).
func (s *Session) Save() (Snapshot, error) {
	var raw json.RawMessage
	err := s.core.jsonOut("Save", &raw, func(p *C.robota_session, out **C.char, cerr **C.robota_error) C.robota_status {
		return C.robota_session_save(p, out, cerr)
	})
	return Snapshot(raw), err
}

// Command runs a session command: "help", "clear", "compact", "mode", "model", "cost",
// "context", "permissions", "cancel_queue", … with its argument text. ErrNotFound for an
// unknown command, ErrBusy for "clear" during a turn.
func (s *Session) Command(name, args string) (CommandResult, error) {
	doc, _ := json.Marshal(map[string]string{"name": name, "args": args})
	cdoc := C.CString(string(doc))
	defer C.free(unsafe.Pointer(cdoc))
	var res CommandResult
	err := s.core.jsonOut("Command", &res, func(p *C.robota_session, out **C.char, cerr **C.robota_error) C.robota_status {
		return C.robota_session_command(p, cdoc, out, cerr)
	})
	return res, err
}

// InjectMessage appends a message to the conversation between turns without calling the
// model (role "user", "assistant" or "system"); it is reported as a MessageEvent and a context
// update, kept in the transcript and the saved session, and sent with the next turn.
// ErrInvalidConfig names a bad role, ErrBusy while a turn runs, ErrClosed after Close.
func (s *Session) InjectMessage(role, content string) error {
	doc, _ := json.Marshal(map[string]string{"role": role, "content": content})
	cdoc := C.CString(string(doc))
	defer C.free(unsafe.Pointer(cdoc))
	return s.core.use("InjectMessage", func(p *C.robota_session) error {
		var cerr *C.robota_error
		if st := C.robota_session_inject_message(p, cdoc, &cerr); st != C.ROBOTA_OK {
			return takeError("InjectMessage", st, cerr)
		}
		return nil
	})
}

// Events returns the session's event stream, in order, closed after SessionClosed (Close).
// Events are recorded from the first call on: call it before Submit to see a whole turn.
// Once called, keep reading until the channel is closed; the library never waits for the
// reader (events queue up in memory meanwhile). Every call returns the same channel.
func (s *Session) Events() <-chan Event {
	c := s.core
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stream == nil {
		c.stream = newEventStream()
		if c.gone {
			c.stream.close()
		}
	}
	return c.stream.out
}
