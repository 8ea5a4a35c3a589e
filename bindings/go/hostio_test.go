package robota

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// memFS is an in-memory file system served through the host I/O port (no shell).
type memFS struct {
	mu    sync.Mutex
	files map[string]string
	ops   []string
}

func (m *memFS) serve(_ context.Context, req HostIORequest) (any, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ops = append(m.ops, req.Op+" "+req.Path)
	switch req.Op {
	case "stat":
		if req.Path == "/vfs" {
			return HostIOStat{Exists: true, IsDir: true}, nil
		}
		c, ok := m.files[req.Path]
		return HostIOStat{Exists: ok, Size: uint64(len(c))}, nil
	case "read":
		c, ok := m.files[req.Path]
		if !ok {
			return nil, errors.New("no such file")
		}
		return HostIOContent{Content: c}, nil
	case "write":
		m.files[req.Path] = req.Content
		return nil, nil
	case "list":
		var l HostIOList
		for p := range m.files {
			if len(p) > len(req.Path)+1 && p[:len(req.Path)+1] == req.Path+"/" {
				l.Entries = append(l.Entries, HostIOEntry{Name: p[len(req.Path)+1:]})
			}
		}
		return l, nil
	}
	return nil, ErrHostIOUnsupported
}

func hostIOScript() RuntimeConfig {
	call := func(id, name string, args map[string]any) ScriptedTurn {
		return ScriptedTurn{ToolCalls: []ScriptedToolCall{{ID: id, Name: name, Arguments: args}}}
	}
	return scripted(
		call("c1", "Write", map[string]any{"filePath": "a.txt", "content": "alpha\n"}),
		call("c2", "Read", map[string]any{"filePath": "/vfs/a.txt"}),
		call("c3", "Grep", map[string]any{"pattern": "alp"}),
		call("c4", "Bash", map[string]any{"command": "ls"}),
		ScriptedTurn{Text: "Done."},
	)
}

func checkHostIOConversation(t *testing.T, s *Session, fs *memFS) {
	t.Helper()
	conv := conversation(t, s)
	mustContain(t, conv, `Written 6 bytes to a.txt`)
	mustContain(t, conv, `[File: /vfs/a.txt (1 lines)]\\n1\\talpha`)
	mustContain(t, conv, `{\"success\":true,\"output\":\"/vfs/a.txt\"}`)
	mustContain(t, conv, `host I/O exec is not supported by the host`)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.files["/vfs/a.txt"] != "alpha\n" {
		t.Fatalf("files = %#v", fs.files)
	}
}

func TestHostIOVirtualFileSystem(t *testing.T) {
	rt := newRuntime(t, hostIOScript())
	if _, err := rt.NewSession(SessionConfig{Provider: "s", Model: "m", HostIO: true}); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("host_io without a handler: %v", err)
	}
	fs := &memFS{files: map[string]string{}}
	if err := rt.SetHostIO(fs.serve); err != nil {
		t.Fatal(err)
	}
	s := newSession(t, rt, SessionConfig{HostIO: true, Cwd: "/vfs", PermissionMode: "bypassPermissions"})
	turn, err := s.Submit(testCtx(t), "work")
	if err != nil {
		t.Fatal(err)
	}
	if r, err := turn.Wait(testCtx(t)); err != nil || r.Response != "Done." {
		t.Fatalf("result %#v, %v", r, err)
	}
	checkHostIOConversation(t, s, fs)
}

func TestHostIOPullDelivery(t *testing.T) {
	rt := newRuntime(t, hostIOScript())
	fs := &memFS{files: map[string]string{}}
	if err := rt.SetHostIO(fs.serve); err != nil {
		t.Fatal(err)
	}
	s := newSession(t, rt, SessionConfig{HostIO: true, Cwd: "/vfs", PermissionMode: "bypassPermissions", Delivery: DeliveryPull})
	turn, err := s.Submit(testCtx(t), "work")
	if err != nil {
		t.Fatal(err)
	}
	requests := 0
	for {
		ev, err := s.NextEvent(testTimeout)
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := ev.(HostIOEvent); ok {
			requests++
			if e.IOID == 0 || len(e.Request) == 0 {
				t.Fatalf("host I/O event %#v", e)
			}
		}
		if _, ok := ev.(TurnCompleted); ok {
			break
		}
	}
	if requests < 5 {
		t.Fatalf("only %d host I/O events", requests)
	}
	if r, err := turn.Wait(testCtx(t)); err != nil || r.Response != "Done." {
		t.Fatalf("result %#v, %v", r, err)
	}
	checkHostIOConversation(t, s, fs)
	if err := rt.CompleteHostIO(1, HostIOStat{}); !errors.Is(err, ErrStale) {
		t.Fatalf("late answer: %v", err)
	}
}
