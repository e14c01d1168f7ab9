// Start-up and shut-down: options, stepping aside for another allocator,
// preallocation, fork handlers, and the quarantine check at exit.
#include "tool_log.h"
#include "shim_arena.h"
#include "shim_config.h"
#include "shim_depot.h"
#include "shim_describe.h"
#include "shim_exit_check.h"
#include "shim_redzone.h"
#include "shim_guard.h"
#include "shim_glibc.h"
#include "shim_heap.h"
#include "shim_live.h"
#include "shim_lookup.h"
#include "shim_main_bounds.h"
#include "shim_leak.h"
#include "shim_leak_ended.h"
#include "shim_leak_signal.h"
#include "shim_quarantine.h"
#include "shim_real.h"
#include "shim_report.h"
#include "shim_saferead.h"
#include "shim_stack.h"
#include "shim_stack_cache.h"
#include "shim_suppress.h"
#include "shim_thread.h"
#include "page_size.h"
#include "report_file.h"
#include "sigsafe.h"
#include "unwinder.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// Runtimes and preloads that bring their own allocator (or track it).
static const char *const k_foreign[] = {
    "libasan", "libtsan", "liblsan", "libmsan", "libhwasan", "libclang_rt.asan", "libclang_rt.tsan",
    "libclang_rt.msan", "libclang_rt.hwasan", "libclang_rt.lsan", "libclang_rt.scudo", "libscudo",
    "libtcmalloc", "libjemalloc", "libmimalloc", "libsnmalloc", "librpmalloc", "libhoard",
    "libtbbmalloc_proxy", "libc_malloc_debug", "vgpreload_", "libefence", "libduma",
    "libheaptrack_preload",
};

typedef struct foreign_ctx { char name[256]; } foreign_ctx;

static int find_foreign(struct dl_phdr_info *info, size_t size, void *vctx) {
    foreign_ctx *c = vctx;
    const char *path = info->dlpi_name;
    if (!path || !*path) return 0;
    const char *base = path;
    for (const char *p = path; *p; p++) if (*p == '/') base = p + 1;
    for (unsigned i = 0; i < sizeof k_foreign / sizeof k_foreign[0]; i++) {
        if (fl_startswith(base, k_foreign[i])) {
            fl_strlcpy(c->name, base, sizeof c->name);
            return 1;
        }
    }
    return 0;
}

// Returns 1 and names the reason when another allocator is in charge.
static int someone_else_allocates(char *why, size_t cap) {
    foreign_ctx c = {{0}};
    if (dl_iterate_phdr(find_foreign, &c)) {
        size_t n = fl_strlcpy(why, c.name, cap);
        fl_strlcpy(why + n, " is loaded", cap - n);
        return 1;
    }
    // Generic check: malloc must resolve to this library (through the
    // executable's PLT entry for it, if it has one: Debian's python3).
    Dl_info theirs;
    void *m = shim_lookup(RTLD_DEFAULT, "malloc");
    const struct link_map *mine = shim_object_of((void *)&someone_else_allocates), *them = shim_object_of(m);
    if (mine && them && mine != them && dladdr(m, &theirs)) {
        size_t n = fl_strlcpy(why, "malloc resolves to ", cap);
        fl_strlcpy(why + n, theirs.dli_fname ? theirs.dli_fname : "another object", cap - n);
        return 1;
    }
    return 0;
}

static void say(const char *a, const char *b) {
    char line[512];
    size_t n = fl_strlcpy(line, a, sizeof line);
    n += fl_strlcpy(line + n, b, sizeof line - n);
    if (n < sizeof line - 1) line[n++] = '\n';
    fl_log_write(line, n);
}

static void before_fork(void) {
    // The forking thread's collected frees go into the ring first, where
    // the child counts them as inherited (shim_quarantine_after_fork_child).
    if (shim_mode == SHIM_MODE_DETECT) shim_quarantine_flush_thread();
    shim_leak_world_before_fork();
    shim_report_lock();
    shim_quarantine_lock();
    shim_live_lock_all();
    shim_arena_lock_all();
}

static void after_fork_parent(void) {
    shim_arena_unlock_all();
    shim_live_unlock_all();
    shim_quarantine_unlock();
    shim_report_unlock();
    shim_leak_world_after_fork_parent();
}

static void after_fork_child(void) {
    shim_arena_unlock_all();
    shim_live_unlock_all();
    shim_quarantine_unlock();
    shim_report_unlock();
    shim_leak_world_after_fork_child();
    shim_thread_after_fork();
    shim_saferead_after_fork();
    shim_quarantine_after_fork_child();
    shim_live_after_fork_child();  // the parent's blocks are the parent's to report
    shim_leak_after_fork_child();
    shim_leak_signal_after_fork_child();
    shim_leak_helper_after_fork_child();
    shim_report_after_fork_child();
    shim_suppress_after_fork_child();
    fl_report_reseed();
}

static pthread_key_t g_exit_key;
static int shim_exit_checked;  // shim_exit_checks ran in this process

// Zeroes the 32 KiB of stack just below the caller's frame, where the
// thread's last calls went.
__attribute__((noinline)) static void zero_below(void) {
    char junk[32768];
    explicit_bzero(junk, sizeof junk);
}

// Clears the dead part of an exiting thread's stack, below this frame.
// glibc keeps a finished thread's stack mapped for its next thread, and a
// leak check reads every writable mapping: stale copies of pointers in that
// thread's dead frames (every pointer malloc returns passes through the
// shim's own frames) kept a block the thread lost "still reachable", or not,
// depending only on how deep later calls on that thread happened to go
// (leaks.main-exits-first lost its 77-byte leak to a frame-layout change in
// the shim). The 32 KiB below this frame are zeroed; the rest goes back to
// the kernel (MADV_DONTNEED: zero pages if the stack is used again, nothing
// faulted in). Only with leak tracking on.
static void scrub_dead_stack(void) {
    if (!shim_cfg.leak_tracking || !shim_thread_bounds()) return;
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    if (here <= shim_self.stack_lo + 65536 || here >= shim_self.stack_hi) return;  // not on its own stack, or too little of it
    zero_below();
    size_t page = fl_page_size();
    uintptr_t lo = (shim_self.stack_lo + page - 1) & ~(uintptr_t)(page - 1);
    uintptr_t hi = (here - 36864) & ~(uintptr_t)(page - 1);
    if (hi > lo) madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

// Thread exit: hand the thread's collected frees to the quarantine, and
// take later frees of this thread (other keys' destructors) one by one.
static void thread_exiting(void *unused) {
    shim_self.batch_off = 1;
    shim_quarantine_flush_thread();
    shim_quarantine_thread_end();
    shim_arena_thread_exit();
    shim_stack_cache_thread_exit();
    // Its stack (the descriptor with its argument and result included) is
    // no root once it has ended (shim_leak_ended.h).
    if (shim_cfg.leak_tracking && shim_thread_bounds() && shim_tid() != (uint32_t)getpid())
        shim_leak_thread_ended(shim_self.stack_lo, shim_self.stack_hi, (uintptr_t)pthread_self(), shim_tid());
    scrub_dead_stack();
}

/// Registers the calling thread for thread_exiting (once per thread).
void shim_init_watch_thread(void) {
    // Before the constructor there is no key yet: try again later.
    if (shim_self.exit_watched || !__atomic_load_n(&shim_ready, __ATOMIC_ACQUIRE)) return;
    shim_self.exit_watched = 1;
    pthread_setspecific(g_exit_key, (void *)1);
    shim_quarantine_thread_start();
}

static void step_aside(const char *why) {
    if (shim_next_resolve() != 0) {
        say("faultline: malloc shim cannot find the next allocator to pass through to; staying active: ", dlerror() ? dlerror() : "dlsym failed");
        return;
    }
    if (why) say("faultline: malloc shim stepping aside (passing allocations through): ", why);
    __atomic_store_n(&shim_mode, SHIM_MODE_PASS, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void shim_init(void) {
    shim_self.depth++;  // allocations made while starting up are not recorded
    shim_main_bounds_fill();
    shim_stack_resolve();
    shim_config_load();
    shim_cxx_init();
    shim_libc_callers_init();
    char why[512];
    if (!shim_cfg.detect) {
        step_aside(0);  // not asked for: silent
    } else if (someone_else_allocates(why, sizeof why)) {
        step_aside(why);
    }
    if (shim_mode == SHIM_MODE_DETECT) {
        int q = shim_quarantine_init(shim_cfg.quarantine_bytes, shim_cfg.quarantine_count);
        if (q < 0) say("faultline: malloc shim could not reserve its quarantine; ", "freed blocks are released at once");
        if (q > 0)
            say("faultline: malloc shim: FAULTLINE_QUARANTINE_BYTES leaves no room for a block beside the quarantine's own ring; ",
                "freed blocks are released at once (give at least 4K to hold any, or 0 to say so)");
        if (shim_cfg.stacks && shim_depot_init(shim_cfg.depot_bytes) != 0) {
            say("faultline: malloc shim could not reserve its stack depot; ", "allocation stacks are off");
            shim_cfg.stacks = 0;
        }
        if (shim_cfg.stacks) shim_stack_init(shim_cfg.unwinder);
        fl_unwinder_init();
        shim_saferead_init();
        shim_describe_init();
        shim_report_init();
        pthread_atfork(before_fork, after_fork_parent, after_fork_child);
        if (pthread_key_create(&g_exit_key, thread_exiting) != 0) shim_self.batch_off = 1;
        shim_live_on = shim_cfg.leak_tracking;
        shim_glibc_configure();
        shim_suppress_load(shim_cfg.suppressions);
        if (shim_cfg.guard && shim_guard_init(shim_cfg.guard, shim_cfg.guard_slots, shim_cfg.guard_left) != 0) {
            say("faultline: malloc shim could not reserve the guarded range (FAULTLINE_GUARD); ", "guard pages are off");
            shim_cfg.guard = 0;
        }
        shim_ready = 1;
        shim_leak_init();
    }
    shim_self.depth--;
}

// Under the statistics: one line per suppression that suppressed heap
// errors (leak suppressions count blocks in the leak report instead).
static void print_suppressed(void) {
    for (int i = 0; i < shim_suppress_count(); i++) {
        uint64_t hits = shim_suppress_hits(i);
        if (!hits) continue;
        char line[512];
        size_t n = fl_strlcpy(line, "faultline: malloc shim: suppressed ", sizeof line - 1);
        n += fl_fmt_u64(line + n, hits);
        n += fl_strlcpy(line + n, " error(s) with ", sizeof line - 1 - n);
        n += fl_strlcpy(line + n, fl_supp_kind_name(shim_suppress_kind_of(i)), sizeof line - 1 - n);
        n += fl_strlcpy(line + n, ":", sizeof line - 1 - n);
        n += fl_strlcpy(line + n, shim_suppress_pattern(i), sizeof line - 1 - n);
        line[n++] = '\n';
        fl_log_write(line, n);
    }
}

// FAULTLINE_SHIM_STATS=1: one line of figures on stderr at exit, then the
// suppressed errors.
static void print_stats(void) {
    shim_quarantine_stats q;
    shim_quarantine_usage(&q);
    char line[512];
    size_t n = fl_strlcpy(line, "faultline: malloc shim: quarantine peak ", sizeof line);
    n += fl_fmt_u64(line + n, q.peak_bytes);
    n += fl_strlcpy(line + n, " bytes in ", sizeof line - n);
    n += fl_fmt_u64(line + n, q.peak_count);
    n += fl_strlcpy(line + n, " blocks (ring ", sizeof line - n);
    n += fl_fmt_u64(line + n, q.ring_bytes);
    n += fl_strlcpy(line + n, " bytes), released ", sizeof line - n);
    n += fl_fmt_u64(line + n, q.released);
    n += fl_strlcpy(line + n, "; stack depot ", sizeof line - n);
    n += fl_fmt_u64(line + n, shim_depot_used());
    n += fl_strlcpy(line + n, " bytes, ", sizeof line - n);
    n += fl_fmt_u64(line + n, shim_depot_dropped());
    n += fl_strlcpy(line + n, " stacks dropped; arena ", sizeof line - n);
    n += fl_fmt_u64(line + n, shim_arena_committed());
    n += fl_strlcpy(line + n, " bytes writable, ", sizeof line - n);
    n += fl_fmt_u64(line + n, shim_arena_reclaimed_bytes());
    n += fl_strlcpy(line + n, " given back to the kernel", sizeof line - n);
    // The frame-pointer walks' memo, and libunwind's stack cache (both
    // with the auto unwinder).
    for (int libunwind = 0; libunwind <= 1; libunwind++) {
        int used = libunwind ? shim_stack_has_slots() : shim_cfg.stacks && !shim_stack_libunwind;
        if (!used) continue;
        uint64_t hits, misses;
        shim_stack_cache_counts(libunwind, &hits, &misses);
        n += fl_strlcpy(line + n, libunwind ? "; stack cache " : "; stack memo ", sizeof line - n);
        n += fl_fmt_u64(line + n, hits);
        n += fl_strlcpy(line + n, " hits, ", sizeof line - n);
        n += fl_fmt_u64(line + n, misses);
        n += fl_strlcpy(line + n, libunwind ? " unwound" : " to the depot", sizeof line - n);
    }
    n += fl_strlcpy(line + n, "\n", sizeof line - n);
    fl_log_write(line, n);
    print_suppressed();
}

// Errors the run did not report (FAULTLINE_MAX_HEAP_REPORTS): how many in
// all, once, before the exit check (which says what it leaves out itself).
static void say_dropped_during_run(void) {
    uint64_t dropped = shim_report_dropped();
    if (!dropped) return;
    char line[256];
    size_t n = fl_strlcpy(line, "faultline: malloc shim: ", sizeof line);
    n += fl_fmt_u64(line + n, dropped);
    n += fl_strlcpy(line + n, " more heap error(s) during the run were not reported: FAULTLINE_MAX_HEAP_REPORTS=", sizeof line - n);
    n += fl_fmt_u64(line + n, (uint64_t)shim_cfg.max_reports);
    n += fl_strlcpy(line + n, " reached\n", sizeof line - n);
    fl_log_write(line, n);
}

void shim_exit_checks(void) {
    if (shim_mode != SHIM_MODE_DETECT || !shim_ready) return;
    // Once: an _exit from an atexit handler comes after the destructor.
    if (__atomic_exchange_n(&shim_exit_checked, 1, __ATOMIC_ACQ_REL)) return;
    // exit() from a signal handler that interrupted the shim on this thread
    // (a SIGINT or SIGALRM handler that calls exit, as many do): the locks
    // the checks take are this thread's own, and waiting for them hung the
    // process instead of letting it exit.
    if (shim_quarantine_locked_here() || shim_report_locked_here() || shim_live_locked_here() || shim_arena_locked_here()) {
        say("faultline: malloc shim: the process exited from a signal handler that interrupted the allocator; ",
            "the quarantine and leaks are not checked at exit");
        return;
    }
    shim_self.batch_off = 1;
    shim_quarantine_flush_thread();
    say_dropped_during_run();
    // Every exit check reports before the process halts for any of them.
    shim_report_hold_halt();
    if (shim_cfg.check_at_exit) shim_redzone_exit_check();
    if (shim_cfg.check_at_exit) shim_exit_check();
    if (shim_cfg.leak_check_at_exit) shim_leak_check("exit");
    shim_report_release_halt();
    if (shim_cfg.stats) print_stats();
}

__attribute__((destructor)) static void shim_fini(void) { shim_exit_checks(); }
