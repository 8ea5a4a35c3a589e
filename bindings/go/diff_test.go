package robota

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// A built-in Write and Edit that change a file carry their exact diff on the typed ToolEnd; a
// failed Edit carries none.
func TestToolEndCarriesEditAndWriteDiffs(t *testing.T) {
	dir := t.TempDir()
	call := func(id, name string, args map[string]any) ScriptedTurn {
		return ScriptedTurn{ToolCalls: []ScriptedToolCall{{ID: id, Name: name, Arguments: args}}}
	}
	rt := newRuntime(t, scripted(
		call("w1", "Write", map[string]any{"filePath": "notes.txt", "content": "a\nb\n"}),
		call("e1", "Edit", map[string]any{"filePath": "notes.txt", "oldString": "b", "newString": "B\nc"}),
		call("e2", "Edit", map[string]any{"filePath": "notes.txt", "oldString": "zzz", "newString": "y"}),
		ScriptedTurn{Text: "done"},
	))
	s := newSession(t, rt, SessionConfig{Cwd: dir, Tools: []string{"Write", "Edit"}, PermissionMode: ModeBypassPermissions})
	events := s.Events()
	turn, err := s.Submit(testCtx(t), "go")
	if err != nil {
		t.Fatal(err)
	}
	ends := find[ToolEnd](collect(t, events, turn.ID()))
	if len(ends) != 3 {
		t.Fatalf("tool ends = %#v", ends)
	}
	if ends[0].ToolName != "Write" || ends[0].DiffFile != "notes.txt" {
		t.Fatalf("write end = %#v", ends[0])
	}
	wantWrite := []DiffLine{{"add", "a", 1}, {"add", "b", 2}}
	if !reflect.DeepEqual(ends[0].DiffLines, wantWrite) {
		t.Fatalf("write diff = %#v, want %#v", ends[0].DiffLines, wantWrite)
	}
	if ends[1].ToolName != "Edit" || ends[1].DiffFile != "notes.txt" {
		t.Fatalf("edit end = %#v", ends[1])
	}
	wantEdit := []DiffLine{{"remove", "b", 2}, {"add", "B", 2}, {"add", "c", 3}}
	if !reflect.DeepEqual(ends[1].DiffLines, wantEdit) {
		t.Fatalf("edit diff = %#v, want %#v", ends[1].DiffLines, wantEdit)
	}
	if ends[2].DiffFile != "" || ends[2].DiffLines != nil {
		t.Fatalf("failed edit carries a diff: %#v", ends[2])
	}
	got, err := os.ReadFile(filepath.Join(dir, "notes.txt"))
	if err != nil || string(got) != "a\nB\nc\n" {
		t.Fatalf("file = %q, %v", got, err)
	}
}
