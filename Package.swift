// swift-tools-version:5.9
//
// Robota: the Swift binding of Robota Native (sources in bindings/swift). Depend on it by URL and
// version: .package(url: "https://github.com/robota-ai/robota-native", from: "1.2.0").
//
// Where the C library (`CRobota`) comes from:
// - Apple platforms, a release: the release workflow rewrites the two lines below
//   (packaging/swift/set-binary-target.sh) on the release's tag, so `CRobota` is the released
//   Robota.xcframework (static librobota.a per Apple target), by URL and checksum.
// - Apple platforms, development: bindings/swift/scripts/build-xcframework.sh builds
//   bindings/swift/Robota.xcframework; when it exists, `CRobota` is that local binary target.
// - Otherwise (Linux): the installed library (packaging/install.sh), found through pkg-config
//   (`robota.pc`; PKG_CONFIG_PATH names its lib/pkgconfig when the prefix is not a system one).
import Foundation
import PackageDescription

let robotaBinaryURL: String? = nil
let robotaBinaryChecksum = ""

let localXCFramework = "bindings/swift/Robota.xcframework"

/// The `CRobota` module: an XCFramework on Apple platforms when there is one, else the system library.
func nativeTarget() -> Target {
    #if os(macOS)
    if let url = robotaBinaryURL {
        return .binaryTarget(name: "CRobota", url: url, checksum: robotaBinaryChecksum)
    }
    if FileManager.default.fileExists(atPath: Context.packageDirectory + "/" + localXCFramework) {
        return .binaryTarget(name: "CRobota", path: localXCFramework)
    }
    #endif
    // No `providers`: no system package manager carries the library yet (packaging/install.sh).
    return .systemLibrary(name: "CRobota", path: "bindings/swift/Sources/CRobota", pkgConfig: "robota")
}

let package = Package(
    name: "Robota",
    platforms: [.macOS(.v12), .iOS(.v15)],
    products: [
        .library(name: "Robota", targets: ["Robota"]),
        .executable(name: "robota-chat", targets: ["RobotaChat"]),
        .executable(name: "robota-floor-host", targets: ["RobotaFloorHost"]),
    ],
    targets: [
        nativeTarget(),
        .target(name: "Robota", dependencies: ["CRobota"], path: "bindings/swift/Sources/Robota"),
        .executableTarget(name: "RobotaChat", dependencies: ["Robota"], path: "bindings/swift/Sources/RobotaChat"),
        .executableTarget(name: "RobotaFloorHost", dependencies: ["Robota"], path: "bindings/swift/Sources/RobotaFloorHost"),
        .testTarget(name: "RobotaTests", dependencies: ["Robota", "CRobota"], path: "bindings/swift/Tests/RobotaTests"),
    ],
    swiftLanguageVersions: [.v5]
)
