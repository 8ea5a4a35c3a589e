#if os(macOS) || os(Linux)
import Foundation
import XCTest

@testable import Robota

/// Images in prompts: `PromptImage` values reach the model in its vendor's shape; a bad one
/// fails the submit naming it.
final class ImageTests: XCTestCase {
    /// A PNG's magic bytes and an IHDR start: enough for the library to tell its type.
    private let png = Data([
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0,
    ])

    func testImagesReachTheModelAsImageURLParts() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("robota-swift-images-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("shot.png")
        try png.write(to: file)
        let server = try FakeModelServer()
        try server.send(["cmd": "enqueue", "kind": "openai", "text": ["Two."]])
        let rt = try Runtime(config: RuntimeConfig(providers: [
            "fake": ProviderConfig(kind: .openai, baseURL: server.baseURL + "/v1", apiKey: "test-key", timeoutMs: 30_000, maxRetries: 0),
        ]))
        let s = try rt.session(config: SessionConfig(provider: "fake", model: "gpt-test"))
        let result = try await s.run(PromptInput("Compare", images: [
            .file(file), .data(png, mediaType: "image/png"), .url(URL(string: "https://example.com/cat.jpg")!),
        ]))
        XCTAssertEqual(result.response, "Two.")
        let requests = try server.requests()
        XCTAssertEqual(requests.count, 1)
        let inline: JSONValue = ["type": "image_url", "image_url": ["url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAA="]]
        let want: JSONValue = [["role": "user", "content": [
            ["type": "text", "text": "Compare"], inline, inline,
            ["type": "image_url", "image_url": ["url": "https://example.com/cat.jpg"]],
        ]]]
        XCTAssertEqual(requests[0]["body"]?["messages"], want)
    }

    func testABadImageFailsTheSubmitNamingIt() throws {
        let rt = try Fixture.runtime()
        let s = try rt.session(config: Fixture.session)
        XCTAssertThrowsError(try s.submit(PromptInput("x", images: [
            .url(URL(string: "https://example.com/a.png")!), .data(png, mediaType: "image/jpeg"),
        ]))) { e in
            XCTAssertEqual((e as? RobotaError)?.code, .invalidConfig)
            XCTAssertEqual(
                (e as? RobotaError)?.message,
                #"input_json: images[1]: media_type "image/jpeg" does not match the data, which is image/png"#)
        }
    }
}
#endif
