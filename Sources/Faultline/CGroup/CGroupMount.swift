/// One mounted cgroup hierarchy, from `/proc/self/mountinfo`.
public struct CGroupMount: Sendable, Hashable {
    /// Where it is mounted, e.g. `/sys/fs/cgroup/memory`.
    public var mountPoint: String
    /// The hierarchy path shown at the mount point (`/` unless a subtree
    /// was bind-mounted); paths in `/proc/PID/cgroup` are relative to the
    /// hierarchy's root, so this prefix is cut off them.
    public var root: String
    /// v1 or v2.
    public var version: CGroupVersion
    /// v1: the controllers named in the mount options (`memory`, `cpu`, …,
    /// and `name=systemd` style names). v2: the root's `cgroup.controllers`.
    public var controllers: Set<String>
    /// False when mounted read-only.
    public var writable: Bool

    /// Every cgroup mount in `mountinfo` (the text of `/proc/self/mountinfo`).
    /// v2 controllers are read from the mount point's `cgroup.controllers`.
    public static func parse(mountinfo: String) -> [CGroupMount] {
        var out: [CGroupMount] = []
        for line in mountinfo.split(separator: "\n") {
            // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL…] - FSTYPE SOURCE SUPEROPTIONS
            guard let dash = line.range(of: " - ") else { continue }
            let left = line[..<dash.lowerBound].split(separator: " ")
            let right = line[dash.upperBound...].split(separator: " ")
            guard left.count >= 6, right.count >= 3 else { continue }
            let root = unescape(left[3]), point = unescape(left[4])
            let writable = left[5].split(separator: ",").contains("rw")
            let superOptions = right[2].split(separator: ",").map(String.init)
            switch right[0] {
            case "cgroup":
                let known: Set<String> = ["rw", "ro", "relatime", "noatime", "nosuid", "nodev", "noexec", "clone_children", "xattr", "nsdelegate", "noprefix"]
                let controllers = Set(superOptions.filter { !known.contains($0) && !$0.hasPrefix("release_agent=") })
                out.append(CGroupMount(mountPoint: point, root: root, version: .v1, controllers: controllers, writable: writable))
            case "cgroup2":
                let text = CGroupFiles.read(point + "/cgroup.controllers") ?? ""
                let controllers = Set(text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
                out.append(CGroupMount(mountPoint: point, root: root, version: .v2, controllers: controllers, writable: writable))
            default:
                continue
            }
        }
        return out
    }

    /// The cgroup mounts of this process's mount namespace.
    public static func current() -> [CGroupMount] {
        parse(mountinfo: CGroupFiles.read("/proc/self/mountinfo") ?? "")
    }

    /// mountinfo escapes space, tab, newline and backslash as `\ooo`.
    static func unescape(_ field: Substring) -> String {
        guard field.contains("\\") else { return String(field) }
        var bytes: [UInt8] = []
        var u = Array(field.utf8)[...]
        while let b = u.first {
            if b == UInt8(ascii: "\\"), u.count >= 4,
               let n = UInt8(String(decoding: u.dropFirst().prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(n)
                u = u.dropFirst(4)
            } else {
                bytes.append(b)
                u = u.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
