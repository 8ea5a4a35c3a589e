package robota

import "testing"

// A SERVER_TOOL payload decodes to a ServerToolEvent with its name, status and query.
func TestServerToolEventDecodes(t *testing.T) {
	data := []byte(`{"v":1,"kind":22,"type":"server_tool","turn_id":3,"tool_name":"web_search","status":"started","query":"weather in Paris","input":{"query":"weather in Paris"}}`)
	ev, ok := decodeJSONEvent(KindServerTool, 3, data).(ServerToolEvent)
	if !ok {
		t.Fatalf("decoded to %T", decodeJSONEvent(KindServerTool, 3, data))
	}
	if ev.Turn() != 3 || ev.ToolName != "web_search" || ev.Status != "started" || ev.Query != "weather in Paris" || string(ev.Input) != `{"query":"weather in Paris"}` {
		t.Fatalf("event = %#v", ev)
	}
	if KindServerTool.String() != "server_tool" {
		t.Fatalf("name %q", KindServerTool.String())
	}
}
