#if os(macOS) || os(Linux)
import Foundation
import XCTest

@testable import Robota

/// The project's fake model server (`examples/fake_model_server.rs`, built by
/// `cargo build --example fake_model_server`) run as a child process: it speaks the vendors'
/// streaming formats on 127.0.0.1 and is scripted over its stdin, one JSON command per line.
final class FakeModelServer {
    let baseURL: String
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()

    /// The server binary: `$ROBOTA_FAKE_SERVER`, else the repository's debug build.
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["ROBOTA_FAKE_SERVER"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("target/debug/examples/fake_model_server")
    }

    init() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else {
            throw RobotaError(
                code: .notFound,
                message: "\(Self.binary.path) is missing: run `cargo build --example fake_model_server` at the repository root")
        }
        process.executableURL = Self.binary
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let hello = try JSONValue(parsing: Self.readLine(from: output.fileHandleForReading, buffer: &buffer))
        guard let url = hello["base_url"]?.stringValue else {
            throw RobotaError(code: .internal, message: "fake server greeting without base_url: \(hello)")
        }
        baseURL = url
    }

    deinit {
        try? input.fileHandleForWriting.close()  // the server exits when stdin closes
        process.waitUntilExit()
    }

    /// Sends one command and returns the server's answer; fails unless it says `"ok":true`.
    @discardableResult
    func send(_ command: JSONValue) throws -> JSONValue {
        input.fileHandleForWriting.write(Data((command.jsonString() + "\n").utf8))
        let answer = try JSONValue(parsing: Self.readLine(from: output.fileHandleForReading, buffer: &buffer))
        guard answer["ok"] == true else {
            throw RobotaError(code: .internal, message: "fake server refused \(command.jsonString()): \(answer.jsonString())")
        }
        return answer
    }

    /// Queues one streamed answer in `kind`'s wire format.
    func enqueue(
        _ kind: String, text: [String], tools: [[String]] = [], hangAfter: Int? = nil
    ) throws {
        var command: JSONValue = [
            "cmd": "enqueue", "kind": .string(kind), "text": .array(text.map { .string($0) }),
            "tools": .array(tools.map { .array($0.map { .string($0) }) }),
        ]
        if let hangAfter, case .object(var o) = command {
            o["hang_after"] = .integer(Int64(hangAfter))
            command = .object(o)
        }
        try send(command)
    }

    /// The requests the server received, in order.
    func requests() throws -> [JSONValue] {
        guard case .array(let all) = try send(["cmd": "requests"])["requests"] else { return [] }
        return all
    }

    /// Client disconnects the server saw in the middle of a reply.
    func disconnects() throws -> Int64 { try send(["cmd": "disconnects"])["disconnects"]?.intValue ?? 0 }

    private static func readLine(from handle: FileHandle, buffer: inout Data) throws -> String {
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...nl)
                return line
            }
            let chunk = handle.availableData  // blocks until data or end of file
            if chunk.isEmpty { throw RobotaError(code: .io, message: "the fake server closed its output") }
            buffer.append(chunk)
        }
    }
}
#endif
