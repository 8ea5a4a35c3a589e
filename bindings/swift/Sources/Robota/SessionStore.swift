import CRobota
import Foundation

/// One saved session as `Runtime.listSessions` shows it (and a `RobotaStore` lists it).
public struct StoredSession: Codable, Sendable, Equatable {
    public var id: String
    public var name: String?
    public var cwd: String
    public var createdAt: String
    public var updatedAt: String
    public var messageCount: UInt64

    public init(id: String, name: String?, cwd: String, createdAt: String, updatedAt: String, messageCount: UInt64) {
        self.id = id
        self.name = name
        self.cwd = cwd
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.messageCount = messageCount
    }

    enum CodingKeys: String, CodingKey {
        case id, name, cwd
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case messageCount = "message_count"
    }
}

/// A session file a listing could not read (corrupt or truncated), by name.
public struct SkippedSessionFile: Codable, Sendable, Equatable {
    public var file: String
    public var error: String
}

/// The saved sessions of a runtime's session directory, newest first.
public struct SessionList: Codable, Sendable, Equatable {
    public var sessions: [StoredSession]
    public var skipped: [SkippedSessionFile]
}

extension Runtime {
    /// Lists the sessions saved under the runtime's `session_dir` (default
    /// `$ROBOTA_HOME/sessions`), or in its store (`setStore`) (`robota_store_list`): only those of `cwd` when given, at most
    /// `limit` when given.
    public func listSessions(cwd: String? = nil, limit: Int? = nil) throws -> SessionList {
        var query: [String: JSONValue] = [:]
        if let cwd { query["cwd"] = .string(cwd) }
        if let limit { query["limit"] = .number(Double(limit)) }
        let doc = try JSONCoding.encode(query)
        let json = try checkString { out, error in doc.withCString { robota_store_list(handle, $0, out, error) } }
        return try JSONCoding.decode(SessionList.self, from: json, what: "session list")
    }

    /// Deletes a saved session (`robota_store_delete`); throws `.notFound` when there is none.
    public func deleteSession(id: String) throws {
        try check { error in id.withCString { robota_store_delete(handle, $0, error) } }
    }
}
