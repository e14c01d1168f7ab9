// Leak detection: the reachability scan (shim_leak_scan.c), stopping the
// other threads for it (shim_leak_world.c), the `leak` report with
// suppressions (shim_leak_report.c, shim_suppress.h), growth mode
// (shim_leak_growth.c) and the exported entry points (shim_leak_export.c).
// docs/leaks.md describes what a user sees.
#ifndef SHIM_LEAK_H
#define SHIM_LEAK_H

#include <stddef.h>
#include <stdint.h>

/// Classes of a live block after a scan.
enum { LEAK_UNVISITED = 0, LEAK_REACHABLE = 1, LEAK_INDIRECT = 2, LEAK_DIRECT = 3 };

/// One live block as the scan sees it.
typedef struct leak_block {
    uintptr_t user;   ///< first byte
    uint64_t size;    ///< bytes asked for
    uint32_t stack;   ///< allocation stack id
    uint32_t tid;     ///< allocating thread
    uint32_t listed;  ///< position in the live lists' walk (each thread's blocks newest first)
    uint8_t cls;      ///< LEAK_*
    uint8_t scanned;  ///< contents read already
    uint8_t inherited;  ///< allocated before this process was forked (the parent's)
    uint8_t pad;
    uint32_t owner;   ///< for a lost block: index of the definitely lost block it hangs from (itself when it is one)
} leak_block;

/// What a scan found; memory is mmap'd and released by shim_leak_scan_free.
typedef struct leak_scan {
    leak_block *blocks;
    uint64_t count;
    uint64_t mapped;           ///< blocks the array has room for
    uint64_t root_bytes;       ///< bytes of roots read
    uint32_t threads_parked;   ///< other threads stopped and scanned from their sp
    uint32_t threads_missed;   ///< threads that did not park in time (whole stack mapping scanned)
    uint64_t stop_ns, scan_ns; ///< time to park the threads, time of the scan
    int maps_errno;            ///< why the calling thread's /proc maps could not be read (the scan then fails)
} leak_scan;

/// Stops the other threads, scans and classifies every live block. Never
/// allocates through malloc. Returns 0, or -1 when tracking is off or the
/// process's maps could not be read (`maps_errno` set; nothing classified).
int shim_leak_scan_run(leak_scan *s);
/// Releases a scan's memory.
void shim_leak_scan_free(leak_scan *s);
/// Static TLS size from glibc (0 when unknown), set by shim_leak_init.
extern size_t shim_leak_static_tls;

/// Parks every other thread; fills `sp`/registers per thread (world.c).
typedef struct leak_thread {
    uint32_t tid;
    uint32_t nregs;
    uintptr_t sp;
    uintptr_t tp;          ///< thread pointer (static TLS sits next to it)
    uintptr_t regs[32];
} leak_thread;
/// Stops the other threads; returns how many parked, sets *missed.
int shim_leak_world_stop(leak_thread **threads, uint32_t *missed);
/// The threads of the last stop that were not signalled because they
/// block the stop signal (or are Faultline's own), by thread id; their
/// count. Valid until the next stop.
int shim_leak_world_blocked(const uint32_t **tids);
/// Lets them go.
void shim_leak_world_resume(void);
/// For a scan's world stop (shim_leak_growth.c): when `tid` is the leak
/// helper and it is waiting for work or still starting up, keeps it from
/// starting any work until shim_leak_helper_release, fills `t` as a parked
/// thread would (its stack pointer in the wait, 0 before its first wait:
/// its stack is then read whole) and returns 1; else 0, and it is signalled like any
/// thread. Stopping it by signal took two wake-ups of a thread whose CPU
/// was idle, about 2 ms each on a virtual machine.
int shim_leak_helper_hold(uint32_t tid, leak_thread *t);
/// 1 when `tid` is the leak helper of this process.
int shim_leak_is_helper(uint32_t tid);
/// Lets a held leak helper go on (waking it only if it had work waiting).
void shim_leak_helper_release(void);
/// Installs the stop signal's handler unless it is (as the first scan
/// would), for the leak thread to answer credential-mirror requests on
/// (cred_mirror.h). 0 when the handler in force is the shim's, else -1
/// (the program has put its own in place since).
int shim_leak_world_prepare(void);
/// Around fork (shim_init.c): before_fork waits for an install of the stop
/// signal's handler under way, so that a child never inherits one half
/// done; the after_fork functions let go (the child's is the only thread).
void shim_leak_world_before_fork(void);
void shim_leak_world_after_fork_parent(void);
void shim_leak_world_after_fork_child(void);

/// Scan, report (`trigger`: exit, api, signal). Returns the unsuppressed
/// lost blocks, or -1 when no scan ran.
long shim_leak_check(const char *trigger);
/// In a forked child: one scan at a time starts over. The thread that held
/// the check's lock at the fork (faultline-leaks writing a report the leak
/// signal asked for) does not exist in the child, and the child's own exit
/// check would wait for it forever.
void shim_leak_after_fork_child(void);
/// 1 when the calling thread holds the check's lock (a check of its own
/// under way, below a signal handler). Async-signal-safe.
int shim_leak_check_running_here(void);

/// FAULTLINE_LEAK_INHERITED: 1 to report blocks allocated before this
/// process was forked too (default 0: the parent reports them). Read by
/// shim_leak_init.
extern int shim_leak_report_inherited;

/// Installs the on-demand signal (shim_leak_signal.h) and, for growth
/// snapshots or a process with threads already, starts the helper thread;
/// otherwise leaves it for the first pthread_create. Called from the
/// shim's constructor.
void shim_leak_init(void);
/// From the shim's pthread_create: starts the leak helper before the
/// process's first other thread (once per process), when the signal
/// wants it and the constructor left it for then.
void shim_leak_thread_coming(void);
/// In a forked child: forgets the parent's pending request and posts.
void shim_leak_helper_after_fork_child(void);

#endif
