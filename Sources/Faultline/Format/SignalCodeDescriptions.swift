/// Plain-language meanings of `si_code` names, for the formatted report.
public enum SignalCodeDescriptions {
    /// `address` as a report shows it: none for a general-protection fault
    /// (`SI_KERNEL`), whose si_addr is 0 and means nothing.
    public static func shownAddress(_ address: Address?, codeName: String) -> Address? {
        guard let address, !(codeName == "SI_KERNEL" && address.value == 0) else { return nil }
        return address
    }

    /// "address not mapped" for `SEGV_MAPERR`; nil for names without one.
    public static func meaning(of codeName: String) -> String? { table[codeName] }

    /// The meaning of `codeName` for signal `signalName`, where the pair
    /// says more than the code alone.
    public static func meaning(of codeName: String, signal signalName: String) -> String? {
        if codeName == "SI_KERNEL" && (signalName == "SIGSEGV" || signalName == "SIGBUS") {
            // x86-64 reports a general-protection fault (a non-canonical
            // address such as 0x5555555555555555) this way, without si_addr.
            return "general protection fault (e.g. a non-canonical address); the kernel gives no fault address"
        }
        return table[codeName]
    }

    private static let table: [String: String] = [
        "SI_USER": "sent by kill()",
        "SI_KERNEL": "sent by the kernel",
        "SI_QUEUE": "sent by sigqueue()",
        "SI_TIMER": "POSIX timer expired",
        "SI_MESGQ": "message queue state changed",
        "SI_ASYNCIO": "asynchronous I/O completed",
        "SI_SIGIO": "SIGIO queued",
        "SI_TKILL": "sent by tgkill()/raise()",
        "SEGV_MAPERR": "address not mapped",
        "SEGV_ACCERR": "no permission for the mapping",
        "SEGV_BNDERR": "failed address bound check",
        "SEGV_PKUERR": "protection key denied access",
        "BUS_ADRALN": "misaligned address",
        "BUS_ADRERR": "nonexistent physical address (e.g. past the end of a mapped file)",
        "BUS_OBJERR": "object-specific hardware error",
        "BUS_MCEERR_AR": "hardware memory error, action required",
        "BUS_MCEERR_AO": "hardware memory error, action optional",
        "ILL_ILLOPC": "illegal opcode",
        "ILL_ILLOPN": "illegal operand (ud2: a trap, e.g. a Swift runtime check)",
        "ILL_ILLADR": "illegal addressing mode",
        "ILL_ILLTRP": "illegal trap",
        "ILL_PRVOPC": "privileged opcode",
        "ILL_PRVREG": "privileged register",
        "ILL_COPROC": "coprocessor error",
        "ILL_BADSTK": "internal stack error",
        "FPE_INTDIV": "integer divide by zero",
        "FPE_INTOVF": "integer overflow",
        "FPE_FLTDIV": "floating-point divide by zero",
        "FPE_FLTOVF": "floating-point overflow",
        "FPE_FLTUND": "floating-point underflow",
        "FPE_FLTRES": "floating-point inexact result",
        "FPE_FLTINV": "invalid floating-point operation",
        "FPE_FLTSUB": "subscript out of range",
        "TRAP_BRKPT": "breakpoint",
        "TRAP_TRACE": "trace trap",
        "SYS_SECCOMP": "system call denied by seccomp",
    ]
}
