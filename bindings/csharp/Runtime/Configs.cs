using System;
using System.Collections.Generic;

namespace Robota
{
    /// <summary>One entry of the runtime's <c>providers</c> map.</summary>
    public sealed class ProviderConfig
    {
        /// <summary>Creates a provider of <paramref name="kind"/> (<c>anthropic</c>, <c>openai</c>, <c>openai-compatible</c>, <c>gemini</c>, <c>scripted</c>, <c>replay</c>).</summary>
        public ProviderConfig(string kind)
        {
            Kind = kind ?? throw new ArgumentNullException(nameof(kind));
        }

        /// <summary>The provider kind.</summary>
        public string Kind { get; }

        /// <summary>Overrides the vendor's endpoint (a proxy, a local server, a test double).</summary>
        public string BaseUrl { get; set; }

        /// <summary>The API key, or <c>"$ENV:NAME"</c> to read it from the environment at each use.</summary>
        public string ApiKey { get; set; }

        /// <summary>Idle timeout of a request in milliseconds.</summary>
        public int? TimeoutMs { get; set; }

        /// <summary>Retries after the first attempt.</summary>
        public int? MaxRetries { get; set; }

        /// <summary>Extra HTTP headers.</summary>
        public IDictionary<string, string> Headers { get; } = new Dictionary<string, string>();

        /// <summary>Any further fields, written as they are (e.g. the scripted provider's <c>turns</c>).</summary>
        public IDictionary<string, object> Extra { get; } = new Dictionary<string, object>();

        /// <summary>Anthropic Messages API.</summary>
        public static ProviderConfig Anthropic(string apiKey = "$ENV:ANTHROPIC_API_KEY") => new ProviderConfig("anthropic") { ApiKey = apiKey };

        /// <summary>OpenAI Chat Completions.</summary>
        public static ProviderConfig OpenAI(string apiKey = "$ENV:OPENAI_API_KEY") => new ProviderConfig("openai") { ApiKey = apiKey };

        /// <summary>Any OpenAI-compatible server (llama.cpp, vLLM, LM Studio, Ollama, ...).</summary>
        public static ProviderConfig OpenAICompatible(string baseUrl, string apiKey = null) =>
            new ProviderConfig("openai-compatible") { BaseUrl = baseUrl, ApiKey = apiKey };

        /// <summary>Google Gemini.</summary>
        public static ProviderConfig Gemini(string apiKey = "$ENV:GEMINI_API_KEY") => new ProviderConfig("gemini") { ApiKey = apiKey };

        /// <summary>
        /// The deterministic offline provider: <paramref name="turnsJson"/> is a JSON array of
        /// turns (<c>{"deltas":[...]}</c>, <c>{"text","tool_calls":[...]}</c>, <c>{"error":{...}}</c>,
        /// <c>{"hang":true}</c>); when they run out, <paramref name="fallback"/> decides
        /// (<c>echo</c>, <c>repeat_last</c>, <c>error</c>).
        /// </summary>
        public static ProviderConfig Scripted(string turnsJson = "[]", string fallback = "echo")
        {
            var p = new ProviderConfig("scripted");
            p.Extra["turns"] = new JsonRaw(turnsJson ?? "[]");
            p.Extra["fallback"] = fallback;
            return p;
        }

        /// <summary>
        /// Serves a recording (<see cref="SessionConfig.Record"/>) back in order, offline; with
        /// <paramref name="strict"/> a request that differs from the recorded one fails the turn,
        /// naming the first difference. The file is read when a session is created.
        /// </summary>
        public static ProviderConfig Replay(string file, bool strict = false)
        {
            var p = new ProviderConfig("replay");
            p.Extra["file"] = file ?? throw new ArgumentNullException(nameof(file));
            if (strict) p.Extra["strict"] = true;
            return p;
        }

        internal Dictionary<string, object> ToDictionary()
        {
            var d = new Dictionary<string, object> { { "kind", Kind } };
            if (BaseUrl != null) d["base_url"] = BaseUrl;
            if (ApiKey != null) d["api_key"] = ApiKey;
            if (TimeoutMs.HasValue) d["timeout_ms"] = TimeoutMs.Value;
            if (MaxRetries.HasValue) d["max_retries"] = MaxRetries.Value;
            if (Headers.Count > 0) d["headers"] = Headers;
            foreach (var kv in Extra) d[kv.Key] = kv.Value;
            return d;
        }
    }

    /// <summary>The runtime config document (<c>robota_runtime_new</c>).</summary>
    public sealed class RuntimeConfig
    {
        /// <summary>Named provider profiles; sessions pick one by name.</summary>
        public IDictionary<string, ProviderConfig> Providers { get; } = new Dictionary<string, ProviderConfig>();

        /// <summary>Async worker threads (library default: one per core, at least 1), started when a
        /// session first needs them: a host that only uses <c>RobotaSession.Drive</c> starts none.</summary>
        public int? WorkerThreads { get; set; }

        /// <summary>Where persisted sessions live (default <c>$ROBOTA_HOME/sessions</c>).</summary>
        public string SessionDir { get; set; }

        /// <summary>How long a permission/hook request waits for the host before its default decision.</summary>
        public int? RequestTimeoutMs { get; set; }

        /// <summary>What an unanswered permission request becomes: <c>"deny"</c> (library default) or <c>"allow"</c>.</summary>
        public string RequestTimeoutDecision { get; set; }

        /// <summary>Accepted for compatibility; no effect (unknown keys are always refused).</summary>
        public bool? Strict { get; set; }

        /// <summary>Variables looked up before the process environment (<c>$ENV:</c> in settings files,
        /// <c>ROBOTA_HOME</c>, <c>HOME</c>); the process environment is never changed.</summary>
        public IDictionary<string, string> Env { get; } = new Dictionary<string, string>();

        /// <summary>Plugin folders (absolute paths) every session of the runtime loads (ABI 1.2; a settings
        /// <c>enabledPlugins</c> entry <c>false</c> turns one off).</summary>
        public IList<string> PluginDirs { get; } = new List<string>();

        /// <summary>Any further fields, written as they are.</summary>
        public IDictionary<string, object> Extra { get; } = new Dictionary<string, object>();

        /// <summary>Adds a provider profile (fluent).</summary>
        public RuntimeConfig AddProvider(string name, ProviderConfig provider)
        {
            Providers[name] = provider ?? throw new ArgumentNullException(nameof(provider));
            return this;
        }

        /// <summary>The JSON document.</summary>
        public string ToJson()
        {
            var providers = new Dictionary<string, object>();
            foreach (var kv in Providers) providers[kv.Key] = kv.Value.ToDictionary();
            var d = new Dictionary<string, object> { { "v", 1 }, { "providers", providers } };
            if (WorkerThreads.HasValue) d["worker_threads"] = WorkerThreads.Value;
            if (SessionDir != null) d["session_dir"] = SessionDir;
            if (RequestTimeoutMs.HasValue) d["request_timeout_ms"] = RequestTimeoutMs.Value;
            if (RequestTimeoutDecision != null) d["request_timeout_decision"] = RequestTimeoutDecision;
            if (Strict.HasValue) d["strict"] = Strict.Value;
            if (Env.Count > 0)
            {
                var env = new Dictionary<string, object>();
                foreach (var kv in Env) env[kv.Key] = kv.Value;
                d["env"] = env;
            }
            if (PluginDirs.Count > 0) d["plugin_dirs"] = new List<object>(PluginDirs);
            foreach (var kv in Extra) d[kv.Key] = kv.Value;
            return Json.Serialize(d);
        }
    }

    /// <summary>
    /// Whether the model may, must or must not call a tool, or which one (<c>"auto"</c>,
    /// <c>"none"</c>, <c>"required"</c> or <c>{"name":"TOOL"}</c>): a session's default
    /// (<see cref="SessionConfig.ToolChoice"/>) or one turn's. <see cref="Required"/> and a named
    /// tool hold for the turn's first model call only; a named tool the session lacks fails with
    /// <see cref="RobotaStatus.InvalidConfig"/> naming it.
    /// </summary>
    public sealed class ToolChoice
    {
        private readonly string mode;

        private ToolChoice(string mode, string name)
        {
            this.mode = mode;
            Name = name;
        }

        /// <summary>The model decides (the default).</summary>
        public static readonly ToolChoice Auto = new ToolChoice("auto", null);

        /// <summary>No tool call.</summary>
        public static readonly ToolChoice None = new ToolChoice("none", null);

        /// <summary>At least one tool call.</summary>
        public static readonly ToolChoice Required = new ToolChoice("required", null);

        /// <summary>A call to the tool <paramref name="name"/>.</summary>
        public static ToolChoice Tool(string name) => new ToolChoice(null, name ?? throw new ArgumentNullException(nameof(name)));

        /// <summary>The named tool, or null.</summary>
        public string Name { get; }

        /// <summary>The value as the JSON documents carry it.</summary>
        internal object JsonValue() => mode != null ? (object)mode : new Dictionary<string, object> { { "name", Name } };

        /// <summary>The JSON form.</summary>
        public override string ToString() => Json.Serialize(JsonValue());
    }

    /// <summary>The session document (<c>robota_session_new</c>).</summary>
    public sealed class SessionConfig
    {
        /// <summary>Creates a config for a provider profile and a model.</summary>
        public SessionConfig(string provider, string model)
        {
            Provider = provider ?? throw new ArgumentNullException(nameof(provider));
            Model = model ?? throw new ArgumentNullException(nameof(model));
        }

        /// <summary>The provider profile name (a key of <see cref="RuntimeConfig.Providers"/>).</summary>
        public string Provider { get; }

        /// <summary>The model id.</summary>
        public string Model { get; }

        /// <summary>The system prompt.</summary>
        public string SystemPrompt { get; set; }

        /// <summary>The working directory of built-in tools.</summary>
        public string Cwd { get; set; }

        /// <summary>Tools the model may use (built-in names and registered host tools); null = the default set.</summary>
        public IList<string> Tools { get; set; }

        /// <summary><c>plan</c>, <c>default</c>, <c>acceptEdits</c> or <c>bypassPermissions</c>.</summary>
        public string PermissionMode { get; set; }

        /// <summary>Permission rules that allow without asking (e.g. <c>"Read(/src/**)"</c>).</summary>
        public IList<string> Allow { get; set; }

        /// <summary>Permission rules that always deny.</summary>
        public IList<string> Deny { get; set; }

        /// <summary>The hooks config as JSON (<c>{"PreToolUse":[{"matcher","hooks":[{"type":"host"}]}]}</c>).</summary>
        public string HooksJson { get; set; }

        /// <summary>Maximum model rounds per turn.</summary>
        public int? MaxRounds { get; set; }

        /// <summary>How events are delivered (default <see cref="Robota.Delivery.Thread"/>).</summary>
        public Delivery Delivery { get; set; } = Delivery.Thread;

        /// <summary>A session id to use (default: a new one).</summary>
        public string SessionId { get; set; }

        /// <summary>Persist the session after each turn in the runtime's session directory, or its store (<see cref="RobotaRuntime.SetStore"/>).</summary>
        public bool? Persist { get; set; }

        /// <summary><c>"none"</c> (default), <c>"user"</c> (the user settings files) or <c>"project"</c>
        /// (all six files, AGENTS.md/CLAUDE.md and the assembled system prompt).</summary>
        public string Settings { get; set; }

        /// <summary><c>"append"</c> (default: the system prompt follows the assembled one) or <c>"replace"</c>.</summary>
        public string SystemPromptMode { get; set; }

        /// <summary>Response language (a section of the system prompt).</summary>
        public string Language { get; set; }

        /// <summary>Sampling temperature (0 to 2).</summary>
        public double? Temperature { get; set; }

        /// <summary>Max output tokens per model call.</summary>
        public int? MaxTokens { get; set; }

        /// <summary>Extended thinking budget in tokens (Anthropic, Gemini).</summary>
        public int? ThinkingBudgetTokens { get; set; }

        /// <summary>Ask for the provider's hosted web search (Anthropic profiles with <c>web_search</c>).</summary>
        public bool? NativeWebSearch { get; set; }

        /// <summary>Prompt caching of the model calls: <c>"5m"</c> (default), <c>"1h"</c> or <c>"off"</c> (docs/prompt-caching.md).</summary>
        public string PromptCache { get; set; }

        /// <summary>Built-in tool configuration JSON: <c>{"limits":{…},"env":{…},"webSearch":{…}}</c>.</summary>
        public string ToolConfigJson { get; set; }

        /// <summary>What child processes inherit, JSON: <c>{"inherit","exclude","include_only","set"}</c> (docs/security.md).</summary>
        public string ToolEnvJson { get; set; }

        /// <summary>The Bash tool's OS sandbox, JSON: <c>{"mode","writable","deny_read","network","fallback","limits"}</c> (docs/security.md).</summary>
        public string SandboxJson { get; set; }

        /// <summary>MCP tool servers JSON, by name: <c>{"fs":{"command":"npx","args":[…]},"gh":{"type":"http","url":"…","headers":{…}}}</c>; their tools are offered as <c>mcp__NAME__TOOL</c> (docs/subagents-team-mcp.md "MCP tool servers").</summary>
        public string McpServersJson { get; set; }

        /// <summary>The context window in tokens (default: what the server tells, else the model table, else a stated default with a <c>CONTEXT_WINDOW_ASSUMED</c> warning).</summary>
        public int? ContextWindow { get; set; }

        /// <summary>Every turn's default tool choice (null = auto).</summary>
        public ToolChoice ToolChoice { get; set; }

        /// <summary>The JSON Schema every turn's answer must match (structured output; a turn's own schema wins); the validated answer is <see cref="TurnResult.Output"/>.</summary>
        public string OutputSchemaJson { get; set; }

        /// <summary>Automatic compaction threshold, greater than 0 and at most 1 (default 0.835).</summary>
        public double? AutoCompactThreshold { get; set; }

        /// <summary>True turns automatic compaction off.</summary>
        public bool AutoCompactDisabled { get; set; }

        /// <summary>Focus of compaction summaries (default: CLAUDE.md's "Compact Instructions").</summary>
        public string CompactInstructions { get; set; }

        /// <summary>Any further fields, written as they are (budget, temperature, ...).</summary>
        public IDictionary<string, object> Extra { get; } = new Dictionary<string, object>();

        /// <summary>Hard limits over the session's life (null = none).</summary>
        public SessionBudget Budget { get; set; }

        /// <summary>Appends every event to <c>&lt;session_id&gt;.jsonl</c> in this directory (null = no transcript).</summary>
        public string TranscriptDir { get; set; }

        /// <summary>True writes the transcript to <c>&lt;cwd&gt;/.robota/logs</c> (ignored when <see cref="TranscriptDir"/> is set).</summary>
        public bool Transcript { get; set; }

        /// <summary>Host commands: listed by help, run by <c>Command</c> or <c>/name args</c> input; their requests
        /// arrive as <see cref="EventKind.CommandRequest"/> events.</summary>
        public IList<HostCommand> Commands { get; set; }
        /// <summary>Subagents by name for the Agent tool (non-null, even empty, offers the tool when
        /// <see cref="Tools"/> is null; the built-ins general-purpose, Explore and Plan always exist).
        /// Their events arrive as <see cref="EventKind.Subagent"/>.</summary>
        public IDictionary<string, AgentDefinition> Agents { get; set; }

        /// <summary>Runs the built-in tools through the runtime's host I/O handler (<see cref="RobotaRuntime.SetHostIo"/>).</summary>
        public bool? HostIo { get; set; }

        /// <summary>Appends every model request and its response stream to this JSONL file
        /// (relative to <see cref="Cwd"/>); <see cref="ProviderConfig.Replay"/> serves it back.</summary>
        public string Record { get; set; }

        /// <summary>Gives the session the team tools (listTemplateCategories, listTemplates, getTemplateDetail, assignTask; <see cref="RobotaRuntime.RegisterTemplate"/>).</summary>
        public bool? Team { get; set; }

        /// <summary>User-facing name of the session.</summary>
        public string Name { get; set; }

        /// <summary>Forward replay events as <see cref="EventKind.Execution"/> (replay providers).</summary>
        public bool? ReplayEvents { get; set; }

        /// <summary>How long this session's permission/hook requests wait (overrides the runtime's).</summary>
        public int? RequestTimeoutMs { get; set; }

        /// <summary>Accepted for compatibility; no effect (unknown keys are always refused).</summary>
        public bool? Strict { get; set; }

        /// <summary>The JSON name of a delivery mode.</summary>
        public static string DeliveryName(Delivery d)
        {
            switch (d)
            {
                case Delivery.Pump: return "pump";
                case Delivery.Pull: return "pull";
                case Delivery.Inline: return "inline";
                default: return "thread";
            }
        }

        /// <summary>The JSON document.</summary>
        public string ToJson()
        {
            var d = ThreadScratch.TakeMembers();
            try
            {
                return ToJson(d);
            }
            finally
            {
                ThreadScratch.Return(d);
            }
        }

        private string ToJson(Dictionary<string, object> d)
        {
            d["v"] = One;
            d["provider"] = Provider;
            d["model"] = Model;
            d["delivery"] = DeliveryName(Delivery);
            if (SystemPrompt != null) d["system_prompt"] = SystemPrompt;
            if (Cwd != null) d["cwd"] = Cwd;
            if (Tools != null) d["tools"] = Tools;
            if (PermissionMode != null) d["permission_mode"] = PermissionMode;
            if (Allow != null || Deny != null)
            {
                d["permissions"] = new Dictionary<string, object>
                {
                    { "allow", Allow ?? new List<string>() },
                    { "deny", Deny ?? new List<string>() },
                };
            }
            if (HooksJson != null) d["hooks"] = new JsonRaw(HooksJson);
            if (MaxRounds.HasValue) d["max_rounds"] = MaxRounds.Value;
            if (SessionId != null) d["session_id"] = SessionId;
            if (Persist.HasValue) d["persist"] = Persist.Value;
            if (Settings != null) d["settings"] = Settings;
            if (SystemPromptMode != null) d["system_prompt_mode"] = SystemPromptMode;
            if (Language != null) d["language"] = Language;
            if (Temperature.HasValue) d["temperature"] = Temperature.Value;
            if (MaxTokens.HasValue) d["max_tokens"] = MaxTokens.Value;
            if (ThinkingBudgetTokens.HasValue) d["thinking"] = new Dictionary<string, object> { { "budget_tokens", ThinkingBudgetTokens.Value } };
            if (NativeWebSearch.HasValue) d["native_web_search"] = NativeWebSearch.Value;
            if (PromptCache != null) d["prompt_cache"] = PromptCache;
            if (ToolConfigJson != null) d["tool_config"] = new JsonRaw(ToolConfigJson);
            if (ToolEnvJson != null) d["tool_env"] = new JsonRaw(ToolEnvJson);
            if (SandboxJson != null) d["sandbox"] = new JsonRaw(SandboxJson);
            if (McpServersJson != null) d["mcp_servers"] = new JsonRaw(McpServersJson);
            if (HostIo.HasValue) d["host_io"] = HostIo.Value;
            if (Record != null) d["record"] = Record;
            if (Team.HasValue) d["team"] = Team.Value;
            if (Name != null) d["name"] = Name;
            if (ReplayEvents.HasValue) d["replay_events"] = ReplayEvents.Value;
            if (RequestTimeoutMs.HasValue) d["request_timeout_ms"] = RequestTimeoutMs.Value;
            if (Strict.HasValue) d["strict"] = Strict.Value;
            if (Budget != null) d["budget"] = Budget.ToDictionary();
            if (Agents != null)
            {
                var a = new Dictionary<string, object>();
                foreach (var kv in Agents) a[kv.Key] = kv.Value.ToDictionary();
                d["agents"] = a;
            }
            if (ContextWindow.HasValue) d["context_window"] = ContextWindow.Value;
            if (ToolChoice != null) d["tool_choice"] = ToolChoice.JsonValue();
            if (OutputSchemaJson != null) d["output_schema"] = new JsonRaw(OutputSchemaJson);
            if (AutoCompactDisabled) d["auto_compact_threshold"] = false;
            else if (AutoCompactThreshold.HasValue) d["auto_compact_threshold"] = AutoCompactThreshold.Value;
            if (CompactInstructions != null) d["compact_instructions"] = CompactInstructions;
            if (TranscriptDir != null) d["transcript"] = TranscriptDir;
            else if (Transcript) d["transcript"] = true;
            if (Commands != null)
            {
                var list = new List<object>();
                foreach (var c in Commands) list.Add(c.ToDictionary());
                d["commands"] = list;
            }
            if (Extra.Count != 0)
            {
                foreach (var kv in Extra) d[kv.Key] = kv.Value;
            }
            return Json.Serialize(d);
        }

        private static readonly object One = 1;
    }

    /// <summary>A command the host runs (<see cref="SessionConfig.Commands"/>).</summary>
    public sealed class HostCommand
    {
        /// <summary>Name (letters, digits, '_', '-', ':'; not a built-in's).</summary>
        public string Name { get; set; }

        /// <summary>One-line description.</summary>
        public string Description { get; set; }

        /// <summary>Argument hint shown after the name (null = none).</summary>
        public string ArgumentHint { get; set; }

        internal Dictionary<string, object> ToDictionary()
        {
            var d = new Dictionary<string, object> { { "name", Name }, { "description", Description } };
            if (ArgumentHint != null) d["argument_hint"] = ArgumentHint;
            return d;
        }
    }

    /// <summary>One subagent of <see cref="SessionConfig.Agents"/>.</summary>
    public sealed class AgentDefinition
    {
        /// <summary>What it is for (shown to the model).</summary>
        public string Description { get; set; } = string.Empty;

        /// <summary>Its system prompt.</summary>
        public string Prompt { get; set; } = string.Empty;

        /// <summary>Allowlist of tool names (null = every tool of the parent but Agent).</summary>
        public IList<string> Tools { get; set; }

        /// <summary>Model override (sonnet, haiku, opus or a model id; null = the parent's).</summary>
        public string Model { get; set; }

        internal Dictionary<string, object> ToDictionary()
        {
            var d = new Dictionary<string, object> { { "description", Description }, { "prompt", Prompt } };
            if (Tools != null) d["tools"] = Tools;
            if (Model != null) d["model"] = Model;
            return d;
        }
    }
}
