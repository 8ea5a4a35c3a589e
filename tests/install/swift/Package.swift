// swift-tools-version:5.9
//
// The Swift consumer of the installed library (tests/install/drive.py describes the turn it runs).
// It depends on Robota by URL and version, as an app does. .ci/swift.sh sets ROBOTA_SWIFT_URL to
// a local clone of this repository tagged with the library's version; SwiftPM refuses unsafe
// flags in a package resolved by version, so this builds only when Robota has none.
import PackageDescription

let robotaURL = Context.environment["ROBOTA_SWIFT_URL"] ?? "https://github.com/robota-ai/robota-native"

let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v12), .iOS(.v15)],
    dependencies: [.package(url: robotaURL, from: "1.2.0")],
    targets: [
        .executableTarget(name: "Consumer", dependencies: [.product(name: "Robota", package: "robota-native")]),
    ]
)
