package robota

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"testing"
)

// fastEventDocs are payloads of the kinds fastEvent reads: the shapes the library sends
// (docs/events.md) and the corners of the JSON grammar.
var fastEventDocs = []struct {
	kind EventKind
	doc  string
}{
	{KindTurnStarted, `{"v":1,"type":"turn_started","turn_id":1,"input":{"text":"Say hello"}}`},
	{KindTurnStarted, `{"v":1,"type":"turn_started","input":{"text":"a\"b\\u00e9\ud83d\ude00\n","display_input":"d","raw_input":"r","output_schema":{"type":"object"}}}`},
	{KindTurnStarted, `{"input":{"text":"x","images":[{"path":"/a.png"}]}}`},
	{KindTurnStarted, `{"input":{"Text":"case"}}`},
	{KindTurnStarted, `{"input":null}`},
	{KindMessage, `{"v":1,"type":"message","id":"6f1c","role":"assistant","content":"Reading.","state":"complete","toolCalls":[{"id":"call_0","type":"function","function":{"name":"Read","arguments":"{\"filePath\":\"/a\"}"}}],"timestamp":"2026-12-02T12:00:00.120Z"}`},
	{KindMessage, `{"v":1,"type":"message","id":"0b3e…","role":"tool","content":"{\"success\":true,\"output\":\"[File: /a (1 lines)]\\n1\\thello\"}","state":"complete","toolCallId":"call_0","name":"Read","timestamp":"t"}`},
	{KindMessage, `{"role":"assistant","toolCalls":[],"parts":[{"type":"text","text":"hi"}],"metadata":{"a":[1,2.5e-3,true,false,null]}}`},
	{KindMessage, `{"role":"assistant","toolCalls":null,"metadata":null}`},
	{KindMessage, ` { "role" : "user" , "content" : "\u2028\/" } `},
	{KindToolStart, `{"v":1,"type":"tool_start","tool_call_id":"call_0","tool_name":"Read","first_arg":"/a","arguments":{"filePath":"/a"}}`},
	{KindToolEnd, `{"v":1,"type":"tool_end","tool_call_id":"call_0","tool_name":"Read","result":"success","output":"{\"success\":true}"}`},
	{KindToolEnd, `{"v":1,"type":"tool_end","tool_call_id":"call_1","tool_name":"Edit","result":"success","output":"o","diff_file":"a.txt","diff_lines":[{"type":"remove","content":"b","lineNumber":2}]}`},
	{KindToolCall, `{"v":1,"type":"tool_call","call_id":7,"tool_name":"add","arguments":{"a":1,"b":2}}`},
	{KindToolCall, `{"call_id":-7,"tool_name":"add"}`},
	{KindToolCall, `{"call_id":7.5,"tool_name":"add"}`},
	{KindToolCall, `{"call_id":18446744073709551616}`},
	{KindContextUpdate, `{"v":1,"kind":11,"type":"context_update","turn_id":1,"used_tokens":12,"max_tokens":200000,"used_percentage":0.01,"remaining_percentage":99.99}`},
	{KindContextUpdate, `{"used_tokens":12,"used_percentage":1e400}`},
	{KindContextUpdate, `{"used_tokens":12,"used_percentage":-0.5E+2,"remaining_percentage":0}`},
	{KindError, `{"v":1,"type":"error","code":"PROVIDER_ERROR","category":"provider","recoverable":true,"message":"m"}`},
	{KindError, `{"recoverable":null}`},
	{KindTurnCompleted, `{"v":1,"type":"turn_completed","turn_id":1,"stop_reason":"complete","response":"Hello","tool_summaries":[],"context_state":{"used_tokens":14,"max_tokens":200000,"used_percentage":0.01,"remaining_percentage":99.99},"usage":{"input_tokens":10,"output_tokens":2,"total_tokens":12,"cache_read_tokens":0,"cache_creation_tokens":0}}`},
	{KindTurnCompleted, `{"v":1,"type":"turn_completed","turn_id":2,"stop_reason":"complete","response":"The file says hello.","tool_summaries":[{"name":"Read","args":{"filePath":"/a"}}],"context_state":{"used_tokens":310,"max_tokens":200000,"used_percentage":0.16,"remaining_percentage":99.84},"usage":{"input_tokens":120,"output_tokens":18,"total_tokens":138}}`},
	{KindTurnCompleted, `{"v":1,"type":"turn_completed","turn_id":3,"stop_reason":"error","response":"","tool_summaries":[],"context_state":{"used_tokens":320,"max_tokens":200000,"used_percentage":0.16,"remaining_percentage":99.84},"usage":null,"error":"Provider Error","error_details":{"code":"PROVIDER_ERROR","category":"provider","recoverable":true,"message":"m"}}`},
	{KindTurnCompleted, `{"turn_id":4,"stop_reason":"complete","output":{"n":1},"tool_summaries":null}`},
	{KindTurnCompleted, `{"turn_id":4,"output":null}`},
	{KindTurnCompleted, `{"turn_id":4} x`},
	{KindTurnCompleted, `{"turn_id":4,}`},
	{KindTurnCompleted, `{"response":"\ud800"}`},
	{KindTurnCompleted, "{\"response\":\"\xff\"}"},
	{KindTurnCompleted, "{\"response\":\"a\tb\"}"},
	{KindWarning, `{"message":"not a fast kind"}`},
}

// TestFastEventsMatchEncodingJSON: whatever fastEvent decodes, encoding/json decodes to the
// same value; it also holds for every document with one byte changed.
func TestFastEventsMatchEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte(`{}[]":,\ 0123456789.eE+-tfnulrsaxV` + "\x00\xc3\xff")
	fast := 0
	for _, c := range fastEventDocs {
		if _, ok := fastEvent(nil, c.kind, 9, []byte(c.doc)); ok {
			fast++
		}
		checkFastEvent(t, c.kind, []byte(c.doc))
		for i := 0; i < 300; i++ {
			b := []byte(c.doc)
			b[rng.Intn(len(b))] = alphabet[rng.Intn(len(alphabet))]
			checkFastEvent(t, c.kind, b)
		}
	}
	if fast != 17 { // the library's shapes, the grammar's corners that are valid
		t.Fatalf("fastEvent read %d of the documents, not 17", fast)
	}
}

func checkFastEvent(t *testing.T, kind EventKind, doc []byte) {
	t.Helper()
	got, ok := fastEvent(nil, kind, 9, doc)
	if !ok {
		return
	}
	want := decodeWithReflection(kind, 9, doc)
	if _, unknown := want.(UnknownEvent); unknown || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s\nfast: %#v\njson: %#v", doc, got, want)
	}
}

// TestReadMembersMatchesEncodingJSON: a tool call's arguments read by readMembers are what
// encoding/json reads into a map[string]json.RawMessage, for the documents above and every
// one with a byte changed.
func TestReadMembersMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	alphabet := []byte(`{}[]":,\ 0123456789.eE+-tfnulrsaxV` + "\x00\xc3\xff")
	docs := []string{`{"a":1,"b":2}`, `{"a":{"b":[1,"x\"y"]},"a":null,"c\u00e9":true}`, ` {} `, `[1]`, `null`}
	for _, c := range fastEventDocs {
		docs = append(docs, c.doc)
	}
	for _, doc := range docs {
		for i := 0; i < 300; i++ {
			b := []byte(doc)
			if i > 0 {
				b[rng.Intn(len(b))] = alphabet[rng.Intn(len(alphabet))]
			}
			got, ok := readMembers(b)
			if !ok {
				continue
			}
			var want map[string]json.RawMessage
			if err := json.Unmarshal(b, &want); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s\nreadMembers: %q\njson: %q (%v)", b, got, want, err)
			}
		}
	}
}
