#if canImport(Glibc)
import Glibc
#endif

/// glibc's `posix_spawn_file_actions_addchdir_np` and `…_addclosefrom_np`
/// are declared only under `_GNU_SOURCE`, which Swift's Glibc module does not
/// define, so they are looked up at run time (glibc 2.29 / 2.34 and later).
enum SpawnExtensions {
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    typealias AddClosefrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// `posix_spawn_file_actions_addchdir_np`, nil on an older glibc.
    static let addChdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np").map { unsafeBitCast($0, to: AddChdir.self) }
    /// `posix_spawn_file_actions_addclosefrom_np`, nil on an older glibc.
    static let addClosefrom: AddClosefrom? = symbol("posix_spawn_file_actions_addclosefrom_np").map { unsafeBitCast($0, to: AddClosefrom.self) }

    private static func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        guard let handle = dlopen(nil, RTLD_NOW) else { return nil }
        return dlsym(handle, name)
    }
}
