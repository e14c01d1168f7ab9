import Foundation

/// Resolves the `--build-dir` and `--scenarios` options the way both
/// `faultline run` and `faultline list` do.
public enum SuiteLocation {
    /// `option` if given, else the directory of the running executable.
    public static func buildDirectory(_ option: String?) -> BuildDirectory {
        option.map(BuildDirectory.init(path:)) ?? .ofRunningExecutable()
    }

    /// Why a `--build-dir` value cannot be the build directory (nil when it
    /// is a folder): run failed every scenario with "not built in …" and
    /// bench every figure.
    public static func problem(buildDirectory path: String) -> String? {
        var isDirectory: ObjCBool = false
        if path.isEmpty { return "--build-dir '' names no folder; pass the folder with the built victims and libraries (e.g. .build/debug)" }
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return "--build-dir \(path): no such folder; pass the folder with the built victims and libraries (e.g. .build/debug)"
        }
        return isDirectory.boolValue ? nil
            : "--build-dir \(path) is not a folder; pass the folder with the built victims and libraries (e.g. .build/debug)"
    }

    /// `option` if given, else `./Scenarios`, else `Scenarios` in the
    /// package root above the build directory; nil when there is none.
    public static func scenariosDirectory(_ option: String?, build: BuildDirectory) -> String? {
        option ?? build.defaultScenariosDirectory()
    }
}
