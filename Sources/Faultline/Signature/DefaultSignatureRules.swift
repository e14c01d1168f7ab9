/// The signature rules Faultline ships (`SignatureRules.standard`),
/// printed by `faultline report signature-rules` and documented in
/// docs/export.md. Users add their own with `--signature-rules FILE`.
public enum DefaultSignatureRules {
    /// The rule file's text.
    public static let text = """
        # Faultline's own code: the agent, the malloc shim, the preload libraries.
        image libFaultline*.so
        skip fl_*
        skip shim_*
        skip faultline_*
        skip run_with_altstack
        # Signals and aborts: where the process was ended, not the bug.
        skip raise
        skip abort
        skip __GI_raise
        skip __GI_abort
        skip pthread_kill
        skip __pthread_kill*
        skip kill
        skip tgkill
        skip __restore_rt
        skip __assert_fail
        skip __assert_fail_base*
        skip __assert_perror_fail
        skip __libc_message*
        skip __fortify_fail*
        skip __chk_fail
        skip __stack_chk_fail
        skip malloc_printerr
        # C++ exceptions and terminate.
        skip __cxa_throw
        skip __cxa_rethrow
        skip __cxa_bad_cast
        skip __cxa_bad_typeid
        skip __cxa_call_terminate
        skip __cxa_call_unexpected
        skip std::terminate*
        skip std::__terminate*
        skip __cxxabiv1::*
        skip __gnu_cxx::__verbose_terminate_handler*
        skip std::__throw_*
        skip _Unwind_*
        skip __gxx_personality_v0
        # Swift runtime traps.
        skip Swift._assertionFailure*
        skip Swift._fatalErrorMessage*
        skip Swift.fatalError*
        skip Swift.precondition*
        skip Swift.preconditionFailure*
        skip swift_*
        # Rust panics.
        skip core::panicking::*
        skip std::panicking::*
        skip std::process::abort*
        skip rust_panic*
        skip __rust_*
        # The allocator's entry points: the caller is the bug.
        skip malloc
        skip calloc
        skip realloc
        skip reallocarray
        skip free
        skip cfree
        skip memalign
        skip posix_memalign
        skip aligned_alloc
        skip valloc
        skip pvalloc
        skip malloc_usable_size
        skip operator new*
        skip operator delete*
        skip strdup
        skip strndup
        skip __strdup
        skip __strndup
        # Thread and process entry: the bottom of every stack.
        skip start_thread
        skip clone
        skip clone3
        skip __libc_start_main*
        skip __libc_start_call_main
        skip _start
        # The C library's internals differ between glibc builds; its public
        # functions (memcpy, pthread_mutex_lock, read) are named but the
        # signature goes on to the caller.
        # Unsymbolicated, their offsets differ between those builds too.
        skip _* in libc.so*
        skip ? in libc.so*
        skip ? in libstdc++.so*
        skip ? in libm.so*
        skip ? in libgcc_s.so*
        prefix * in libc.so*
        prefix * in libstdc++.so*
        prefix * in libm.so*
        """
}
