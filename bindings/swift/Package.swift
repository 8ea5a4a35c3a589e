// swift-tools-version:5.9
//
// Robota: Swift binding of Robota Native (the C ABI in ../../include/robota.h).
//
// Where the native library comes from:
// - Linux (and macOS during development): `cargo build --release --lib` at the repository root
//   builds target/release/librobota.so (.dylib on macOS). The `CRobota` system-library target
//   links `robota`; the `Robota` target adds `-L <dir>` and an rpath to <dir>, where <dir> is
//   $ROBOTA_LIB_DIR or, by default, ../../target/release next to this package.
// - Apple platforms for distribution: scripts/build-xcframework.sh builds Robota.xcframework
//   (static librobota.a per Apple target + headers + module map) into this directory; when it
//   exists, `CRobota` becomes a binaryTarget over it and no linker flags are needed.
import Foundation
import PackageDescription

let packageDir = Context.packageDirectory
let xcframework = "Robota.xcframework"
let useXCFramework = FileManager.default.fileExists(atPath: packageDir + "/" + xcframework)
let libDir = Context.environment["ROBOTA_LIB_DIR"]
    ?? URL(fileURLWithPath: packageDir).appendingPathComponent("../../target/release").standardizedFileURL.path

let nativeTarget: Target = useXCFramework
    ? .binaryTarget(name: "CRobota", path: xcframework)
    : .systemLibrary(name: "CRobota", path: "Sources/CRobota")
let nativeLinking: [LinkerSetting] = useXCFramework
    ? []
    : [.unsafeFlags(["-L\(libDir)", "-Xlinker", "-rpath", "-Xlinker", libDir])]

let package = Package(
    name: "Robota",
    platforms: [.macOS(.v12), .iOS(.v15)],
    products: [
        .library(name: "Robota", targets: ["Robota"]),
        .executable(name: "robota-chat", targets: ["RobotaChat"]),
    ],
    targets: [
        nativeTarget,
        .target(name: "Robota", dependencies: ["CRobota"], linkerSettings: nativeLinking),
        .executableTarget(name: "RobotaChat", dependencies: ["Robota"]),
        .testTarget(name: "RobotaTests", dependencies: ["Robota", "CRobota"]),
    ],
    swiftLanguageVersions: [.v5]
)
