import Faultline
import Testing

/// The name rule of `RustSymbolName`, on names llvm-symbolizer (the Swift
/// toolchain's, LLVM 21; Debian's LLVM 14 gives the same) printed for real
/// builds: Scenarios/real-programs/rust/rust_victim.rs built by rustc 1.95
/// (`rustc -O -g -C panic=abort`, legacy mangling for the crate's own code
/// and the generic code it instantiates, v0 for the precompiled standard
/// library, and the whole build again with `-C symbol-mangling-version=v0`),
/// and a C++ file built by the toolchain's clang++ with functions named
/// like a Rust hash.
@Suite struct RustSymbolNameTests {
    /// (what llvm-symbolizer printed, what Rust's backtrace prints). The
    /// first four are the very names `RUST_BACKTRACE=full` printed for the
    /// same frames, hash dropped (as `RUST_BACKTRACE=1` does); the others
    /// follow rustc-demangle's escapes.
    static let legacy: [(String, String)] = [
        ("rust_victim::panic_now::h16c85b743ba896e0", "rust_victim::panic_now"),
        ("core::ops::function::FnOnce::call_once::h7ed85f0a814e4488", "core::ops::function::FnOnce::call_once"),
        ("std::sys::backtrace::__rust_begin_short_backtrace::h45287042f02a1645", "std::sys::backtrace::__rust_begin_short_backtrace"),
        ("std::rt::lang_start::_$u7b$$u7b$closure$u7d$$u7d$::hffc7a95341ec643e (.llvm.7269854997726810908)",
         "std::rt::lang_start::{{closure}}"),
        ("_$LT$std..sync..mpmc..Sender$LT$T$GT$$u20$as$u20$core..clone..Clone$GT$::clone::h34595400dd1038d8",
         "<std::sync::mpmc::Sender<T> as core::clone::Clone>::clone"),
        ("std::sync::mpmc::counter::Sender$LT$C$GT$::acquire::hf9ccd6744d68b6c6", "std::sync::mpmc::counter::Sender<C>::acquire"),
        ("core::ptr::drop_in_place$LT$std..thread..lifecycle..spawn_unchecked$LT$rust_victim..threads_then_panic..$u7b$$u7b$closure$u7d$$u7d$..$u7b$$u7b$closure$u7d$$u7d$$C$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$::h6f6dd9d8811139f0",
         "core::ptr::drop_in_place<std::thread::lifecycle::spawn_unchecked<rust_victim::threads_then_panic::{{closure}}::{{closure}},()>::{{closure}}>"),
    ]

    @Test(arguments: legacy)
    func legacyNamesLoseHashAndEscapes(symbolizer: String, rust: String) {
        #expect(RustSymbolName.display(symbolizer) == rust)
    }

    /// v0 names come out of llvm-symbolizer as Rust prints them.
    @Test(arguments: [
        "core::ptr::drop_in_place::<addr2line::Context<gimli::read::endian_slice::EndianSlice<gimli::endianity::LittleEndian>>>",
        "std::panicking::begin_panic::<&str>::{closure#0}",
        "<fn() as core::ops::function::FnOnce<()>>::call_once",
        "rust_victim::panic_now",
    ])
    func v0NamesAreLeftAlone(name: String) {
        #expect(RustSymbolName.display(name) == name)
    }

    /// C++ functions named `h` and 16 hex digits keep their names: a C++
    /// function's name ends in its parameter list
    /// (`_ZN2ns17h0123456789abcdefEv`, not `…E`).
    @Test(arguments: [
        "ns::h0123456789abcdef()",
        "void ns::h0123456789abcdef<int>(int)",
        "ns::Rust$LT$Like::h0123456789abcdef()",
    ])
    func cxxNamesEndingLikeAHashAreLeftAlone(name: String) {
        #expect(RustSymbolName.display(name) == name)
    }

    /// Other names frames carry: C, Swift, libc, unresolved.
    @Test(arguments: ["victim_null_deref", "__libc_start_main", "Account.ownerName() -> String", "main", "std::terminate()"])
    func otherNamesAreLeftAlone(name: String) {
        #expect(RustSymbolName.display(name) == name)
    }
}
