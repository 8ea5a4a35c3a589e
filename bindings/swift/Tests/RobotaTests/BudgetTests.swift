import XCTest

@testable import Robota

final class BudgetTests: XCTestCase {
    func testABudgetStopsTheTurnAndLaterSubmits() async throws {
        let rt = try Fixture.runtime(Fixture.toolTurns(key: "k"))
        try rt.registerTool(Fixture.lookup) { _ in "found" }
        let s = try rt.session(
            config: SessionConfig(provider: "s", model: "m", budget: SessionBudget(maxModelCalls: 1)))
        await assertRobotaErrorAsync(.budget, containing: "budget exceeded: max_model_calls is 1 and 1 were used") {
            _ = try await s.run("go")
        }
        assertRobotaError(.budget, containing: "max_model_calls") { try s.submit("more") }
        assertRobotaError(.invalidConfig, containing: "\"max_tool_calls\" must be a non-negative integer") {
            _ = try rt.session(config: SessionConfig(provider: "s", model: "m", budget: SessionBudget(maxToolCalls: -1)))
        }
    }
}
