// swift-tools-version:6.1
import PackageDescription

/// C settings shared by every agent-side C target: optimised even in debug
/// builds (the fault path has latency targets) and with frame pointers kept
/// so the frame-pointer fallback unwinder has something to follow.
let agentCSettings: [CSetting] = [
    .unsafeFlags(["-O2", "-fno-omit-frame-pointer", "-Wall", "-Wextra", "-Wno-unused-parameter"]),
    .define("_GNU_SOURCE"),
]

let package = Package(
    name: "Faultline",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "faultline", targets: ["faultline"]),
        .library(name: "Faultline", targets: ["Faultline"]),
        .library(name: "FaultlineAgent", targets: ["FaultlineAgent"]),
        /// The injectable agent: `LD_PRELOAD=libFaultlineAgentPreload.so`.
        .library(name: "FaultlineAgentPreload", type: .dynamic, targets: ["CFaultlineAgent"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // Agent core: async-signal-safe crash capture, linked or preloaded.
        .target(
            name: "CFaultlineAgent",
            cSettings: agentCSettings,
            linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]
        ),
        // Swift-facing install API over the C agent.
        .target(name: "FaultlineAgent", dependencies: ["CFaultlineAgent"]),
        // Report model, store, symbolicator: no agent, no CLI logic.
        .target(name: "Faultline"),
        // Scenario model, loader, runner, expectation checker, reporters.
        .target(
            name: "FaultlineHarness",
            dependencies: ["Faultline", .product(name: "Yams", package: "Yams")]
        ),
        .executableTarget(
            name: "faultline",
            dependencies: [
                "Faultline", "FaultlineHarness",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Victims: one fault per subcommand.
        .executableTarget(
            name: "victim-c",
            cSettings: [.unsafeFlags(["-O0", "-g", "-fno-omit-frame-pointer"]), .define("_GNU_SOURCE")],
            linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]
        ),
        .executableTarget(name: "victim-swift", dependencies: ["FaultlineAgent"]),
        .testTarget(name: "FaultlineTests", dependencies: ["Faultline", "FaultlineHarness"]),
    ]
)
