using System.Linq;

namespace Robota.Tests
{
    /// <summary>The request document read into <see cref="ModelRequest"/>: every member of the spec's call document.</summary>
    internal static class ModelRequestTests
    {
        private const string Doc =
            "{\"v\":1,\"type\":\"call\",\"provider\":\"local\",\"model\":\"m\",\"session_id\":null," +
            "\"messages\":[" +
            "{\"role\":\"system\",\"content\":\"Be brief.\"}," +
            "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"What is \"},{\"type\":\"image\",\"media_type\":\"image/png\",\"data\":\"iVBORw==\"}," +
            "{\"type\":\"text\",\"text\":\"this?\"},{\"type\":\"image\",\"url\":\"https://example.com/a.jpg\"}]}," +
            "{\"role\":\"assistant\",\"content\":\"Checking.\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"look\",\"arguments\":{\"q\":[1,2]}}]}," +
            "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"name\":\"look\",\"content\":\"no such file\",\"is_error\":true}]," +
            "\"tools\":[{\"name\":\"look\",\"description\":\"Looks\",\"input_schema\":{\"type\":\"object\"}}]," +
            "\"tool_choice\":{\"name\":\"look\"},\"max_tokens\":256,\"temperature\":0.5,\"thinking_budget\":null,\"attempt\":2}";

        [Test]
        private static void EveryMemberOfTheCallDocumentIsRead()
        {
            var r = ModelRequest.FromJson(Doc, 7);
            Expect.Equal(7UL, r.CallId, "call id");
            Expect.Equal("local", r.Provider, "provider");
            Expect.Equal("m", r.Model, "model");
            Expect.Equal(null, r.SessionId, "session id");
            Expect.Equal("system,user,assistant,tool", string.Join(",", r.Messages.Select(m => m.Role)), "roles");
            Expect.Equal("Be brief.", r.Messages[0].Text, "system text");
            var user = r.Messages[1];
            Expect.Equal("What is this?", user.Text, "user text without the images");
            Expect.Equal("text,image,text,image", string.Join(",", user.Parts.Select(p => p.Type)), "user parts");
            Expect.Equal("image/png", user.Parts[1].MediaType, "media type");
            Expect.Equal("iVBORw==", user.Parts[1].Data, "base64 data");
            Expect.Equal("137,80,78,71", string.Join(",", user.Parts[1].ImageBytes()), "image bytes");
            Expect.Equal("https://example.com/a.jpg", user.Parts[3].Url, "image url");
            Expect.Equal(null, user.Parts[3].ImageBytes(), "a URL image has no bytes");
            var assistant = r.Messages[2];
            Expect.Equal("Checking.", assistant.Text, "assistant text");
            Expect.Equal("c1|look|{\"q\":[1,2]}", string.Join(",", assistant.ToolCalls.Select(c => c.Id + "|" + c.Name + "|" + c.ArgumentsJson)), "tool calls");
            var tool = r.Messages[3];
            Expect.Equal("c1|look|no such file|True", tool.ToolCallId + "|" + tool.ToolName + "|" + tool.Text + "|" + tool.IsError, "tool result");
            Expect.Equal(0, tool.ToolCalls.Count, "no tool calls on a tool message");
            Expect.Equal("look|Looks|{\"type\":\"object\"}", string.Join(",", r.Tools.Select(t => t.Name + "|" + t.Description + "|" + t.InputSchemaJson)), "tools");
            Expect.Equal("tool", r.ToolChoice, "tool choice");
            Expect.Equal("look", r.ToolChoiceName, "tool choice name");
            Expect.Equal((int?)256, r.MaxTokens, "max tokens");
            Expect.Equal((double?)0.5, r.Temperature, "temperature");
            Expect.Equal((int?)null, r.ThinkingBudget, "thinking budget");
            Expect.Equal(2, r.Attempt, "attempt");
            Expect.Equal(Doc, r.Json, "raw document");
            var plain = ModelRequest.FromJson("{\"v\":1,\"type\":\"call\",\"tool_choice\":\"required\",\"messages\":[],\"tools\":[]}");
            Expect.Equal("required|", plain.ToolChoice + "|" + plain.ToolChoiceName, "a string choice");
            Expect.Equal(1, plain.Attempt, "attempt defaults to 1");
            Expect.Throws<System.FormatException>(() => ModelRequest.FromJson("[1]"), "not an object");
        }
    }
}
