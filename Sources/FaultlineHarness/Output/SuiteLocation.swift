/// Resolves the `--build-dir` and `--scenarios` options the way both
/// `faultline run` and `faultline list` do.
public enum SuiteLocation {
    /// `option` if given, else the directory of the running executable.
    public static func buildDirectory(_ option: String?) -> BuildDirectory {
        option.map(BuildDirectory.init(path:)) ?? .ofRunningExecutable()
    }

    /// `option` if given, else `./Scenarios`, else `Scenarios` in the
    /// package root above the build directory; nil when there is none.
    public static func scenariosDirectory(_ option: String?, build: BuildDirectory) -> String? {
        option ?? build.defaultScenariosDirectory()
    }
}
