package robota

import (
	"bytes"
	"encoding/json"
)

// RuntimeConfig configures a Runtime: named provider profiles plus shared settings.
type RuntimeConfig struct {
	// Providers by profile name; sessions pick one with SessionConfig.Provider.
	Providers map[string]ProviderConfig `json:"providers"`
	// WorkerThreads of the runtime's async pool (default: one per core, at least 1). The
	// threads start when a session first needs them: a host that only uses Session.Drive starts none.
	WorkerThreads int `json:"worker_threads,omitempty"`
	// SessionDir is where persisted sessions live.
	SessionDir string `json:"session_dir,omitempty"`
	// RequestTimeoutMS bounds how long a permission or hook request waits for an answer.
	RequestTimeoutMS int `json:"request_timeout_ms,omitempty"`
	// RequestTimeoutDecision is "deny" (default) or "allow" for unanswered permission requests.
	RequestTimeoutDecision string `json:"request_timeout_decision,omitempty"`
	// Strict has no effect (kept for compatibility): the library always rejects unknown keys.
	Strict bool `json:"strict,omitempty"`
	// Env holds variables looked up before the process environment ($ENV: references in
	// settings files, ROBOTA_HOME, HOME); the process environment is never changed.
	Env map[string]string `json:"env,omitempty"`
	// PluginDirs are plugin folders (absolute paths) every session of the runtime loads
	// (ABI 1.2; a settings enabledPlugins entry false turns one off).
	PluginDirs []string `json:"plugin_dirs,omitempty"`
	// Extra holds keys this struct does not name (newer library versions); they are merged
	// into the document and never override the named fields.
	Extra map[string]any `json:"-"`
}

// ProviderConfig is one provider profile. Kind is "anthropic", "openai",
// "openai-compatible", "gemini", "scripted" (offline, deterministic: Turns) or "replay"
// (serves a SessionConfig.Record file back: File, Strict).
type ProviderConfig struct {
	Kind string `json:"kind"`
	// BaseURL overrides the vendor endpoint (a proxy, a local server, a test double).
	BaseURL string `json:"base_url,omitempty"`
	// APIKey is the key, or "$ENV:NAME" to read it from the environment.
	APIKey     string            `json:"api_key,omitempty"`
	Headers    map[string]string `json:"headers,omitempty"`
	TimeoutMS  int               `json:"timeout_ms,omitempty"`
	MaxRetries *int              `json:"max_retries,omitempty"`
	// Turns script the "scripted" provider: one entry per model call, in order.
	Turns []ScriptedTurn `json:"turns,omitempty"`
	// Fallback of the scripted provider when Turns run out: "echo" (default),
	// "repeat_last" or "error".
	Fallback string `json:"fallback,omitempty"`
	// File is the recording a "replay" provider serves (read when a session is created).
	File string `json:"file,omitempty"`
	// Strict makes a "replay" provider fail a call whose request differs from the recorded
	// one, naming the first difference.
	Strict bool `json:"strict,omitempty"`
	// Extra holds keys this struct does not name.
	Extra map[string]any `json:"-"`
}

// ScriptedTurn is one answer of the scripted provider.
type ScriptedTurn struct {
	Text      string             `json:"text,omitempty"`
	Deltas    []string           `json:"deltas,omitempty"`
	Thinking  []string           `json:"thinking,omitempty"`
	DelayMS   int                `json:"delay_ms,omitempty"`
	ToolCalls []ScriptedToolCall `json:"tool_calls,omitempty"`
	Usage     *ScriptedUsage     `json:"usage,omitempty"`
	Error     *ScriptedError     `json:"error,omitempty"`
	// Hang keeps the call open after streaming until the turn is aborted.
	Hang bool `json:"hang,omitempty"`
}

// MCPServer is one MCP server: a stdio one (Command, Args, Env, Cwd) or, with Type "http", a
// streamable-HTTP one (URL, Headers; "$ENV:NAME" values are resolved at connect time).
type MCPServer struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// TimeoutMS bounds one tool call (0 = 120000); StartupTimeoutMS the start (0 = 30000).
	TimeoutMS        int `json:"timeout_ms,omitempty"`
	StartupTimeoutMS int `json:"startup_timeout_ms,omitempty"`
}

// ScriptedToolCall is a tool call the scripted model makes.
type ScriptedToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments any    `json:"arguments,omitempty"`
}

// ScriptedUsage is the usage a scripted turn reports.
type ScriptedUsage struct {
	InputTokens  uint64 `json:"input_tokens"`
	OutputTokens uint64 `json:"output_tokens"`
}

// ScriptedError makes a scripted call fail; Kind is "provider" (default), "auth",
// "rate_limit", "network" or "model".
type ScriptedError struct {
	Kind    string `json:"kind,omitempty"`
	Message string `json:"message"`
}

// PermissionMode is a session's permission mode.
type PermissionMode string

// Permission modes.
const (
	ModePlan              PermissionMode = "plan"
	ModeDefault           PermissionMode = "default"
	ModeAcceptEdits       PermissionMode = "acceptEdits"
	ModeBypassPermissions PermissionMode = "bypassPermissions"
)

// Delivery is how events reach the binding. The default, DeliveryThread, needs nothing from
// the host. DeliveryInline needs nothing either and is faster: the library calls the binding
// on its async worker that produced the events instead of handing them to a dispatcher thread
// (the binding's callbacks run no user code but SessionConfig.OnEvent and never block, so it
// is safe with any handlers; handlers still run on their own goroutines). DeliveryPump runs events and handlers
// only inside Session.Dispatch (a UI or game loop); DeliveryPull only inside Session.NextEvent.
type Delivery string

// Delivery modes.
const (
	DeliveryThread Delivery = "thread"
	DeliveryInline Delivery = "inline"
	DeliveryPump   Delivery = "pump"
	DeliveryPull   Delivery = "pull"
)

// Permissions are allow/deny rules such as "Bash(git *)" or "Read".
type Permissions struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// Hooks maps a hook event ("PreToolUse", "UserPromptSubmit", …) to its groups.
type Hooks map[string][]HookGroup

// HookGroup is a list of hooks for the tools whose name matches Matcher ("" = all).
type HookGroup struct {
	Matcher string           `json:"matcher,omitempty"`
	Hooks   []HookDefinition `json:"hooks"`
}

// HookDefinition is one hook: Type "command" (Command), "http" (URL) or "host" (answered by
// SessionConfig.OnHook in this process).
type HookDefinition struct {
	Type    string            `json:"type"`
	Command string            `json:"command,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Timeout int               `json:"timeout,omitempty"`
}

// HostHook is a hook answered by the session's OnHook handler.
func HostHook() HookDefinition { return HookDefinition{Type: "host"} }

// SessionConfig configures a session.
type SessionConfig struct {
	// Provider is a profile name of RuntimeConfig.Providers.
	Provider string `json:"provider"`
	// Model is the model id.
	Model        string `json:"model"`
	SystemPrompt string `json:"system_prompt,omitempty"`
	// Cwd is the working directory of built-in tools (default: the process's).
	Cwd string `json:"cwd,omitempty"`
	// Tools lists the tools the model may use; nil = the default set plus every host tool,
	// an empty non-nil slice = none.
	Tools          []string       `json:"-"`
	PermissionMode PermissionMode `json:"permission_mode,omitempty"`
	Permissions    *Permissions   `json:"permissions,omitempty"`
	Hooks          Hooks          `json:"hooks,omitempty"`
	// MaxRounds bounds the model calls of a turn (0 = the library default).
	MaxRounds int `json:"max_rounds,omitempty"`
	// Delivery defaults to DeliveryThread.
	Delivery Delivery `json:"delivery,omitempty"`
	// Settings "project" loads the six settings files and AGENTS.md/CLAUDE.md from Cwd and
	// assembles the system prompt; "user" only the user files; "" or "none" nothing.
	Settings string `json:"settings,omitempty"`
	// SystemPromptMode "replace" uses SystemPrompt alone instead of appending it to the
	// assembled prompt ("append", the default).
	SystemPromptMode string `json:"system_prompt_mode,omitempty"`
	// Language is the response language (a section of the system prompt).
	Language string `json:"language,omitempty"`
	// Temperature of the model calls (nil = the provider's default).
	Temperature *float64 `json:"temperature,omitempty"`
	// MaxTokens of each model call's output (0 = the provider's default).
	MaxTokens int `json:"max_tokens,omitempty"`
	// Thinking enables extended thinking with a token budget (Anthropic, Gemini).
	Thinking *Thinking `json:"thinking,omitempty"`
	// NativeWebSearch asks for the provider's hosted web search (Anthropic profiles with
	// "web_search": true).
	NativeWebSearch bool `json:"native_web_search,omitempty"`
	// PromptCache is the prompt caching of the model calls: "5m" (the default, also when
	// empty), "1h" or "off" (docs/prompt-caching.md).
	PromptCache string `json:"prompt_cache,omitempty"`
	// ToolConfig configures the built-in tools: {"limits":{…},"env":{…},"webSearch":{…}}.
	ToolConfig map[string]any `json:"tool_config,omitempty"`
	// ToolEnv sets what child processes inherit: {"inherit","exclude","include_only","set"}
	// (docs/security.md).
	ToolEnv map[string]any `json:"tool_env,omitempty"`
	// Sandbox configures the Bash tool's OS sandbox:
	// {"mode","writable","deny_read","network","fallback","limits"} (docs/security.md).
	Sandbox          map[string]any `json:"sandbox,omitempty"`
	SessionID        string         `json:"session_id,omitempty"`
	Name             string         `json:"name,omitempty"`
	Persist          bool           `json:"persist,omitempty"`
	ReplayEvents     bool           `json:"replay_events,omitempty"`
	RequestTimeoutMS int            `json:"request_timeout_ms,omitempty"`
	Strict           bool           `json:"strict,omitempty"`
	// AutoCompactThreshold is a number in (0, 1] (default 0.835) or false (no automatic
	// compaction); nil keeps the default.
	AutoCompactThreshold any `json:"auto_compact_threshold,omitempty"`
	// CompactInstructions focus compaction summaries (default: CLAUDE.md's
	// "Compact Instructions" section).
	CompactInstructions string `json:"compact_instructions,omitempty"`
	// Budget sets hard limits over the session's life (nil = none).
	Budget *Budget `json:"budget,omitempty"`
	// HostIO runs the built-in tools through the runtime's HostIOHandler (Runtime.SetHostIO).
	HostIO bool `json:"host_io,omitempty"`
	// Record appends every model request and its response stream to this JSONL file
	// (relative to Cwd); a "replay" provider serves it back.
	Record string `json:"record,omitempty"`
	// Team gives the session the team tools (listTemplateCategories, listTemplates,
	// getTemplateDetail, assignTask); see Runtime.RegisterTemplate.
	Team bool `json:"team,omitempty"`
	// ContextWindow overrides the window the library uses (default: the window the server
	// tells, else the model table, else a stated default with a CONTEXT_WINDOW_ASSUMED warning).
	ContextWindow int `json:"context_window,omitempty"`
	// ToolChoice is every turn's default tool choice (nil = auto).
	ToolChoice *ToolChoice `json:"tool_choice,omitempty"`
	// OutputSchema is the JSON Schema every turn's answer must match (structured output; an
	// Input.OutputSchema wins). The validated answer is Result.Output (QueryResult.Output).
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Transcript appends every event to a JSONL log: true (<Cwd>/.robota/logs) or a
	// directory path; nil = no transcript.
	Transcript any `json:"transcript,omitempty"`
	// Commands registers host commands: listed by help, run by Session.Command or "/name args"
	// input; their CommandRequest events are answered with Session.RespondCommand.
	Commands []HostCommand `json:"commands,omitempty"`
	// Agents defines subagents by name for the Agent tool (a non-empty map offers the tool
	// when Tools is nil; else name "Agent" in Tools). The built-ins general-purpose, Explore
	// and Plan always exist. A subagent's events arrive as KindSubagent.
	Agents map[string]AgentDefinition `json:"agents,omitempty"`
	// MCPServers are the session's MCP tool servers by name; their tools are offered as
	// "mcp__<name>__<tool>" (docs/subagents-team-mcp.md "MCP tool servers").
	MCPServers map[string]MCPServer `json:"mcp_servers,omitempty"`
	// Extra holds keys this struct does not name.
	Extra map[string]any `json:"-"`

	// OnPermission answers permission requests. Nil: requests are denied, unless Events()
	// is being read, in which case the host answers with Session.RespondPermission.
	OnPermission PermissionHandler `json:"-"`
	// OnHook runs "host" hooks. Nil: hooks proceed (exit 0), unless Events() is being read,
	// in which case the host answers with Session.RespondHook.
	OnHook HookHandler `json:"-"`
	// OnCommand runs the host Commands. Nil: the host answers CommandRequest events with
	// Session.RespondCommand.
	OnCommand CommandHandler `json:"-"`
	// OnEvent sees every event of the session, in order, on the thread that delivers it,
	// before Events() and the turn streams do (EventHandler has the rules).
	OnEvent EventHandler `json:"-"`
}

// HostCommand is a command the host runs (SessionConfig.Commands).
type HostCommand struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	ArgumentHint string `json:"argument_hint,omitempty"`
}

// AgentDefinition is one subagent of SessionConfig.Agents.
type AgentDefinition struct {
	Description string   `json:"description"`
	Prompt      string   `json:"prompt"`
	Tools       []string `json:"tools,omitempty"`
	Model       string   `json:"model,omitempty"`
}

// Thinking is the extended-thinking budget of SessionConfig.
type Thinking struct {
	BudgetTokens int `json:"budget_tokens"`
}

// Budget is the session's hard limits; zero fields are unlimited. A turn that would exceed
// one stops with StopBudget (Turn.Wait: ErrBudget) and later submits fail with ErrBudget.
type Budget struct {
	MaxTotalTokens uint64 `json:"max_total_tokens,omitempty"`
	// MaxCostUSD needs the model's price in the library's model table (else NewSession fails
	// with ErrInvalidConfig).
	MaxCostUSD    float64 `json:"max_cost_usd,omitempty"`
	MaxWallMS     uint64  `json:"max_wall_ms,omitempty"`
	MaxToolCalls  uint64  `json:"max_tool_calls,omitempty"`
	MaxModelCalls uint64  `json:"max_model_calls,omitempty"`
}

// Overrides change fields of a resumed or forked session; zero fields keep the saved ones.
type Overrides struct {
	Model          string         `json:"model,omitempty"`
	SystemPrompt   string         `json:"system_prompt,omitempty"`
	PermissionMode PermissionMode `json:"permission_mode,omitempty"`
	Hooks          Hooks          `json:"hooks,omitempty"`
	MaxRounds      int            `json:"max_rounds,omitempty"`
	Delivery       Delivery       `json:"delivery,omitempty"`
	Name           string         `json:"name,omitempty"`
	Extra          map[string]any `json:"-"`
	// OnPermission, OnHook, OnCommand and OnEvent of the new session (a fork inherits its
	// parent's when nil).
	OnPermission PermissionHandler `json:"-"`
	OnHook       HookHandler       `json:"-"`
	OnCommand    CommandHandler    `json:"-"`
	OnEvent      EventHandler      `json:"-"`
}

// ResumeConfig opens a saved session: from Snapshot, or by SessionID from the runtime's
// session directory.
type ResumeConfig struct {
	Snapshot  Snapshot `json:"snapshot,omitempty"`
	SessionID string   `json:"session_id,omitempty"`
	Overrides
}

// document encodes a config struct as the library's JSON: "v":1, the struct's fields,
// then extra keys that do not collide with them, then forced keys.
func document(v any, extra map[string]any, forced map[string]any) (string, error) {
	m, err := merged(v, extra)
	if err != nil {
		return "", err
	}
	for k, x := range forced {
		m[k] = x
	}
	m["v"] = 1
	out, err := json.Marshal(m)
	return string(out), err
}

// merged is v's JSON object plus the extra keys it does not set (numbers kept exact).
func merged(v any, extra map[string]any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	for k, x := range extra {
		if _, taken := m[k]; !taken {
			m[k] = x
		}
	}
	return m, nil
}

func (c RuntimeConfig) json() (string, error) {
	providers := map[string]any{}
	for name, p := range c.Providers {
		m, err := merged(p, p.Extra)
		if err != nil {
			return "", err
		}
		providers[name] = m
	}
	return document(c, c.Extra, map[string]any{"providers": providers})
}

// deliveryOr is d, or the default thread delivery.
func deliveryOr(d Delivery) Delivery {
	if d == "" {
		return DeliveryThread
	}
	return d
}

// callsBack reports whether the library calls the binding back on its own threads (thread
// and inline delivery) rather than inside Dispatch or NextEvent (pump and pull).
func (d Delivery) callsBack() bool {
	return d == DeliveryThread || d == DeliveryInline
}

// sessionDocument is a SessionConfig without Extra keys as the library's JSON, encoded in one
// pass: its own fields win over the embedded ones of the same name.
type sessionDocument struct {
	V int `json:"v"`
	SessionConfig
	Delivery Delivery  `json:"delivery"`
	Tools    *[]string `json:"tools,omitempty"` // nil: omitted; an empty list: []
}

// json always states the delivery: the binding must know how events arrive.
func (c SessionConfig) json() (string, error) {
	if len(c.Extra) == 0 {
		d := sessionDocument{V: 1, SessionConfig: c, Delivery: deliveryOr(c.Delivery)}
		if c.Tools != nil {
			d.Tools = &c.Tools
		}
		out, err := json.Marshal(&d)
		return bytesString(out), err // out is the string's alone: never changed
	}
	forced := map[string]any{"delivery": deliveryOr(c.Delivery)}
	if c.Tools != nil {
		forced["tools"] = c.Tools
	}
	return document(c, c.Extra, forced)
}

// json of a resume or fork document: base keys plus the delivery the new session gets
// (stated, so a snapshot's saved delivery cannot differ from what the binding expects).
func (o Overrides) json(base map[string]any, delivery Delivery) (string, error) {
	forced := map[string]any{"delivery": deliveryOr(delivery)}
	for k, v := range base {
		forced[k] = v
	}
	return document(o, o.Extra, forced)
}
