import Faultline
import Testing

@Suite struct DetectorSelectionTests {
    @Test func parsesKnownNamesAndAll() throws {
        #expect(try DetectorSelection(parsing: "crash, hang").names == ["crash", "hang"])
        #expect(try DetectorSelection(parsing: "crash,crash").environmentValue == "crash")
        #expect(try DetectorSelection(parsing: "all").names == DetectorSelection.known)
        #expect(try DetectorSelection(parsing: "all").environmentValue == "all")
        #expect(try DetectorSelection(parsing: DetectorSelection.known.reversed().joined(separator: ",")).environmentValue == "all")
        #expect(try !DetectorSelection(parsing: "crash,memory").needsShim)
        #expect(try DetectorSelection(parsing: "leaks").needsShim)
        #expect(try DetectorSelection(parsing: "use_after_free").needsShim)
    }

    @Test func namesTheBadEntry() {
        #expect(throws: DetectorSelectionError(entry: "oom", list: "crash,oom")) { try DetectorSelection(parsing: "crash,oom") }
        #expect(throws: DetectorSelectionError.self) { try DetectorSelection(parsing: "crash,,hang") }
        let e = DetectorSelectionError(entry: "oom", list: "crash,oom")
        #expect(e.description == "--detectors 'crash,oom' has unknown detector 'oom'; valid: crash, cxx_exception, hang, memory, cpu, fds, threads, launch, use_after_free, leaks (or all)")
    }
}
