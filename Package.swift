// swift-tools-version:6.1
import PackageDescription

/// C settings shared by every agent-side C target: optimised even in debug
/// builds (the fault path has latency targets) and with frame pointers kept
/// so the frame-pointer fallback unwinder has something to follow.
// Hidden by default: the agent and the shim each link their own copy of
// CFaultlineCore, and neither copy may interpose the other's.
// DWARF 4: valgrind 3.19 (Debian 12) cannot read DWARF 5 and gives up
// before the shim can step aside for it.
let agentFlags = ["-O2", "-gdwarf-4", "-fno-omit-frame-pointer", "-fvisibility=hidden", "-Wall", "-Wextra", "-Wno-unused-parameter"]
let agentCSettings: [CSetting] = [.unsafeFlags(agentFlags), .define("_GNU_SOURCE")]

/// The agent's detector folders (one per detector over `common/`): each is
/// on the header path, so a file includes a neighbour's header by name.
let agentFolders = ["annotate", "common", "crash", "cxx", "hang", "memory", "threads", "cpu", "fds", "thread_leaks", "launch"]
/// The malloc shim's concern folders, likewise.
let shimFolders = ["config", "entry", "find", "guard", "heap", "leak", "quarantine", "released", "report", "stacks"]
/// CFaultlineCore's public headers, a folder per concern under its include/
/// (the same folders as its sources). Each is on the header path of the core
/// and of every C target over it, so a file includes a core header by name;
/// a Swift importer sees them all through include/'s umbrella directory.
let coreHeaderFolders = ["images", "process", "report", "signals"]
/// The core's header folders as seen from a C target beside it in Sources/.
let coreHeaderDirs = coreHeaderFolders.map { "../CFaultlineCore/include/\($0)" }

/// Victims are built unoptimised with frame pointers: their frames are what
/// the scenarios check.
let victimFlags = ["-O0", "-g", "-fno-omit-frame-pointer"]
let victimCSettings: [CSetting] = [.unsafeFlags(victimFlags), .define("_GNU_SOURCE")]
/// Benchmarks carry DWARF 4: Debian 12's valgrind (3.19) cannot read clang's
/// default DWARF 5, and `faultline bench` would lose its valgrind rows.
let benchFlags = ["-O2", "-gdwarf-4"]

let package = Package(
    name: "Faultline",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "faultline", targets: ["faultline"]),
        .library(name: "Faultline", targets: ["Faultline"]),
        .library(name: "FaultlineAgent", targets: ["FaultlineAgent"]),
        /// The injectable agent: `LD_PRELOAD=libFaultlineAgentPreload.so`.
        .library(name: "FaultlineAgentPreload", type: .dynamic, targets: ["CFaultlineAgent", "CFaultlineDylibStubs"]),
        /// The agent's C++ exception describer, dlopened by the agent into
        /// processes that have libstdc++ (the agent links no C++ runtime).
        .library(name: "FaultlineAgentCxx", type: .dynamic, targets: ["CFaultlineAgentCxx", "CFaultlineDylibStubs"]),
        /// The quarantining malloc shim: `LD_PRELOAD=libFaultlineMallocShim.so`.
        .library(name: "FaultlineMallocShim", type: .dynamic, targets: ["CFaultlineMallocShim", "CFaultlineDylibStubs"]),
        /// A library victim-heap loads with dlopen(RTLD_DEEPBIND).
        .library(name: "VictimDeepbind", type: .dynamic, targets: ["victim-deepbind-lib"]),
        .library(name: "VictimDeepbindCxx", type: .dynamic, targets: ["victim-deepbind-cxx-lib"]),
        .library(name: "VictimOwnNew", type: .dynamic, targets: ["victim-own-new-lib"]),
        .library(name: "VictimLateCxx", type: .dynamic, targets: ["victim-late-cxx-lib"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // The one table of FAULTLINE_* variables: read by the agent and the
        // shim, printed by `faultline doctor --options`. No interposers.
        .target(name: "CFaultlineOptions", cSettings: agentCSettings),
        // Async-signal-safe building blocks shared by the agent and the shim,
        // a folder per concern (signals/, report/, images/, process/; see
        // docs/agent.md); every public header in include/.
        .target(
            name: "CFaultlineCore",
            dependencies: ["CFaultlineOptions"],
            cSettings: agentCSettings + coreHeaderFolders.map { .headerSearchPath("include/\($0)") },
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // CFaultlineCore's interposers (set*id, capset, prctl, unshare,
        // setns): apart, so that the core links into a test process.
        .target(name: "CFaultlineInterposers", dependencies: ["CFaultlineCore"], cSettings: agentCSettings + coreHeaderDirs.map { .headerSearchPath($0) }),
        // The suppressions file's parser and messages: the shim reads the
        // file with it, `faultline exec` checks it with it. Depends on
        // nothing, so that the CLI links none of the agent's interposers.
        .target(name: "CFaultlineSuppressions", cSettings: agentCSettings),
        // Only in the LD_PRELOAD libraries: resolves swiftrt.o's runtime
        // references so scripts/drop-swift-runtime-dependency can drop
        // libswiftCore.so from them.
        .target(name: "CFaultlineDylibStubs", cSettings: [.unsafeFlags(benchFlags)]),
        // Agent core: async-signal-safe crash capture, linked or preloaded.
        // All C: a C++ source would have SwiftPM link libstdc++, which costs
        // every process the agent is injected into ~0.9 ms (cxx_runtime.h).
        .target(
            name: "CFaultlineAgent",
            dependencies: ["CFaultlineCore", "CFaultlineInterposers"],
            cSettings: agentCSettings + (agentFolders + coreHeaderDirs).map { .headerSearchPath($0) },
            linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]
        ),
        // The C++ exception detector's describer (what was thrown, its
        // message, nested exceptions): C++ over libstdc++, loaded by the agent
        // only into processes that have libstdc++, or linked beside the agent.
        .target(
            name: "CFaultlineAgentCxx",
            cxxSettings: [.unsafeFlags(agentFlags), .define("_GNU_SOURCE"),
                          .headerSearchPath("../CFaultlineAgent/cxx"), .headerSearchPath("../CFaultlineOptions/include")]
        ),
        // LD_PRELOAD malloc shim: quarantine, scribbling, allocation records.
        .target(
            name: "CFaultlineMallocShim",
            dependencies: ["CFaultlineCore", "CFaultlineInterposers", "CFaultlineSuppressions"],
            exclude: ["shim.map"],
            cSettings: agentCSettings + (shimFolders + coreHeaderDirs).map { .headerSearchPath($0) },
            linkerSettings: [
                .linkedLibrary("dl"), .linkedLibrary("pthread"),
                // Version names for realpath's two wrappers (shim_libc_callers.c).
                .unsafeFlags(["-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/CFaultlineMallocShim/shim.map"], .when(platforms: [.linux])),
            ]
        ),
        // Swift-facing install API over the C agent.
        .target(name: "FaultlineAgent", dependencies: ["CFaultlineAgent"]),
        // Report model, store, symbolicator: no agent, no CLI logic.
        .target(name: "Faultline", dependencies: ["CFaultlineSuppressions", "CFaultlineOptions"]),
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
        .target(
            name: "VictimSupport",
            cSettings: victimCSettings
        ),
        .executableTarget(
            name: "victim-c",
            dependencies: ["VictimSupport"],
            cSettings: victimCSettings,
            linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]
        ),
        .executableTarget(
            name: "victim-swift",
            dependencies: ["FaultlineAgent"],
            // A victim is deliberately unsafe code; Swift 5 mode keeps it short.
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "victim-c-linked",
            dependencies: ["CFaultlineAgent"],
            cSettings: [.unsafeFlags(victimFlags)]
        ),
        .executableTarget(
            name: "victim-cxx",
            dependencies: ["VictimSupport"],
            // Sized deallocation (clang 21's default, said outright): the
            // new-delete-* cases need `delete` to pass the size.
            cxxSettings: [.unsafeFlags(victimFlags + ["-fsized-deallocation"])],
            linkerSettings: [.linkedLibrary("pthread")]
        ),
        // The same C++ cases with the agent linked in (faultline_install).
        .executableTarget(
            name: "victim-cxx-linked",
            dependencies: ["CFaultlineAgent", "CFaultlineAgentCxx"],
            cxxSettings: [.unsafeFlags(victimFlags)],
            linkerSettings: [.linkedLibrary("pthread")]
        ),
        // Replaces operator new(size_t) and delete(void*) only.
        .executableTarget(
            name: "victim-cxx-own-new",
            dependencies: ["VictimSupport"],
            cxxSettings: [.unsafeFlags(victimFlags)],
            linkerSettings: [.linkedLibrary("pthread"), .linkedLibrary("dl")]
        ),
        // Checks that the program runs under `faultline exec` as without it.
        .executableTarget(
            name: "victim-invisible",
            cSettings: victimCSettings
        ),
        .executableTarget(
            name: "victim-heap",
            dependencies: ["VictimSupport"],
            cSettings: victimCSettings,
            linkerSettings: [.linkedLibrary("pthread")]
        ),
        // Allocates with its own (deep-bound) malloc: victim-heap deepbind.
        .target(
            name: "victim-deepbind-lib",
            cSettings: [.unsafeFlags(victimFlags)]
        ),
        // New and delete through libstdc++'s operators (deep-bound): victim-cxx deepbind-cxx.
        .target(
            name: "victim-deepbind-cxx-lib",
            cxxSettings: [.unsafeFlags(victimFlags)]
        ),
        // A C++ library that victim-c loads with dlopen and that throws an
        // exception nobody catches: victim-c late-cxx-uncaught.
        .target(
            name: "victim-late-cxx-lib",
            cxxSettings: [.unsafeFlags(victimFlags)]
        ),
        // Its own global operator new and delete: victim-cxx own-new-library.
        .target(
            name: "victim-own-new-lib",
            cxxSettings: [.unsafeFlags(victimFlags)],
            linkerSettings: [.unsafeFlags(["-Xlinker", "-Bsymbolic-functions"])]
        ),
        // Position-dependent, so that taking malloc's address makes a
        // canonical PLT entry (as in Debian's python3).
        .executableTarget(
            name: "victim-heap-nopie",
            cSettings: [.unsafeFlags(victimFlags + ["-fno-pie"])],
            linkerSettings: [.unsafeFlags(["-Xlinker", "-no-pie"])]
        ),
        .executableTarget(
            name: "victim-hang",
            dependencies: ["VictimSupport"],
            cSettings: victimCSettings,
            linkerSettings: [.linkedLibrary("pthread"), .linkedLibrary("dl")]
        ),
        .executableTarget(
            name: "victim-leak",
            dependencies: ["VictimSupport"],
            cSettings: victimCSettings,
            linkerSettings: [.linkedLibrary("pthread"), .linkedLibrary("dl")]
        ),
        // The resource detectors' victims (cpu, fds, threads, launch).
        .executableTarget(
            name: "victim-resources",
            dependencies: ["VictimSupport"],
            cSettings: victimCSettings,
            linkerSettings: [.linkedLibrary("pthread")]
        ),
        .executableTarget(
            name: "victim-oom",
            dependencies: ["VictimSupport"],
            cSettings: victimCSettings
        ),
        // Benchmarks: programs that print figures; never timed tests.
        .target(name: "BenchSupport", cSettings: [.unsafeFlags(benchFlags)]),
        .executableTarget(
            name: "bench-crash",
            dependencies: ["CFaultlineAgent", "BenchSupport"],
            cSettings: [.unsafeFlags(benchFlags + ["-fno-omit-frame-pointer"]), .define("_GNU_SOURCE")]
        ),
        .executableTarget(
            name: "bench-cxx",
            cxxSettings: [.unsafeFlags(benchFlags)],
            linkerSettings: [.linkedLibrary("pthread"), .linkedLibrary("dl")]
        ),
        .executableTarget(
            name: "bench-shim",
            dependencies: ["BenchSupport"],
            cSettings: [.unsafeFlags(benchFlags), .define("_GNU_SOURCE")],
            linkerSettings: [.linkedLibrary("pthread")]
        ),
        .executableTarget(
            name: "bench-leaks",
            cSettings: [.unsafeFlags(benchFlags), .define("_GNU_SOURCE")],
            linkerSettings: [.linkedLibrary("pthread")]
        ),
        .executableTarget(
            name: "bench-memory",
            dependencies: ["CFaultlineAgent", "BenchSupport"],
            cSettings: [.unsafeFlags(benchFlags), .define("_GNU_SOURCE")]
        ),
        .executableTarget(
            name: "bench-hang",
            dependencies: ["CFaultlineAgent", "BenchSupport"],
            cSettings: [.unsafeFlags(benchFlags), .define("_GNU_SOURCE")]
        ),
        .executableTarget(
            name: "bench-html",
            dependencies: ["Faultline", "FaultlineHarness"]
        ),
        .testTarget(name: "FaultlineTests", dependencies: ["Faultline", "FaultlineHarness"]),
        .testTarget(name: "FaultlineHarnessTests", dependencies: ["Faultline", "FaultlineHarness"]),
        // The C pieces that read untrusted input or build reports, called
        // directly (the core interposes nothing: CFaultlineInterposers).
        .testTarget(name: "CFaultlineUnitTests", dependencies: ["CFaultlineCore", "CFaultlineSuppressions", "CFaultlineOptions", "CHangUnderTest"]),
        // The agent's source files that need no agent (the wait-for graph),
        // built apart so that the C unit tests can call them.
        .target(name: "CHangUnderTest", path: "Tests/CHangUnderTest", cSettings: [.define("_GNU_SOURCE")]),
    ]
)
