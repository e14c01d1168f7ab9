#if canImport(Glibc)
import Glibc
#endif

/// A class so frames carry a demangled type name (`Account.withdraw`).
final class Account {
    var owner: String?
    var balances: [Int] = [1, 2, 3]

    @inline(never)
    func ownerName() -> String {
        fputs("victim: force-unwrapping nil\n", stderr)
        return owner!
    }

    @inline(never)
    func balance(at index: Int) -> Int {
        fputs("victim: indexing out of bounds\n", stderr)
        return balances[index]
    }

    @inline(never)
    func close(reason: String) -> Never {
        fputs("victim: calling fatalError\n", stderr)
        fatalError(reason)
    }
}

/// Crash faults in Swift code.
let crashCommands: [VictimCommand] = [
    VictimCommand(name: "force-unwrap-nil", help: "SIGILL/SIGTRAP: force-unwrap a nil Optional") { _ in
        print(Account().ownerName())
    },
    VictimCommand(name: "index-out-of-range", help: "trap: Array index out of range") { _ in
        print(Account().balance(at: 7))
    },
    VictimCommand(name: "fatal-error", help: "trap: fatalError(\"account closed: audit failed\")") { _ in
        Account().close(reason: "account closed: audit failed")
    },
]
