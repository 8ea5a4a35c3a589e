// The Swift consumer of the installed library (tests/install/drive.py describes the turn it runs).
import Foundation
import Robota

struct Operands: Decodable {
    let a: Int
    let b: Int
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("\(message)\n".utf8))
    exit(1)
}

guard let baseURL = ProcessInfo.processInfo.environment["ROBOTA_BASE_URL"] else { fail("ROBOTA_BASE_URL is not set") }
do {
    let rt = try Runtime(config: RuntimeConfig(providers: [
        "fake": ProviderConfig(kind: .openaiCompatible, baseURL: baseURL, apiKey: "test"),
    ]))
    let add = ToolDefinition(
        name: "add", description: "Adds two integers",
        inputSchema: [
            "type": "object",
            "properties": ["a": ["type": "integer"], "b": ["type": "integer"]],
            "required": ["a", "b"],
        ],
        readOnly: true)
    try rt.registerTool(add) { call in
        print("tool add \(call.arguments.jsonString())")
        let operands = try call.decodeArguments(Operands.self)
        return String(operands.a + operands.b)
    }
    let session = try rt.session(config: SessionConfig(provider: "fake", model: "fake-model"))
    var text = ""
    for try await event in session.stream("What is 2 + 3?") {
        switch event {
        case .textDelta(let delta): text += delta
        case .error(let error): fail("turn: \(error.message)")
        default: break
        }
    }
    print("text \(text)")
} catch {
    fail("\(error)")
}
