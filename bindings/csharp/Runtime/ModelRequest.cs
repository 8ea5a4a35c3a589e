using System;
using System.Collections.Generic;

namespace Robota
{
    /// <summary>
    /// One model call of a host provider (<see cref="IModelProvider"/>): the request document
    /// <c>{"v":1,"type":"call",...}</c> read into typed values. <see cref="Json"/> keeps the whole
    /// document (members a newer library adds).
    /// </summary>
    public sealed class ModelRequest
    {
        internal ModelRequest(ulong callId, Dictionary<string, object> d, string json)
        {
            CallId = callId;
            Json = json;
            Provider = Robota.Json.GetString(d, "provider");
            Model = Robota.Json.GetString(d, "model");
            SessionId = Robota.Json.GetString(d, "session_id");
            var messages = new List<ModelMessage>();
            foreach (var m in ModelJson.Objects(d, "messages"))
            {
                messages.Add(new ModelMessage(m));
            }
            Messages = messages;
            var tools = new List<ModelTool>();
            foreach (var t in ModelJson.Objects(d, "tools"))
            {
                tools.Add(new ModelTool(t));
            }
            Tools = tools;
            object choice;
            d.TryGetValue("tool_choice", out choice);
            if (choice is Dictionary<string, object> named)
            {
                ToolChoice = "tool";
                ToolChoiceName = Robota.Json.GetString(named, "name");
            }
            else
            {
                ToolChoice = choice as string ?? "auto";
            }
            MaxTokens = ModelJson.Int(d, "max_tokens");
            Temperature = ModelJson.Double(d, "temperature");
            ThinkingBudget = ModelJson.Int(d, "thinking_budget");
            Attempt = ModelJson.Int(d, "attempt") ?? 1;
        }

        /// <summary>
        /// Reads a request document (<c>{"v":1,"type":"call",...}</c>), e.g. one recorded for a
        /// provider's unit tests. Throws <see cref="FormatException"/> when it is not a JSON object.
        /// </summary>
        public static ModelRequest FromJson(string requestJson, ulong callId = 0) =>
            new ModelRequest(callId, Robota.Json.ParseObject(requestJson ?? throw new ArgumentNullException(nameof(requestJson))), requestJson);

        /// <summary>The call id (unique per runtime; a retry is a new call).</summary>
        public ulong CallId { get; }

        /// <summary>The provider name the call is for (the registered name).</summary>
        public string Provider { get; }

        /// <summary>The model id the session asked for.</summary>
        public string Model { get; }

        /// <summary>The session the call belongs to (null for a call outside a session).</summary>
        public string SessionId { get; }

        /// <summary>The normalized history: a system message first if any, then user, assistant and tool messages.</summary>
        public IReadOnlyList<ModelMessage> Messages { get; }

        /// <summary>The tools the model may call (a tool call naming another one ends the call with an error).</summary>
        public IReadOnlyList<ModelTool> Tools { get; }

        /// <summary><c>auto</c>, <c>none</c>, <c>required</c>, or <c>tool</c> (then <see cref="ToolChoiceName"/>).</summary>
        public string ToolChoice { get; }

        /// <summary>The tool the model must call when <see cref="ToolChoice"/> is <c>tool</c>.</summary>
        public string ToolChoiceName { get; }

        /// <summary>The output limit (null: the provider's own).</summary>
        public int? MaxTokens { get; }

        /// <summary>The sampling temperature (null: the provider's default).</summary>
        public double? Temperature { get; }

        /// <summary>The thinking budget in tokens (null: no extended thinking asked).</summary>
        public int? ThinkingBudget { get; }

        /// <summary>1 for the first try, 2 and up for the retries of a recoverable error.</summary>
        public int Attempt { get; }

        /// <summary>The request document as the library sent it.</summary>
        public string Json { get; }
    }

    /// <summary>One message of a <see cref="ModelRequest"/>.</summary>
    public sealed class ModelMessage
    {
        internal ModelMessage(Dictionary<string, object> d)
        {
            Role = Robota.Json.GetString(d, "role");
            var parts = new List<ModelContentPart>();
            object content;
            d.TryGetValue("content", out content);
            if (content is List<object> list)
            {
                foreach (var p in list)
                {
                    if (p is Dictionary<string, object> part)
                    {
                        parts.Add(new ModelContentPart(part));
                    }
                }
            }
            else if (content is string s)
            {
                parts.Add(ModelContentPart.FromText(s));
            }
            Parts = parts;
            var text = new System.Text.StringBuilder();
            foreach (var p in parts)
            {
                text.Append(p.Text);
            }
            Text = text.ToString();
            var calls = new List<ModelToolCall>();
            foreach (var c in ModelJson.Objects(d, "tool_calls"))
            {
                calls.Add(new ModelToolCall(c));
            }
            ToolCalls = calls;
            ToolCallId = Robota.Json.GetString(d, "tool_call_id");
            ToolName = Robota.Json.GetString(d, "name");
            IsError = Robota.Json.GetBool(d, "is_error");
        }

        /// <summary><c>system</c>, <c>user</c>, <c>assistant</c> or <c>tool</c>.</summary>
        public string Role { get; }

        /// <summary>The text of the message (a user message's text parts joined; images left out).</summary>
        public string Text { get; }

        /// <summary>The content parts: text and images (a user message), or the one text part of the others.</summary>
        public IReadOnlyList<ModelContentPart> Parts { get; }

        /// <summary>The tool calls of an assistant message (empty otherwise).</summary>
        public IReadOnlyList<ModelToolCall> ToolCalls { get; }

        /// <summary>The call a <c>tool</c> message answers.</summary>
        public string ToolCallId { get; }

        /// <summary>The tool a <c>tool</c> message comes from.</summary>
        public string ToolName { get; }

        /// <summary>True when a <c>tool</c> message reports the tool's failure.</summary>
        public bool IsError { get; }
    }

    /// <summary>A part of a message: text, or an image (base64 <see cref="Data"/> with its media type, or a <see cref="Url"/>).</summary>
    public sealed class ModelContentPart
    {
        private ModelContentPart(string type, string text, string mediaType, string data, string url)
        {
            Type = type;
            Text = text;
            MediaType = mediaType;
            Data = data;
            Url = url;
        }

        internal ModelContentPart(Dictionary<string, object> d)
            : this(Robota.Json.GetString(d, "type"), Robota.Json.GetString(d, "text"), Robota.Json.GetString(d, "media_type"),
                   Robota.Json.GetString(d, "data"), Robota.Json.GetString(d, "url"))
        {
        }

        internal static ModelContentPart FromText(string text) => new ModelContentPart("text", text, null, null, null);

        /// <summary><c>text</c> or <c>image</c>.</summary>
        public string Type { get; }

        /// <summary>The text of a text part (null for an image).</summary>
        public string Text { get; }

        /// <summary>The media type of an inline image (<c>image/png</c>, ...).</summary>
        public string MediaType { get; }

        /// <summary>The base64 data of an inline image.</summary>
        public string Data { get; }

        /// <summary>The address of an image given by URL.</summary>
        public string Url { get; }

        /// <summary>The bytes of an inline image (null for text or a URL image).</summary>
        public byte[] ImageBytes() => Data == null ? null : Convert.FromBase64String(Data);
    }

    /// <summary>A tool call of an assistant message in the history.</summary>
    public sealed class ModelToolCall
    {
        internal ModelToolCall(Dictionary<string, object> d)
        {
            Id = Robota.Json.GetString(d, "id");
            Name = Robota.Json.GetString(d, "name");
            object args;
            d.TryGetValue("arguments", out args);
            ArgumentsJson = Robota.Json.Serialize(args ?? new Dictionary<string, object>());
        }

        /// <summary>The call id the matching <c>tool</c> message names.</summary>
        public string Id { get; }

        /// <summary>The tool called.</summary>
        public string Name { get; }

        /// <summary>The arguments, a JSON object.</summary>
        public string ArgumentsJson { get; }
    }

    /// <summary>A tool offered to the model.</summary>
    public sealed class ModelTool
    {
        internal ModelTool(Dictionary<string, object> d)
        {
            Name = Robota.Json.GetString(d, "name");
            Description = Robota.Json.GetString(d, "description") ?? string.Empty;
            object schema;
            d.TryGetValue("input_schema", out schema);
            InputSchemaJson = Robota.Json.Serialize(schema ?? new Dictionary<string, object> { { "type", "object" } });
        }

        /// <summary>The tool name.</summary>
        public string Name { get; }

        /// <summary>What the tool does.</summary>
        public string Description { get; }

        /// <summary>The JSON Schema of its arguments.</summary>
        public string InputSchemaJson { get; }
    }

    /// <summary>Readers of the request document's members.</summary>
    internal static class ModelJson
    {
        internal static IEnumerable<Dictionary<string, object>> Objects(Dictionary<string, object> d, string key)
        {
            object v;
            if (d.TryGetValue(key, out v) && v is List<object> list)
            {
                foreach (var item in list)
                {
                    if (item is Dictionary<string, object> o)
                    {
                        yield return o;
                    }
                }
            }
        }

        internal static int? Int(Dictionary<string, object> d, string key)
        {
            object v;
            if (d.TryGetValue(key, out v) && v is long l && l >= int.MinValue && l <= int.MaxValue)
            {
                return (int)l;
            }
            return null;
        }

        internal static double? Double(Dictionary<string, object> d, string key)
        {
            object v;
            if (!d.TryGetValue(key, out v))
            {
                return null;
            }
            if (v is double x) return x;
            if (v is long l) return l;
            return null;
        }
    }
}
