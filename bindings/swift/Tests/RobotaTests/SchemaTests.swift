import Foundation
import XCTest

@testable import Robota

/// `RuntimeConfig` and `SessionConfig` express every top-level key of the library's document
/// schemas (`docs/schema/*.schema.json`, generated from the library's document types): a key the
/// library accepts that the config types cannot set fails here, naming it.
final class SchemaTests: XCTestCase {
    /// The repository root (this file is Tests/RobotaTests/SchemaTests.swift under bindings/swift).
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    func schemaKeys(_ name: String) throws -> [String] {
        let url = Self.repository.appendingPathComponent("docs/schema/\(name).schema.json")
        let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        let keys = (schema?["properties"] as? [String: Any]).map { Array($0.keys).sorted() } ?? []
        XCTAssertFalse(keys.isEmpty, "\(name).schema.json has properties")
        return keys
    }

    func documentKeys<T: Encodable>(_ value: T) throws -> (Set<String>, String) {
        let data = try JSONEncoder().encode(value)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return (Set(object.keys), String(decoding: data, as: UTF8.self))
    }

    func testConfigTypesCoverTheDocumentSchemas() throws {
        let runtime = RuntimeConfig(
            providers: ["p": .scripted(turns: [])], workerThreads: 1, sessionDir: "x",
            requestTimeoutMs: 1, requestTimeoutDecision: "allow", env: ["A": "b"], strict: false,
            pluginDirs: ["/p"])
        let (have, doc) = try documentKeys(runtime)
        for key in try schemaKeys("runtime") where !have.contains(key) {
            XCTFail("runtime.schema.json key \"\(key)\" cannot be expressed by RuntimeConfig (document: \(doc))")
        }

        let session = SessionConfig(
            provider: "p", model: "m", systemPrompt: "x", cwd: "x", tools: ["Read"], permissionMode: .plan,
            permissions: PermissionRules(allow: ["Read"]), hooks: [:], maxRounds: 1, delivery: .pull,
            settings: "none", sessionID: "x", name: "x", persist: true, replayEvents: true, hostIO: true,
            budget: SessionBudget(maxModelCalls: 1), record: "x", contextWindow: 1, toolChoice: .auto,
            outputSchema: ["type": "object"],
            autoCompactThreshold: 0.5, compactInstructions: "x", temperature: 0.5, maxTokens: 1,
            thinking: Thinking(budgetTokens: 1), language: "x", systemPromptMode: "append",
            nativeWebSearch: true, promptCache: "5m", toolConfig: [:], toolEnv: [:], sandbox: [:], transcript: true,
            commands: [HostCommand(name: "x", description: "x")], team: true,
            agents: ["a": ["description": "x", "prompt": "x"]], mcpServers: ["s": ["command": "x"]],
            requestTimeoutMs: 1, strict: false)
        let (sessionHave, sessionDoc) = try documentKeys(session)
        // `snapshot` is the resume document's (the resume call writes it).
        for key in try schemaKeys("session") where !sessionHave.contains(key) && key != "snapshot" {
            XCTFail("session.schema.json key \"\(key)\" cannot be expressed by SessionConfig (document: \(sessionDoc))")
        }
    }
}
