import Foundation
import XCTest

@testable import Robota

final class ReplayTests: XCTestCase {
    func testARecordedSessionReplaysOfflineAndACostBudgetIsShown() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("robota-swift-replay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let rec = dir.appendingPathComponent("rec.jsonl").path
        let rt = try Runtime(config: RuntimeConfig(providers: [
            "s": .scripted(turns: Fixture.toolTurns(key: "k")),
            "rep": .replay(file: rec, strict: true),
        ]))
        try rt.registerTool(Fixture.lookup) { _ in "found" }
        let recorded = try await rt.session(
            config: SessionConfig(provider: "s", model: "m", cwd: dir.path, record: "rec.jsonl")).run("go")
        XCTAssertTrue(try String(contentsOfFile: rec, encoding: .utf8).hasPrefix("{\"robota_recording\":1"))
        let replayed = try await rt.session(config: SessionConfig(provider: "rep", model: "m", cwd: dir.path)).run("go")
        XCTAssertEqual(replayed.response, recorded.response)
        XCTAssertEqual(replayed.response, "Done.")
        let strict = try rt.session(config: SessionConfig(provider: "rep", model: "m", cwd: dir.path))
        await assertRobotaErrorAsync(.provider, containing: "message 0 (role user): field \"content\": recorded \"go\", got \"other\"") {
            _ = try await strict.run("other")
        }
        assertRobotaError(.invalidConfig, containing: "needs the price of model \"m\"") {
            _ = try rt.session(config: SessionConfig(provider: "s", model: "m", budget: SessionBudget(maxCostUSD: 1)))
        }
        let priced = try rt.session(
            config: SessionConfig(provider: "s", model: "claude-haiku-4-5", budget: SessionBudget(maxCostUSD: 0.5)))
        XCTAssertTrue(try priced.command("cost").message.contains("Cost: $0 of $0.5"))
    }
}
