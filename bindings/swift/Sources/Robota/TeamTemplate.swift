import CRobota
import Foundation

/// A team template: `assignTask` (sessions with `SessionConfig.team`) runs a child session with
/// its system message, provider and model. The library ships `general` and `task_coordinator`;
/// `Runtime.registerTemplate` adds more.
public struct TeamTemplate: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var description: String?
    /// A provider profile of the runtime config, or a provider kind (`"openai"`, `"anthropic"`,
    /// …: the first profile of that kind).
    public var provider: String
    public var model: String
    /// Temperature of the child's model calls, 0 to 2.
    public var temperature: Double?
    public var systemMessage: String

    public init(
        id: String, name: String, description: String? = nil, provider: String, model: String,
        temperature: Double? = nil, systemMessage: String
    ) {
        self.id = id
        self.name = name
        self.description = description
        self.provider = provider
        self.model = model
        self.temperature = temperature
        self.systemMessage = systemMessage
    }
}

extension Runtime {
    /// Registers a team template (`robota_runtime_register_template`); existing sessions see it
    /// too. An id that exists (a built-in or an earlier registration) throws `.invalidConfig`
    /// and the registered template is kept.
    public func registerTemplate(_ template: TeamTemplate) throws {
        try registerTemplate(json: JSONCoding.encode(template))
    }

    /// Registers a team template from its JSON document.
    public func registerTemplate(json: String) throws {
        try check { error in json.withCString { robota_runtime_register_template(handle, $0, error) } }
    }
}
