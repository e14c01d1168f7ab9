// Stopping the world for a scan without ptrace: every other thread gets a
// directed real-time signal (FAULTLINE_LEAK_STOP_SIGNAL) whose handler saves
// its stack pointer, registers and thread pointer and waits on a futex until
// the scan is done. A thread that blocks the signal never parks: the scan
// then reads its whole stack mapping instead (conservative).
#include "shim_leak.h"
#include "shim_leak_sleepers.h"
#include "shim_config.h"
#include "shim_thread.h"
#include "fd_transient.h"
#include "cred_mirror.h"
#include "proc_tid.h"
#include "sigsafe.h"
#include "solo_call.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#define MAX_THREADS 8192

static leak_thread *g_slots;        // MAX_THREADS, mmap'd once, never unmapped
static uint32_t *g_sent;            // threads signalled this round, by /proc's ids
static uint32_t *g_listed;          // /proc/self/task's entries in one pass (signal_new)
static uint32_t *g_blocked_tids;    // threads not signalled because they block it, by tgkill's ids
static _Atomic int g_stopping, g_release, g_slot, g_arrived, g_departed;
static struct sigaction g_old;
static int g_installed;

static void park(int sig, siginfo_t *info, void *vuc) {
    // The leak thread takes the program's capabilities on this signal too
    // (cred_mirror.h): such a delivery is neither a scan's nor the program's.
    if (fl_cred_mirror_answer(info)) return;
    if (!atomic_load(&g_stopping)) {
        // Not ours: pass it on to a handler the program had installed.
        if ((g_old.sa_flags & SA_SIGINFO) && g_old.sa_sigaction) g_old.sa_sigaction(sig, info, vuc);
        else if (!(g_old.sa_flags & SA_SIGINFO) && g_old.sa_handler != SIG_DFL && g_old.sa_handler != SIG_IGN) g_old.sa_handler(sig);
        return;
    }
    int saved = errno;
    ucontext_t *uc = vuc;
    int i = atomic_fetch_add(&g_slot, 1);
    if (i < MAX_THREADS) {
        leak_thread *t = &g_slots[i];
        t->tid = (uint32_t)syscall(SYS_gettid);
        t->tp = (uintptr_t)pthread_self();
#if defined(__x86_64__)
        t->sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
        t->nregs = NGREG < 32 ? NGREG : 32;
        for (uint32_t r = 0; r < t->nregs; r++) t->regs[r] = (uintptr_t)uc->uc_mcontext.gregs[r];
#elif defined(__aarch64__)
        t->sp = (uintptr_t)uc->uc_mcontext.sp;
        t->nregs = 31;
        for (uint32_t r = 0; r < 31; r++) t->regs[r] = (uintptr_t)uc->uc_mcontext.regs[r];
#endif
    }
    atomic_fetch_add(&g_arrived, 1);
    while (!atomic_load(&g_release)) syscall(SYS_futex, &g_release, (long)FUTEX_WAIT_PRIVATE, 0L, (void *)0, (void *)0, 0L);
    shim_sleepers_restart(uc, (uint32_t)syscall(SYS_gettid));
    atomic_fetch_add(&g_departed, 1);
    errno = saved;
}

static int install_once(void) {
    if (!g_slots) {
        void *a = mmap(0, MAX_THREADS * (sizeof(leak_thread) + 3 * sizeof(uint32_t)), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (a == MAP_FAILED) return -1;
        g_slots = a;
        g_sent = (uint32_t *)(g_slots + MAX_THREADS);
        g_listed = g_sent + MAX_THREADS;
        g_blocked_tids = g_listed + MAX_THREADS;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = park;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&sa.sa_mask);
    // Kept installed for good: a thread that had the signal blocked may take
    // it long after the scan, and the default action would kill the process.
    if (sigaction(shim_cfg.leak_stop_signal, &sa, &g_old) != 0) return -1;
    g_installed = 1;
    return 0;
}

// A scan and a program thread's set*id call (shim_leak_world_prepare) may
// both be first: installed twice, g_old would be park itself, and park
// would call itself for ever. So one thread installs at a time: its id is
// here, 0 when none. A fork waits for an install under way
// (shim_leak_world_before_fork): a child forked in the middle of one kept
// a word no thread of its own would ever clear, and its exit check waited
// for it for ever.
static atomic_uint g_install_owner;
static int g_fork_took;  // before_fork took the word (forks are serialized by glibc's atfork lock)

// Takes the word unless the calling thread holds it (re-entered from a
// signal handler); returns 1 when taken.
static int install_lock(void) {
    uint32_t me = shim_tid();
    for (;;) {
        uint32_t owner = 0;
        if (atomic_compare_exchange_strong(&g_install_owner, &owner, me)) return 1;
        if (owner == me) return 0;
        fl_sleep_ns(10000);
    }
}

static int install(void) {
    if (__atomic_load_n(&g_installed, __ATOMIC_ACQUIRE)) return 0;
    if (!install_lock()) return -1;  // this thread is installing already, below us
    int rc = g_installed ? 0 : install_once();
    atomic_store(&g_install_owner, 0);
    return rc;
}

void shim_leak_world_before_fork(void) { g_fork_took = install_lock(); }

void shim_leak_world_after_fork_parent(void) {
    if (g_fork_took) atomic_store(&g_install_owner, 0);
}

void shim_leak_world_after_fork_child(void) {
    // The child's one thread: whoever held the word is the parent's.
    atomic_store(&g_install_owner, 0);
}

int shim_leak_world_prepare(void) {
    struct sigaction cur;
    if (install() != 0 || sigaction(shim_cfg.leak_stop_signal, 0, &cur) != 0) return -1;
    return (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == park ? 0 : -1;
}

static int already_sent(uint32_t tid, int n) {
    for (int i = 0; i < n; i++) if (g_sent[i] == tid) return 1;
    return 0;
}

enum { THREAD_PARKS, THREAD_BLOCKS, THREAD_ENDED };

// Whether the thread /proc/self/task lists as `proc_tid` can park:
// THREAD_BLOCKS when it blocks `sig` (SigBlk in its status), THREAD_ENDED
// when it is a zombie — a main thread that called pthread_exit stays listed
// until the process ends. Neither would ever park, so the scan does not wait
// for them. `*tid` receives the thread's id for tgkill: the last NSpid
// field, which differs from /proc's when /proc belongs to another pid
// namespace (unshare --pid without a /proc of its own; tgkill then failed
// for every thread, none was stopped, and the process itself was taken for
// another thread).
static int thread_state(uint32_t proc_tid, int sig, uint32_t *tid) {
    char path[64], buf[4096];
    // Not /proc/self/task/<id>/status (proc_tid.h). An id the thread left
    // and another process's task took since the listing names that task:
    // its state is read, and tgkill, given our pid, refuses it.
    fl_proc_task_path(path, sizeof path, (pid_t)proc_tid, "status");
    *tid = proc_tid;
    ssize_t n = fl_read_file(path, buf, sizeof buf - 1);
    if (n <= 0) return THREAD_PARKS;
    buf[n] = 0;
    const char *ns = strstr(buf, "\nNSpid:");
    if (ns) {
        ns += 7;
        for (;;) {
            while (*ns == ' ' || *ns == '\t') ns++;
            if (*ns < '0' || *ns > '9') break;
            *tid = (uint32_t)fl_parse_dec(ns, &ns);
        }
    }
    const char *state = strstr(buf, "State:");
    if (state) {
        state += 6;
        while (*state == ' ' || *state == '\t') state++;
        if (*state == 'Z' || *state == 'X') return THREAD_ENDED;
    }
    const char *p = strstr(buf, "SigBlk:");
    if (!p) return THREAD_PARKS;
    p += 7;
    while (*p == ' ' || *p == '\t') p++;
    uint64_t mask = fl_parse_hex(p, 0);
    return (mask >> (sig - 1)) & 1 ? THREAD_BLOCKS : THREAD_PARKS;
}

static uint32_t g_blocked;
static int g_helper_held;  // the leak helper, held without a signal (shim_leak_helper_hold)

// /proc's ids of the process's threads, at most `max`. The directory is
// closed before any thread's status is read: a process that has used up
// its fds has one to lend to us (the reserve, fd_transient.h), and a status
// read nested inside the listing found none, so every thread was signalled
// and waited for (500 ms) as if it could park.
static int list_threads(uint32_t *ids, int max) {
    int fd = fl_open_high("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[8192];
    int count = 0;
    for (;;) {
        long n = syscall(SYS_getdents64, (long)fd, buf, (unsigned long)sizeof buf);
        if (n <= 0) break;
        for (long off = 0; off < n;) {
            struct { uint64_t ino; int64_t off; unsigned short reclen; unsigned char type; char name[]; } *d = (void *)(buf + off);
            off += d->reclen;
            if (d->name[0] < '0' || d->name[0] > '9' || count >= max) continue;
            ids[count++] = (uint32_t)fl_parse_dec(d->name, 0);
        }
    }
    fl_close_high(fd);
    return count;
}

// One pass over /proc/self/task: signals threads not signalled yet.
static int signal_new(int *sent, uint32_t self) {
    int listed = list_threads(g_listed, MAX_THREADS);
    int added = 0;
    pid_t pid = getpid();
    for (int i = 0; i < listed; i++) {
        uint32_t tid, proc_tid = g_listed[i];
        if (*sent >= MAX_THREADS || already_sent(proc_tid, *sent)) continue;
        int state = thread_state(proc_tid, shim_cfg.leak_stop_signal, &tid);
        if (tid == self) continue;
        if (state == THREAD_ENDED) continue;  // nothing to stop, nothing missed
        leak_thread held;
        if (state == THREAD_PARKS && shim_leak_helper_hold(tid, &held)) {
            g_sent[(*sent)++] = proc_tid;  // remembered, not signalled
            int slot = atomic_fetch_add(&g_slot, 1);
            if (slot < MAX_THREADS) g_slots[slot] = held;
            g_helper_held = 1;
            added++;
            continue;
        }
        // The agent's threads block the signal as they begin, which may be
        // after it was sent (the scan then waited its whole timeout): taken
        // as blocking it, whatever their mask says yet. Their stacks hold
        // nothing of the program's. (The helper at work parks as before.)
        if (state == THREAD_BLOCKS || (!shim_leak_is_helper(tid) && fl_solo_thread_is_faultlines((pid_t)tid))) {
            g_sent[(*sent)++] = proc_tid;  // remembered, not waited for
            if (g_blocked < MAX_THREADS) g_blocked_tids[g_blocked] = tid;
            g_blocked++;
            added++;
            continue;
        }
        shim_sleepers_note(proc_tid, tid);
        if (syscall(SYS_tgkill, (long)pid, (long)tid, (long)shim_cfg.leak_stop_signal) == 0) {
            g_sent[(*sent)++] = proc_tid;
            added++;
        }
    }
    return added;
}

int shim_leak_world_stop(leak_thread **threads, uint32_t *missed) {
    *threads = 0;
    *missed = 0;
    if (install() != 0) return 0;
    atomic_store(&g_release, 0);
    atomic_store(&g_slot, 0);
    atomic_store(&g_arrived, 0);
    atomic_store(&g_departed, 0);
    atomic_store(&g_stopping, 1);
    int sent = 0;
    g_blocked = 0;
    g_helper_held = 0;
    shim_sleepers_reset();
    uint32_t self = (uint32_t)syscall(SYS_gettid);
    // Threads started meanwhile are caught by the next pass.
    for (int pass = 0; pass < 8 && signal_new(&sent, self) > 0; pass++) {}
    uint64_t deadline = fl_monotonic_ns() + (uint64_t)shim_cfg.leak_stop_timeout_ms * 1000000ull;
    int expected = sent - (int)g_blocked - g_helper_held;
    while (atomic_load(&g_arrived) < expected && fl_monotonic_ns() < deadline) fl_sleep_ns(100000);
    int arrived = atomic_load(&g_arrived);
    *missed = (uint32_t)(sent - g_helper_held - arrived);
    *threads = g_slots;
    arrived += g_helper_held;  // its slot, filled here
    return arrived < MAX_THREADS ? arrived : MAX_THREADS;
}

int shim_leak_world_blocked(const uint32_t **tids) {
    *tids = g_blocked_tids;
    return g_blocked < MAX_THREADS ? (int)g_blocked : MAX_THREADS;
}

void shim_leak_world_resume(void) {
    if (!g_installed) return;
    int arrived = atomic_load(&g_arrived);
    if (g_helper_held) shim_leak_helper_release();
    g_helper_held = 0;
    atomic_store(&g_stopping, 0);
    atomic_store(&g_release, 1);
    syscall(SYS_futex, &g_release, (long)FUTEX_WAKE_PRIVATE, 0x7fffffffL, (void *)0, (void *)0, 0L);
    // The slots are reused by the next scan: wait until they have all left.
    uint64_t deadline = fl_monotonic_ns() + 1000000000ull;
    while (atomic_load(&g_departed) < arrived && fl_monotonic_ns() < deadline) fl_sleep_ns(50000);
}
