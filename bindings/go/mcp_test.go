package robota

import (
	"os/exec"
	"strings"
	"testing"
)

// An MCP stdio server (tests/mcp/echo_server.py, plain Python) configured through
// SessionConfig.MCPServers: the scripted model calls its tool, State and the "mcp" command
// show it, and a server that cannot start leaves the session usable.
func TestMCPServers(t *testing.T) {
	rt := newRuntime(t, scripted(
		ScriptedTurn{ToolCalls: []ScriptedToolCall{{ID: "c1", Name: "mcp__echo__echo", Arguments: map[string]any{"text": "from Go"}}}},
		ScriptedTurn{Text: "done"},
	))
	s := newSession(t, rt, SessionConfig{Tools: []string{}, PermissionMode: ModeBypassPermissions,
		MCPServers: map[string]MCPServer{
			"echo": {Command: "python3", Args: []string{"../../tests/mcp/echo_server.py"}},
			"gone": {Command: "/nonexistent/robota-mcp-server"},
		}})
	st, err := s.State()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.MCPServers) == 2 && strings.HasSuffix(st.MCPServers[0].Reason, `(cargo feature "mcp")`) {
		// A library built without MCP (the default): both failed with the reason, session usable.
		if st.MCPServers[0].State != "failed" || st.MCPServers[1].State != "failed" {
			t.Fatalf("state %+v", st.MCPServers)
		}
		if res, err := s.Run(testCtx(t), "echo"); err != nil || res.Response != "done" {
			t.Fatalf("run: %+v %v", res, err)
		}
		return
	}
	if len(st.MCPServers) != 2 || st.MCPServers[0] != (MCPServerState{Name: "echo", Transport: "stdio", State: "connected", Tools: 1}) {
		t.Fatalf("state %+v", st.MCPServers)
	}
	if g := st.MCPServers[1]; g.State != "failed" || !strings.HasPrefix(g.Reason, "cannot start ") {
		t.Fatalf("failed server %+v", g)
	}
	res, err := s.Run(testCtx(t), "echo")
	if err != nil || res.Response != "done" {
		t.Fatalf("run: %+v %v", res, err)
	}
	msgs, err := s.Messages(ViewConversation)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range msgs {
		if m.Role == "tool" && m.Content == "from Go" {
			found = true
		}
	}
	if !found {
		t.Fatalf("no tool message 'from Go' in %+v", msgs)
	}
	c, err := s.Command("mcp", "")
	if err != nil || !strings.HasPrefix(c.Message, "MCP servers:\n  echo (stdio) — connected, 1 tools\n  gone (stdio) — failed: cannot start") {
		t.Fatalf("mcp command %+v %v", c, err)
	}
	// Children of the Go program itself end while the library's SIGCHLD handler (installed for
	// the server above) is in place: without SA_ONSTACK on it the Go runtime may abort ("signal
	// handler without SA_ONSTACK"), depending on the thread the signal lands on; the flag itself
	// is checked by tests/c/test_mcp.c.
	for i := 0; i < 3; i++ {
		if err := exec.Command("true").Run(); err != nil {
			t.Fatalf("a Go child process: %v", err)
		}
	}
}
