// The leak helper thread: runs on-demand checks asked for by
// FAULTLINE_LEAK_SIGNAL (the handler only posts a semaphore; a process
// with no thread of its own yet has no helper, and the handler answers
// itself: shim_leak_signal.h) and, with
// FAULTLINE_LEAK_GROWTH_MS set, takes a snapshot of the live bytes of every
// allocation stack each interval. A stack whose live bytes rose in each of
// FAULTLINE_LEAK_GROWTH_SNAPSHOTS consecutive snapshots (by at least
// FAULTLINE_LEAK_GROWTH_MIN_BYTES over the window) is reported once, while
// the program runs, as a `leak_growth` report (after OOMDetector).
#include "tool_log.h"
#include "interpose_next.h"
#include "shim_leak.h"
#include "shim_leak_signal.h"
#include "shim_config.h"
#include "cred_mirror.h"
#include "fd_transient.h"
#include "shim_depot.h"
#include "shim_heap.h"
#include "shim_report.h"
#include "shim_thread.h"
#include "sigsafe.h"
#include "solo_call.h"
#include "thread_count.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TRACKED_STACKS 16384

typedef struct tracked {
    uint32_t id;        // depot id, 0 = free slot
    uint32_t rising;    // consecutive snapshots with more live bytes than the one before
    uint32_t reported;
    uint32_t filled;    // snapshots in the ring
    uint64_t last;
} tracked;

static sem_t g_wake;
static int g_signal_pending;
static tracked *g_tracked;
static uint64_t *g_series;  // TRACKED_STACKS x snapshots ring
static uint64_t g_snapshot;
static uint64_t g_untracked;

// The process the helper was started in (0: none yet; a forked child has
// none of its parent's).
static _Atomic pid_t g_helper_pid;

// The leak signal's request, handed to the helper when this process has
// one (shim_leak_signal.c answers it otherwise). Async-signal-safe.
static int post_to_helper(void) {
    if (atomic_load(&g_helper_pid) != (pid_t)syscall(SYS_getpid)) return 0;
    __atomic_store_n(&g_signal_pending, 1, __ATOMIC_RELEASE);
    sem_post(&g_wake);  // async-signal-safe
    return 1;
}

// The slot of stack `id`; a free one is claimed for it when `claim` is set,
// else 0 when it has none.
static tracked *slot_for(uint32_t id, int claim) {
    uint32_t h = (id * 2654435761u) & (TRACKED_STACKS - 1);
    for (uint32_t k = 0; k < TRACKED_STACKS; k++) {
        tracked *t = &g_tracked[(h + k) & (TRACKED_STACKS - 1)];
        if (t->id == id) return t;
        if (t->id == 0) {
            if (claim) t->id = id;
            return claim ? t : 0;
        }
    }
    return 0;
}

static void report_growth(tracked *t, uint64_t live_blocks) {
    int n = shim_cfg.leak_growth_snapshots;
    uint64_t *ring = &g_series[(size_t)(t - g_tracked) * (size_t)n];
    const fl_image_list *images;
    fl_json *w = shim_report_open("leak_growth", &images);
    if (!w) return;
    uint64_t first = ring[(g_snapshot + 1) % (uint64_t)n], last = t->last;
    fl_json_begin_object(w, "leak_growth");
    fl_json_uint(w, "interval_ms", (uint64_t)shim_cfg.leak_growth_ms);
    fl_json_uint(w, "snapshots", (uint64_t)n);
    fl_json_uint(w, "live_bytes", last);
    fl_json_uint(w, "live_blocks", live_blocks);
    fl_json_uint(w, "growth_bytes", last - first);
    fl_json_begin_array(w, "series");
    for (int i = 1; i <= n; i++) {
        fl_json_begin_object(w, 0);
        fl_json_uint(w, "live_bytes", ring[(g_snapshot + (uint64_t)i) % (uint64_t)n]);
        fl_json_end_object(w);
    }
    fl_json_end_array(w);
    fl_json_end_object(w);
    shim_report_stack(w, "allocation_stack", t->id);
    char line[256];
    size_t l = fl_strlcpy(line, "faultline: leak_growth: an allocation stack grew by ", sizeof line);
    l += fl_fmt_u64(line + l, last - first);
    l += fl_strlcpy(line + l, " bytes over ", sizeof line - l);
    l += fl_fmt_u64(line + l, (uint64_t)n);
    l += fl_strlcpy(line + l, " snapshots, now ", sizeof line - l);
    l += fl_fmt_u64(line + l, last);
    fl_strlcpy(line + l, " live bytes", sizeof line - l);
    shim_report_close(w, line);
}

static void snapshot(void) {
    int n = shim_cfg.leak_growth_snapshots;
    g_snapshot++;
    for (uint32_t id = shim_depot_next(0); id; id = shim_depot_next(id)) {
        uint64_t bytes, blocks;
        shim_depot_live(id, &bytes, &blocks);
        // A followed stack that dropped to nothing is recorded too: skipped,
        // the rise before the dip and the one after counted as one run (a
        // leak_growth report for memory all freed), and its series kept
        // stale values. Stacks never seen with live bytes get no slot.
        tracked *t = slot_for(id, bytes != 0);
        if (!t) { if (bytes) g_untracked++; continue; }
        uint64_t *ring = &g_series[(size_t)(t - g_tracked) * (size_t)n];
        t->rising = (t->filled && bytes > t->last) ? t->rising + 1 : 0;
        t->last = bytes;
        ring[g_snapshot % (uint64_t)n] = bytes;
        if (t->filled < (uint32_t)n) t->filled++;
        // n snapshots, each above the one before: n - 1 rises in a row.
        if (!t->reported && t->rising + 1 >= (uint32_t)n && t->filled >= (uint32_t)n &&
            bytes - ring[(g_snapshot + 1) % (uint64_t)n] >= shim_cfg.leak_growth_min_bytes) {
            t->reported = 1;
            report_growth(t, blocks);
        }
    }
}

static int start_helper(void);
static atomic_int g_stop_posted;

// Wakes the helper once for a stop request: the semaphore keeps the post
// even when the helper is not waiting yet.
static void wake_helper(fl_solo_thread *t) {
    (void)t;
    if (!atomic_exchange(&g_stop_posted, 1)) sem_post(&g_wake);
}

/// The helper, stopped around calls the kernel refuses in a
/// multi-threaded process (solo_call.h) between two waits. The growth
/// snapshots stay; the snapshot interval starts over.
static fl_solo_thread g_solo = {.name = "faultline-leaks", .wake = wake_helper, .start = start_helper};

// Where the helper stands for a scan run elsewhere (shim_leak_helper_hold):
// not at work (starting up, or waiting for work), at work, held by a scan,
// held with work waiting (it sleeps on this word until released). Starting
// up it only sets its signal mask, name and credentials: nothing a scan
// reads.
enum { HELPER_IDLE, HELPER_BUSY, HELPER_HELD, HELPER_HELD_WAITING };
static _Atomic int g_phase;
static _Atomic uintptr_t g_idle_sp;  // its stack pointer while it waits, 0 before it first does
static pthread_t g_thread;

// Its own stack, mapped once, so that a helper held before it has begun is
// read whole without the stale frames of an earlier thread (a glibc stack
// from the cache): zeroed again before each restart.
static void *g_stack;
static size_t g_stack_size;

// Leaves the idle phase, first waiting for a scan that holds it.
static void become_busy(void) {
    for (;;) {
        int idle = HELPER_IDLE, held = HELPER_HELD;
        if (atomic_compare_exchange_strong(&g_phase, &idle, HELPER_BUSY)) return;
        if (idle == HELPER_HELD) atomic_compare_exchange_strong(&g_phase, &held, HELPER_HELD_WAITING);
        syscall(SYS_futex, &g_phase, (long)FUTEX_WAIT_PRIVATE, (long)HELPER_HELD_WAITING, (void *)0, (void *)0, 0L);
    }
}

// Records a stack pointer below the helper's own frame, before it waits (a
// scan that holds it reads its stack from there up, as from a parked
// thread's).
__attribute__((noinline)) static void note_wait_sp(void) {
    volatile char here = 0;
    atomic_store(&g_idle_sp, (uintptr_t)&here);
}

int shim_leak_is_helper(uint32_t tid) {
    pid_t mine = atomic_load(&g_solo.tid);
    return mine > 0 && (uint32_t)mine == tid && atomic_load(&g_solo.pid) == getpid();
}

int shim_leak_helper_hold(uint32_t tid, leak_thread *t) {
    int idle = HELPER_IDLE;
    if (!shim_leak_is_helper(tid) || !atomic_compare_exchange_strong(&g_phase, &idle, HELPER_HELD)) return 0;
    memset(t, 0, sizeof *t);
    t->tid = tid;
    t->sp = atomic_load(&g_idle_sp);
    t->tp = (uintptr_t)g_thread;
    return 1;
}

void shim_leak_helper_release(void) {
    if (atomic_exchange(&g_phase, HELPER_IDLE) == HELPER_HELD_WAITING)
        syscall(SYS_futex, &g_phase, (long)FUTEX_WAKE_PRIVATE, 1L, (void *)0, (void *)0, 0L);
}

static void *helper(void *unused) {
    shim_self.depth++;  // the helper's own allocations (none expected) are not tracked
    sigset_t all;
    sigfillset(&all);
    // Signals go to the program's threads, except the scan's stop signal,
    // so that a scan run elsewhere parks this thread instead of waiting.
    sigdelset(&all, shim_cfg.leak_stop_signal);
    pthread_sigmask(SIG_BLOCK, &all, 0);
    fl_cred_mirror_thread_begin();  // it answers on the stop signal
    fl_solo_thread_begin(&g_solo);
    uint64_t interval = (uint64_t)shim_cfg.leak_growth_ms * 1000000ull;
    // Asked to stop, it ends after the check or snapshot under way (an
    // on-demand check whose post it took must not wait for another post).
    while (!fl_solo_thread_stop_asked(&g_solo)) {
        int r;
        note_wait_sp();
        if (interval) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            uint64_t ns = (uint64_t)ts.tv_nsec + interval;
            ts.tv_sec += (time_t)(ns / 1000000000ull);
            ts.tv_nsec = (long)(ns % 1000000000ull);
            r = sem_timedwait(&g_wake, &ts);
        } else {
            r = sem_wait(&g_wake);
        }
        int saved = errno;
        become_busy();
        errno = saved;
        if (__atomic_exchange_n(&g_signal_pending, 0, __ATOMIC_ACQ_REL)) {
            shim_self.depth--;
            shim_leak_check("signal");
            shim_self.depth++;
        } else if (r != 0 && errno == ETIMEDOUT && g_tracked) {
            snapshot();
        }
        atomic_store(&g_phase, HELPER_IDLE);  // only the helper leaves HELPER_BUSY
    }
    become_busy();  // not held while it ends
    fl_cred_mirror_thread_end();
    fl_thread_recount();
    return 0;
}

// Grows the kernel's fd table up to the high fds (fd_high.h) while the
// process has one thread. The scan opens /proc files there; the first such
// open made the kernel grow the table, and with another thread sharing it
// (this helper, the agent's) the kernel waits for an RCU grace period to
// free the old one: 8 ms of a 19 ms `/bin/true` with the shim alone (4 ms
// of it when the agent, opening its report directory early, grew it first).
// One thread: no wait, a few microseconds.
static void grow_fd_table_now(void) {
    int fd = fl_open_high("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) fl_close_high(fd);
}

// Starts the helper thread; 0 or -1.
static int start_helper(void) {
    // The next pthread_create, not the agent's wrapper (when the agent is
    // loaded too): the wrapper's trampoline allocates from the program's heap
    // when the thread first runs, which may be late and pin the heap's top.
    typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    static create_fn create;
    FL_NEXT_SLOT(create, "pthread_create")
    if (!create) create = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (!g_stack) {
        size_t size = 0, page = (size_t)sysconf(_SC_PAGESIZE);
        pthread_attr_getstacksize(&attr, &size);  // glibc's default for new threads
        void *a = mmap(0, size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
        if (a != MAP_FAILED && mprotect(a, page, PROT_NONE) == 0) {  // the guard page
            g_stack = (char *)a + page;
            g_stack_size = size;
        }
    } else {
        madvise(g_stack, g_stack_size, MADV_DONTNEED);  // the ended helper's frames
    }
    if (g_stack) pthread_attr_setstack(&attr, g_stack, g_stack_size);
    pthread_t t;
    atomic_store(&g_stop_posted, 0);
    atomic_store(&g_idle_sp, 0);
    atomic_store(&g_phase, HELPER_IDLE);
    fl_cred_mirror_thread_starting();
    fl_solo_thread_starting(&g_solo);
    int rc = create ? create(&t, &attr, helper, 0) : -1;
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        fl_cred_mirror_thread_start_failed();
        fl_solo_thread_start_failed(&g_solo);
        return -1;
    }
    // Read while it is joinable: detached, it may have ended and its
    // descriptor been reused.
    fl_solo_thread_created(&g_solo, t);
    g_thread = t;
    pthread_detach(t);
    fl_thread_uncount();  // it must not keep the process alive
    atomic_store(&g_helper_pid, getpid());
    return 0;
}

// Started at the first pthread_create (shim_leak_thread_coming) rather
// than in the constructor: a process that never has a second thread of
// its own pays no thread, no fd-table growth and no clone (0.13 ms of CPU
// of a /bin/true, docs/benchmarks.md "Start-up, round 4"), and its leak
// signal is answered in the handler.
static _Atomic int g_lazy;            // the helper waits for a first thread
static _Atomic int g_thread_early;    // a pthread_create came before the constructor
static _Atomic pid_t g_start_claimed;  // the process whose first thread starts it

static void start_now(void) {
    shim_self.depth++;  // its descriptor's and TLS's allocations are not the program's
    grow_fd_table_now();
    start_helper();
    shim_self.depth--;
}

void shim_leak_thread_coming(void) {
    if (!__atomic_load_n(&shim_ready, __ATOMIC_ACQUIRE)) {
        atomic_store(&g_thread_early, 1);
        return;
    }
    if (!atomic_load(&g_lazy)) return;
    pid_t pid = getpid(), claimed = atomic_load(&g_start_claimed);
    if (claimed == pid || !atomic_compare_exchange_strong(&g_start_claimed, &claimed, pid)) return;
    start_now();
}

void shim_leak_helper_after_fork_child(void) {
    // A child may start a helper of its own at its first thread: not with
    // a request or posts its parent had not taken yet.
    __atomic_store_n(&g_signal_pending, 0, __ATOMIC_RELEASE);
    if (atomic_load(&g_lazy)) sem_init(&g_wake, 0, 0);
}

extern int shim_leak_debug_roots;
void shim_leak_init(void) {
    shim_leak_debug_roots = fl_option_value(FL_OPT_LEAK_DEBUG_ROOTS) != 0;
    const char *inh = fl_option_value(FL_OPT_LEAK_INHERITED);
    if (inh && *inh) {
        if (fl_streq(inh, "0") || fl_streq(inh, "1")) shim_leak_report_inherited = inh[0] == '1';
        else {
            static const char a[] = "faultline: FAULTLINE_LEAK_INHERITED=", b[] = " is not 0 or 1 (1 also reports, in a forked child, the blocks allocated before the fork); using 0\n";
            fl_log_write(a, sizeof a - 1);
            fl_log_write(inh, fl_strlen(inh));
            fl_log_write(b, sizeof b - 1);
        }
    }
    void (*get)(size_t *, size_t *) = (void (*)(size_t *, size_t *))dlsym(RTLD_DEFAULT, "_dl_get_tls_static_info");
    size_t align = 0;
    if (get) get(&shim_leak_static_tls, &align);
    if (!shim_cfg.leak_tracking) return;
    fl_solo_link_images();  // the scan tells the agent's threads by id (shim_leak_world.c)
    int want_signal = shim_cfg.leak_signal > 0 && (shim_cfg.leak_check_at_exit || fl_option_value(FL_OPT_LEAK_SIGNAL));
    if (!want_signal && !shim_cfg.leak_growth_ms) return;
    if (sem_init(&g_wake, 0, 0) != 0) return;
    if (shim_cfg.leak_growth_ms) {
        size_t n = (size_t)shim_cfg.leak_growth_snapshots;
        void *a = mmap(0, TRACKED_STACKS * (sizeof(tracked) + n * sizeof(uint64_t)), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (a != MAP_FAILED) {
            g_tracked = a;
            g_series = (uint64_t *)(g_tracked + TRACKED_STACKS);
        }
    }
    // It follows the program's capabilities (glibc aborts a set*id call
    // whose result differs between threads), asked on the stop signal.
    fl_cred_mirror_init(shim_cfg.leak_stop_signal, fl_option_at(FL_OPT_LEAK_STOP_SIGNAL)->name, shim_leak_world_prepare);
    if (want_signal) shim_leak_signal_install(shim_cfg.leak_signal, post_to_helper);
    // Snapshots need the helper from the start, and so does a process
    // that already has another thread (the agent's, started before this
    // constructor ran, come through the same interposer).
    if (shim_cfg.leak_growth_ms || atomic_load(&g_thread_early) || fl_program_threads() > 1) start_now();
    else atomic_store(&g_lazy, 1);
}
