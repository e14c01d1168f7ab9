import CFaultlineCore
import Glibc
import Testing

/// fl_parse_signal, which reads the signal options inside malloc: every
/// spelling the docs promise, and -1 for everything else.
@Suite struct SignalParseTests {
    @Test(arguments: [
        ("12", 12), ("SIGUSR2", SIGUSR2), ("usr2", SIGUSR2), ("SigTerm", SIGTERM), ("0", 0),
        ("SIGRTMIN", __libc_current_sigrtmin()), ("SIGRTMIN+11", __libc_current_sigrtmin() + 11), ("RTMAX-2", __libc_current_sigrtmax() - 2), ("rtmin+0", __libc_current_sigrtmin()),
    ])
    func namesAndNumbers(text: String, signal: Int32) {
        #expect(fl_parse_signal(text) == signal, "\(text)")
    }

    @Test(arguments: ["", "SIG", "USR3", "-1", "65", "99999999999999999999", "__libc_current_sigrtmin()+31", "RTMAX+1", "RTMIN-1", "12x", " 12", "__libc_current_sigrtmin()+"])
    func everythingElseIsMinusOne(text: String) {
        #expect(fl_parse_signal(text) == -1, "'\(text)'")
    }

    @Test func namesRoundTripThroughSignalNames() {
        for sig in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS, SIGUSR1] {
            let name = String(cString: fl_signal_name(sig))
            #expect(fl_parse_signal(name) == sig, "\(name)")
        }
    }

    @Test func theCrashSignalsAreTheHandlersSeven() {
        let list = withUnsafeBytes(of: fl_crash_signals) { Array($0.bindMemory(to: Int32.self)) }
        #expect(list == [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS])
    }
}
