// victim-cxx cases: one uncaught (or deliberately caught) C++ exception per
// subcommand. Each throw happens in a named, non-inlined function so
// scenarios can expect that function in the report's `throw_stack`.
//
// Shared, as a header, by two programs: victim-cxx (does not link the agent:
// the unmodified binary `faultline exec` injects into) and victim-cxx-linked
// (links the agent and calls faultline_install first).
#ifndef VICTIM_CXX_CASES_H
#define VICTIM_CXX_CASES_H

#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <exception>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#define VICTIM_NOINLINE __attribute__((noinline))

namespace acme {
namespace billing {
/// A program's own exception type, in a namespace, deriving from std::exception.
class LedgerError : public std::exception {
public:
    explicit LedgerError(int ledger) : ledger_(ledger) {
        snprintf(text_, sizeof text_, "ledger %d does not balance", ledger);
    }
    const char *what() const noexcept override { return text_; }
    int ledger() const { return ledger_; }

private:
    int ledger_;
    char text_[64];
};
}  // namespace billing
}  // namespace acme

// Keeps the optimiser from seeing that the throws always happen.
static volatile int victim_always = 1;

static void victim_say(const char *what) { fprintf(stderr, "victim: %s\n", what); }

VICTIM_NOINLINE void throw_on_main() {
    victim_say("throwing std::runtime_error on the main thread");
    if (victim_always) throw std::runtime_error("ledger total is negative");
}

VICTIM_NOINLINE void throw_in_thread() {
    victim_say("throwing std::runtime_error on a std::thread");
    if (victim_always) throw std::runtime_error("worker lost its connection");
}

VICTIM_NOINLINE void thread_body() {
    pthread_setname_np(pthread_self(), "cxx-worker");
    throw_in_thread();
}

VICTIM_NOINLINE void escape_thread() {
    std::thread worker(thread_body);
    worker.join();
}

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wexceptions"
VICTIM_NOINLINE void throw_from_noexcept() noexcept {
    victim_say("throwing std::logic_error inside a noexcept function");
    if (victim_always) throw std::logic_error("invariant broken inside a noexcept function");
}
#pragma clang diagnostic pop

VICTIM_NOINLINE void throw_and_catch_once(int i) {
    try {
        if (victim_always) throw std::out_of_range("unrelated, caught");
    } catch (const std::out_of_range &) {
        (void)i;
    }
}

VICTIM_NOINLINE void throw_original() {
    if (victim_always) throw std::runtime_error("original failure, rethrown");
}

VICTIM_NOINLINE void rethrow_from_catch() {
    try {
        throw_original();
    } catch (const std::exception &e) {
        victim_say("caught; other exceptions come and go; then `throw;`");
        // Unrelated throws between the catch and the rethrow: the report
        // must still find the original throw's stack (records are keyed by
        // the exception object, not "last throw").
        for (int i = 0; i < 3; i++) throw_and_catch_once(i);
        throw;
    }
}

VICTIM_NOINLINE void throw_inner_cause() {
    if (victim_always) throw std::runtime_error("disk read failed");
}

VICTIM_NOINLINE void throw_outer_nested() {
    victim_say("throwing a nested exception (std::throw_with_nested)");
    try {
        throw_inner_cause();
    } catch (...) {
        std::throw_with_nested(std::runtime_error("cannot load the ledger"));
    }
}

VICTIM_NOINLINE void throw_ledger_error() {
    victim_say("throwing acme::billing::LedgerError");
    if (victim_always) throw acme::billing::LedgerError(42);
}

VICTIM_NOINLINE void call_terminate_directly() {
    victim_say("calling std::terminate() with no active exception");
    std::terminate();
}

VICTIM_NOINLINE void throw_int() {
    victim_say("throwing int 42");
    if (victim_always) throw 42;
}

VICTIM_NOINLINE void throw_cstring() {
    victim_say("throwing a const char*");
    if (victim_always) throw "plain C string thrown";
}

VICTIM_NOINLINE void throw_std_string() {
    victim_say("throwing a std::string");
    if (victim_always) throw std::string("std::string thrown by value");
}

VICTIM_NOINLINE void throw_double() {
    victim_say("throwing double 2.5");
    if (victim_always) throw 2.5;
}

VICTIM_NOINLINE int read_past_end() {
    victim_say("std::vector::at past the end (the throw is inside libstdc++)");
    std::vector<int> v(3);
    return v.at(7);
}

VICTIM_NOINLINE int throw_in_async_task() {
    if (victim_always) throw std::runtime_error("task failed on a worker thread");
    return 0;
}

VICTIM_NOINLINE int wait_for_task() {
    victim_say("std::async task throws; future.get() rethrows it on the main thread");
    std::future<int> f = std::async(std::launch::async, throw_in_async_task);
    return f.get();  // std::rethrow_exception here, outside any try
}

VICTIM_NOINLINE void throw_and_catch_early() {
    try {
        throw std::runtime_error("caught early; its object is freed");
    } catch (const std::exception &) {
    }
}

VICTIM_NOINLINE void rethrow_made_exception_ptr() {
    victim_say("an exception is thrown and caught; then std::make_exception_ptr builds one (at the freed one's address) and std::rethrow_exception lets it escape");
    throw_and_catch_early();
    std::exception_ptr p = std::make_exception_ptr(std::runtime_error("built by make_exception_ptr, never thrown"));
    std::rethrow_exception(p);
}

static volatile int victim_stop_noise;

VICTIM_NOINLINE void noise_thread_body(int index) {
    char name[16];
    snprintf(name, sizeof name, "thrower-%d", index);
    pthread_setname_np(pthread_self(), name);
    while (!victim_stop_noise) throw_and_catch_once(index);
}

VICTIM_NOINLINE void throw_among_throwers() {
    // Three threads throw and catch as fast as they can (their records
    // churn the whole time); then main throws one that nobody catches.
    std::vector<std::thread> threads;
    for (int i = 0; i < 3; i++) threads.emplace_back(noise_thread_body, i);
    usleep(100000);
    victim_say("three threads throw and catch; main throws uncaught");
    if (victim_always) throw std::runtime_error("thrown while other threads throw");
}

VICTIM_NOINLINE char *allocate_too_much() {
    victim_say("new char[1 << 62]: operator new throws std::bad_alloc");
    static volatile size_t huge = (size_t)1 << 62;
    return new char[huge];
}

[[noreturn]] void own_terminate_handler() {
    victim_say("the program's own terminate handler ran");
    abort();
}

[[noreturn]] VICTIM_NOINLINE void crashing_terminate_handler() {
    victim_say("the program's own terminate handler dereferences NULL");
    static int *volatile nowhere = nullptr;
    *nowhere = 1;  // the crash under test
    abort();
}

VICTIM_NOINLINE void throw_with_crashing_handler() {
    std::set_terminate(crashing_terminate_handler);
    victim_say("crashing terminate handler set; throwing std::runtime_error");
    if (victim_always) throw std::runtime_error("thrown with a terminate handler that crashes");
}

VICTIM_NOINLINE void throw_with_own_handler() {
    // Set after the agent is installed: the agent must still report first
    // and then run this handler.
    std::set_terminate(own_terminate_handler);
    victim_say("own terminate handler set; throwing std::runtime_error");
    if (victim_always) throw std::runtime_error("thrown with the program's own terminate handler");
}

/// Throws and catches `count` exceptions `depth` calls deep; no report may
/// come of it. Prints how many were caught.
VICTIM_NOINLINE int throw_catch_at(int depth) {
    if (depth > 0) {
        int r = throw_catch_at(depth - 1);
        __asm__ volatile("" : "+r"(r));  // no tail call: the frames stay
        return r + 1;
    }
    if (victim_always) throw std::runtime_error("caught in normal operation");
    return 0;
}

VICTIM_NOINLINE long catch_loop(long count, int depth) {
    long caught = 0;
    for (long i = 0; i < count; i++) {
        try {
            throw_catch_at(depth);
        } catch (const std::runtime_error &) {
            caught++;
        }
    }
    return caught;
}

// --- an uncaught exception with little stack left ---------------------------

/// Bytes of its stack the small-stack thread leaves unused before throwing.
static size_t victim_small_stack_left = 12 * 1024;

/// The lowest address of the calling thread's stack.
static char *victim_stack_low() {
    pthread_attr_t a;
    void *lo = nullptr;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &a) != 0) abort();
    pthread_attr_getstack(&a, &lo, &size);
    pthread_attr_destroy(&a);
    return (char *)lo;
}

VICTIM_NOINLINE void throw_with_little_stack() {
    if (victim_always) throw std::runtime_error("thrown near the end of a small thread stack");
}

/// Recurses until less than `victim_small_stack_left` bytes of the stack
/// remain below this frame, then throws; nothing catches it.
VICTIM_NOINLINE int recurse_then_throw(char *low, int depth) {
    volatile char pad[512];
    pad[0] = (char)depth;
    char *here = (char *)__builtin_frame_address(0);
    if ((size_t)(here - low) < victim_small_stack_left) {
        throw_with_little_stack();
        return 0;
    }
    int r = recurse_then_throw(low, depth + 1);
    __asm__ volatile("" : "+r"(r));  // no tail call: the frames stay
    return r + pad[0];
}

static void *small_stack_body(void *) {
    pthread_setname_np(pthread_self(), "small-stack");
    // Said before recursing: stdio on an unbuffered stderr takes 8 KiB of stack.
    fprintf(stderr, "victim: a thread with a 64 KiB stack recurses until %zu bytes are left, then throws std::runtime_error\n",
            victim_small_stack_left);
    recurse_then_throw(victim_stack_low(), 0);
    return nullptr;
}

/// A thread created with a 64 KiB stack (pthread_attr_setstacksize) recurses
/// until `left` bytes remain, then throws uncaught: std::terminate runs with
/// that little stack.
VICTIM_NOINLINE void throw_on_small_stack(const char *left) {
    if (left) victim_small_stack_left = (size_t)strtoul(left, nullptr, 0);
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 64 * 1024);
    pthread_t t;
    if (pthread_create(&t, &a, small_stack_body, nullptr) != 0) abort();
    pthread_join(t, nullptr);
}

// --- a throw while another thread holds the dynamic linker's lock ----------

static pthread_barrier_t victim_loader_locked;
/// How long the lock-holder keeps the lock, in ms; -1: for ever.
static long victim_loader_hold_ms = -1;
/// Set by the lock-holder just before it lets go of the lock.
static volatile int victim_loader_releasing;

/// Called by dl_iterate_phdr, which holds glibc's loader lock
/// (dl_load_write_lock) around its callbacks: parks with the lock held.
static int hold_loader_lock(struct dl_phdr_info *, size_t, void *) {
    pthread_barrier_wait(&victim_loader_locked);  // main may throw now
    if (victim_loader_hold_ms < 0)
        for (;;) pause();
    struct timespec left = {victim_loader_hold_ms / 1000, (victim_loader_hold_ms % 1000) * 1000000};
    while (nanosleep(&left, &left) == -1 && errno == EINTR) {
    }
    __atomic_store_n(&victim_loader_releasing, 1, __ATOMIC_SEQ_CST);
    return 1;  // stop iterating: dl_iterate_phdr lets go of the lock
}

static void *loader_lock_holder(void *) {
    pthread_setname_np(pthread_self(), "lock-holder");
    dl_iterate_phdr(hold_loader_lock, nullptr);
    return nullptr;
}

static long victim_ms_since(const struct timespec &t0) {
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (long)(t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
}

/// The main thread's first throw: no unwinder has walked this function
/// before, so a walker with a per-function cache has to decode it now.
VICTIM_NOINLINE void throw_never_unwound_before() {
    if (victim_always) throw std::runtime_error("thrown while the loader lock is held");
}

/// A thread holds the dynamic linker's lock (parked inside a dl_iterate_phdr
/// callback, for `hold` ms or for ever) while the main thread throws and
/// catches an exception. libstdc++'s own throw does not need that lock
/// (libgcc finds unwind tables with _dl_find_object), so the catch comes at
/// once: the program prints how long it took and whether the lock was still
/// held then, and returns 0. With `escape` (and a bounded hold) it waits for
/// the holder to let go and rethrows the caught exception uncaught, so a
/// report shows the throw site recorded while the lock was held.
VICTIM_NOINLINE int throw_while_loader_locked(const char *hold, bool escape) {
    if (hold && strcmp(hold, "never") != 0) victim_loader_hold_ms = atol(hold);
    if (escape && victim_loader_hold_ms < 0) {
        fprintf(stderr, "victim: throw-loader-locked escape needs a bounded hold (MS)\n");
        return 2;
    }
    pthread_barrier_init(&victim_loader_locked, nullptr, 2);
    pthread_t holder;
    if (pthread_create(&holder, nullptr, loader_lock_holder, nullptr) != 0) abort();
    pthread_barrier_wait(&victim_loader_locked);
    if (victim_loader_hold_ms < 0)
        victim_say("thread 'lock-holder' holds the dynamic linker's lock for ever; throwing and catching std::runtime_error");
    else
        fprintf(stderr, "victim: thread 'lock-holder' holds the dynamic linker's lock for %ld ms; throwing and catching std::runtime_error\n",
                victim_loader_hold_ms);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    std::exception_ptr caught;
    try {
        throw_never_unwound_before();
    } catch (const std::runtime_error &e) {
        long ms = victim_ms_since(t0);
        bool held = !__atomic_load_n(&victim_loader_releasing, __ATOMIC_SEQ_CST);
        printf("victim: caught \"%s\" %ld ms after the throw, %s\n", e.what(), ms,
               held ? "while the lock was still held" : "after the lock was released");
        fflush(stdout);
        if (escape) caught = std::current_exception();
    }
    // A holder parked for ever stays parked; returning from main ends it.
    if (victim_loader_hold_ms >= 0) pthread_join(holder, nullptr);
    if (escape) {
        victim_say("the lock is free again; rethrowing the caught exception, uncaught");
        std::rethrow_exception(caught);
    }
    return 0;
}

static int victim_usage(const char *self) {
    fprintf(stderr,
            "usage: %s COMMAND\n"
            "  throw-main        std::runtime_error escapes main\n"
            "  throw-thread      std::runtime_error escapes a std::thread\n"
            "  noexcept-throw    a noexcept function throws std::logic_error\n"
            "  rethrow           `throw;` from a catch block (original stack kept)\n"
            "  nested            std::throw_with_nested; the inner message is reported\n"
            "  custom-type       acme::billing::LedgerError (derives from std::exception)\n"
            "  terminate         std::terminate() with no active exception\n"
            "  throw-int         throw 42\n"
            "  throw-cstring     throw \"...\" (const char*)\n"
            "  throw-string      throw std::string\n"
            "  throw-double      throw 2.5\n"
            "  out-of-range      std::vector::at throws from inside libstdc++\n"
            "  bad-alloc         operator new fails: std::bad_alloc (named without __cxa_demangle)\n"
            "  busy-threads      main throws uncaught while three threads throw and catch\n"
            "  future            std::async task throws; future.get() rethrows on main\n"
            "  own-terminate     the program sets its own terminate handler, then throws\n"
            "  crashing-terminate  the program's own terminate handler segfaults after a throw\n"
            "  make-exception-ptr  throw and catch, then rethrow a std::make_exception_ptr uncaught\n"
            "  small-stack [LEFT] a thread with a 64 KiB stack recurses until LEFT bytes (12288) remain, then throws uncaught\n"
            "  throw-loader-locked [MS|never] [escape]  a thread holds the dynamic linker's lock (MS ms, default for ever) while main\n"
            "                    throws and catches; exits 0 (escape, with MS: then rethrows it uncaught once the lock is free)\n"
            "  catch-loop [N] [DEPTH]  throw and catch N times (default 100000, depth 8); exits 0\n",
            self);
    return 2;
}

static int victim_main(int argc, char **argv) {
    if (argc < 2) return victim_usage(argv[0]);
    const char *c = argv[1];
    if (!strcmp(c, "throw-main")) throw_on_main();
    else if (!strcmp(c, "throw-thread")) escape_thread();
    else if (!strcmp(c, "noexcept-throw")) throw_from_noexcept();
    else if (!strcmp(c, "rethrow")) rethrow_from_catch();
    else if (!strcmp(c, "nested")) throw_outer_nested();
    else if (!strcmp(c, "custom-type")) throw_ledger_error();
    else if (!strcmp(c, "terminate")) call_terminate_directly();
    else if (!strcmp(c, "throw-int")) throw_int();
    else if (!strcmp(c, "throw-cstring")) throw_cstring();
    else if (!strcmp(c, "throw-string")) throw_std_string();
    else if (!strcmp(c, "throw-double")) throw_double();
    else if (!strcmp(c, "out-of-range")) return read_past_end();
    else if (!strcmp(c, "bad-alloc")) return allocate_too_much() != nullptr;
    else if (!strcmp(c, "own-terminate")) throw_with_own_handler();
    else if (!strcmp(c, "crashing-terminate")) throw_with_crashing_handler();
    else if (!strcmp(c, "future")) return wait_for_task();
    else if (!strcmp(c, "busy-threads")) throw_among_throwers();
    else if (!strcmp(c, "make-exception-ptr")) rethrow_made_exception_ptr();
    else if (!strcmp(c, "small-stack")) throw_on_small_stack(argc > 2 ? argv[2] : nullptr);
    else if (!strcmp(c, "throw-loader-locked")) return throw_while_loader_locked(argc > 2 ? argv[2] : nullptr, argc > 3 && !strcmp(argv[3], "escape"));
    else if (!strcmp(c, "catch-loop")) {
        long n = argc > 2 ? atol(argv[2]) : 100000;
        int depth = argc > 3 ? atoi(argv[3]) : 8;
        long caught = catch_loop(n, depth);
        printf("victim: caught %ld of %ld exceptions\n", caught, n);
        return caught == n ? 0 : 1;
    } else {
        fprintf(stderr, "%s: unknown command '%s'\n", argv[0], c);
        return victim_usage(argv[0]);
    }
    fprintf(stderr, "victim: the fault did not happen\n");
    return 1;
}

#endif
