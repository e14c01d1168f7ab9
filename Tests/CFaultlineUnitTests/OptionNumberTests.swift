import CFaultlineOptions
import Glibc
import Testing

/// fl_option_number, which every numeric FAULTLINE_* variable goes
/// through: sizes with K/M/G, ranges, overflow never wrapping.
@Suite(.serialized) struct OptionNumberTests {
    func number(_ id: fl_option_id, _ value: String?) -> (Int32, Int64) {
        let name = fl_option_at(Int32(id.rawValue))!.pointee.name!
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
        defer { unsetenv(name) }
        var n: Int64 = 0
        let r = fl_option_number(id, &n)
        return (r, n)
    }

    @Test func unsetAndEmptyGiveTheDefault() {
        #expect(number(FL_OPT_QUARANTINE_BYTES, nil) == (0, 16 << 20))
        #expect(number(FL_OPT_QUARANTINE_BYTES, "") == (0, 16 << 20))
    }

    @Test func sizesMultiply() {
        #expect(number(FL_OPT_QUARANTINE_BYTES, "4K") == (1, 4096))
        #expect(number(FL_OPT_QUARANTINE_BYTES, "2M") == (1, 2 << 20))
        #expect(number(FL_OPT_QUARANTINE_BYTES, "1gb") == (1, 1 << 30))
        #expect(number(FL_OPT_HANG_SAMPLES, "4K").0 == -1, "a plain int takes no unit")
    }

    @Test func outOfRangeOverflowAndJunkAreRefusedWithTheDefault() {
        for bad in ["18446744073709551617", "99999999999G", "-1", "12abc", " 5", "0x10"] {
            #expect(number(FL_OPT_QUARANTINE_BYTES, bad) == (-1, 16 << 20), "\(bad)")
        }
        #expect(number(FL_OPT_HANG_THRESHOLD_MS, "249") == (-1, 2000))
        #expect(number(FL_OPT_HANG_THRESHOLD_MS, "250") == (1, 250))
    }

    @Test func signalsCountFromRTMIN() {
        #expect(fl_option_default(FL_OPT_SAMPLE_SIGNAL) == Int64(__libc_current_sigrtmin() + 8))
        #expect(fl_option_hi(FL_OPT_SAMPLE_SIGNAL) == Int64(__libc_current_sigrtmax()))
    }
}
