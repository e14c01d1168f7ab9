// victim-cxx small-altstack-callback-fault [SIZE]: an uncaught exception on
// a main thread whose alternate stack is a small one of its own (8 KiB, or
// SIZE bytes), with a crash callback that faults. The terminate report is
// written without a signal, so the thread's alternate stack is still on when
// the callback faults: the kernel delivers that SIGSEGV at the top of the
// small stack, and the crash handler must move to a stack of its own before
// writing the recrash report (a signal's report turns the alternate stack
// off first and never re-enters there).
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <stdexcept>

namespace {

int *volatile g_nowhere;

// Registered as the agent's crash callback: faults while the report is written.
__attribute__((noinline)) void faulting_callback(void *, void *) { *g_nowhere = 7; }

// An alternate stack of `bytes` at the top of an mmap'd region with a guard
// page below, so outgrowing it faults at once.
void install_altstack(size_t bytes) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE), size = (bytes + page - 1) & ~(page - 1);
    char *p = (char *)mmap(0, size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED || mprotect(p, page, PROT_NONE) != 0) { perror("victim: mmap"); exit(2); }
    stack_t ss = {};
    ss.ss_sp = p + page + size - bytes;
    ss.ss_size = bytes;
    if (sigaltstack(&ss, 0) != 0) { perror("victim: sigaltstack"); exit(2); }
}

__attribute__((noinline)) void throw_with_faulting_callback() {
    throw std::runtime_error("thrown with a crash callback that faults");
}

}  // namespace

/// Runs `small-altstack-callback-fault [SIZE]`; does not return.
int victim_small_altstack_callback_main(int argc, char **argv) {
    size_t bytes = argc >= 3 ? strtoul(argv[2], 0, 0) : 8192;
    typedef void (*set_cb_fn)(void (*)(void *, void *), void *);
    set_cb_fn set_cb = (set_cb_fn)dlsym(RTLD_DEFAULT, "faultline_set_crash_callback");
    if (!set_cb) { fprintf(stderr, "victim: no agent loaded; nothing to crash inside\n"); return 3; }
    install_altstack(bytes);
    set_cb(faulting_callback, 0);
    fprintf(stderr, "victim: throwing on a main thread with an alternate stack of %zu bytes and a crash callback that faults\n", bytes);
    throw_with_faulting_callback();
    return 0;
}
