package robota

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A PNG's magic bytes and an IHDR start: enough for the library to tell its type.
var testPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00")

func TestImagesReachTheModelInTheVendorsShape(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "shot.png"), testPNG, 0o600); err != nil {
		t.Fatal(err)
	}
	f := startFakeServer(t)
	f.do(t, map[string]any{"cmd": "enqueue", "kind": "anthropic", "text": []string{"Two."}})
	rt := httpRuntime(t, f, "anthropic", f.BaseURL)
	// Caching off: the messages as the vendor shapes images, without cache_control marks.
	s := newSession(t, rt, SessionConfig{Provider: "fake", Model: "claude-test", Cwd: dir, PromptCache: "off"})
	turn, err := s.SubmitInput(testCtx(t), Input{Text: "Compare", Images: []Image{
		ImageFile("shot.png"),
		ImageData(testPNG, "image/png"),
		ImageURL("https://example.com/cat.jpg"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := turn.Wait(testCtx(t)); err != nil || r.Response != "Two." {
		t.Fatalf("result %#v, %v", r, err)
	}
	var reqs []struct {
		Body struct {
			Messages json.RawMessage `json:"messages"`
		} `json:"body"`
	}
	if err := json.Unmarshal(f.do(t, map[string]any{"cmd": "requests"}), &reqs); err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString(testPNG)
	inline := `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + b64 + `"}}`
	want := `[{"role":"user","content":[{"type":"text","text":"Compare"},` + inline + `,` + inline +
		`,{"type":"image","source":{"type":"url","url":"https://example.com/cat.jpg"}}]}]`
	if len(reqs) != 1 || string(reqs[0].Body.Messages) != want {
		t.Fatalf("requests = %s\nwant messages %s", reqs[0].Body.Messages, want)
	}
	msgs, err := s.Messages(ViewConversation)
	if err != nil {
		t.Fatal(err)
	}
	wantParts := `[{"type":"text","text":"Compare"},{"type":"image_inline","mimeType":"image/png","data":"` + b64 +
		`"},{"type":"image_inline","mimeType":"image/png","data":"` + b64 +
		`"},{"type":"image_uri","uri":"https://example.com/cat.jpg"}]`
	if string(msgs[0].Parts) != wantParts {
		t.Fatalf("parts = %s", msgs[0].Parts)
	}
}

func TestABadImageFailsTheSubmitNamingIt(t *testing.T) {
	rt := newRuntime(t, RuntimeConfig{Providers: map[string]ProviderConfig{"s": {Kind: "scripted"}}})
	s := newSession(t, rt, SessionConfig{Provider: "s", Model: "m", Cwd: t.TempDir()})
	_, err := s.SubmitInput(testCtx(t), Input{Text: "x", Images: []Image{
		ImageURL("https://example.com/a.png"), ImageData(testPNG, "image/jpeg")}})
	var re *Error
	want := `input_json: images[1]: media_type "image/jpeg" does not match the data, which is image/png`
	if !errors.As(err, &re) || re.Status != StatusInvalidConfig || re.Message != want {
		t.Fatalf("err = %#v", err)
	}
}
