/// The bug classes of the matrix and which class names a tool may give each.
/// Tools name the same bug differently (valgrind's "Invalid write" inside a
/// freed block, Faultline's write_after_free found at reuse, ASan's
/// heap-use-after-free), and the guard-page tools name none (a fault at the
/// instruction, `guard_fault`); glibc names the check that failed, not the
/// bug (`heap_corruption`). A fault at the bad access (`crash`: the victim
/// died of it, the stack at the fault) counts for an overflow or a use
/// after free, as the guard page's does. The rules below are the ones docs/benchmarks.md lists.
public enum DetectClasses {
    /// The stated class folded into the row it counts in.
    public static func family(_ stated: String) -> String {
        switch stated {
        case "write_after_free": return "use_after_free"
        case "heap_buffer_underflow": return "heap_buffer_overflow"
        case "hang_recovered", "deadlock": return "hang"
        case "leak_growth": return "leak"
        default: return stated
        }
    }

    /// The class names that count as catching a bug of `family`.
    public static func accepted(for family: String) -> Set<String> {
        switch family {
        case "double_free", "invalid_free": return ["double_free", "invalid_free", "heap_corruption"]
        case "heap_buffer_overflow": return ["heap_buffer_overflow", "heap_buffer_underflow", "guard_fault", "crash", "heap_corruption"]
        case "use_after_free": return ["use_after_free", "write_after_free", "guard_fault", "crash", "heap_corruption"]
        case "alloc_dealloc_mismatch": return ["alloc_dealloc_mismatch", "heap_corruption"]
        case "leak": return ["leak", "leak_growth"]
        case "crash": return ["crash", "guard_fault", "invalid_access"]
        case "hang": return ["hang", "hang_recovered", "deadlock"]
        default: return [family]
        }
    }

    /// True when `className` catches a bug of `family`.
    public static func accepts(_ row: String, _ className: String) -> Bool {
        accepted(for: row).contains(family(className)) || accepted(for: row).contains(className)
    }
}
