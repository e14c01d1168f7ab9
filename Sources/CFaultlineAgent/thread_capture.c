#include "thread_capture.h"
#include "fd_transient.h"
#include "raw_syscall.h"
#include "sigsafe.h"
#include "stack_switch.h"
#include "unwinder.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int g_signo;

// One request at a time; the scratch buffer is owned by the request until
// the answering handler has left (busy == 0), so a late answer to a timed-out
// request can never write into the next one.
static atomic_int g_requester;        // 0 free, else requester tid
static atomic_uint g_seq;             // current request number
static atomic_int g_target;           // tid asked to answer
static atomic_uint g_done_seq;        // request number last answered
static atomic_int g_busy;             // a handler is writing scratch
static uintptr_t g_scratch[FL_MAX_FRAMES];
static atomic_int g_scratch_n;
static atomic_int g_scratch_max;

/// The stack answers are unwound on (see sample_handler), and whether an
/// answer is running on it. An answer took at most 7.5 KiB across the
/// scenario suite.
#define FL_SAMPLE_STACK_SIZE (64u << 10)
static fl_stack g_sample_stack;
static atomic_int g_sample_stack_used;

/// One answer: the interrupted context and the request it is for.
struct answer {
    const ucontext_t *uc;
    unsigned seq;
};

static void unwind_answer(void *p) {
    const struct answer *a = p;
    int saved_errno = errno;
    int max = atomic_load(&g_scratch_max);
    int n = fl_unwind_context(a->uc, g_scratch, max);
    atomic_store(&g_scratch_n, n);
    atomic_store(&g_done_seq, a->seq);
    errno = saved_errno;
}

// Runs on the stack it was entered on until the switch, so no libc calls
// before it (raw_syscall.h says why).
static void sample_handler(int sig, siginfo_t *info, void *ucv) {
    unsigned seq = atomic_load(&g_seq);
    if (atomic_load(&g_target) == (pid_t)fl_raw_syscall(SYS_gettid, 0, 0, 0, 0) && atomic_load(&g_done_seq) != seq) {
        atomic_store(&g_busy, 1);
        if (atomic_load(&g_seq) == seq) {
            struct answer a = {(const ucontext_t *)ucv, seq};
            // Unwinding needs several KiB (libunwind's cursor and context are
            // 1 KiB each, its DWARF parsing more), which the thread's
            // alternate stack may not have left: a program may have put an
            // 8 KiB one of its own over the agent's, and the kernel's signal
            // frame takes 3.3 KiB of that with AVX-512. So unwind on the
            // sample stack. Requests are serialised, but a late answer to a
            // timed-out one may still hold it: then answer on this stack, as
            // before.
            int idle = 0;
            if (atomic_compare_exchange_strong(&g_sample_stack_used, &idle, 1)) {
                fl_call_on_stack(unwind_answer, &a, g_sample_stack.hi);
                atomic_store(&g_sample_stack_used, 0);
            } else {
                unwind_answer(&a);
            }
        }
        atomic_store(&g_busy, 0);
    }
}

int fl_threads_init(int signo) {
    if (g_signo) return 0;
    if (!g_sample_stack.hi && fl_stack_map(&g_sample_stack, FL_SAMPLE_STACK_SIZE) != 0) return -1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = sample_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    // While an answer runs on the sample stack the kernel would deliver
    // another signal at the top of the alternate stack, over the handler's
    // frames: every signal waits, except those a fault raises (a fault while
    // unwinding must still reach the crash handler).
    sigfillset(&sa.sa_mask);
    static const int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};
    for (unsigned i = 0; i < sizeof faults / sizeof faults[0]; i++) sigdelset(&sa.sa_mask, faults[i]);
    if (sigaction(signo, &sa, 0) != 0) return -1;
    g_signo = signo;
    return 0;
}

int fl_threads_signal(void) { return g_signo; }

void fl_threads_unblock_agent_signals(void) {
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};
    sigset_t set;
    sigemptyset(&set);
    for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaddset(&set, sigs[i]);
    if (g_signo) sigaddset(&set, g_signo);
    pthread_sigmask(SIG_UNBLOCK, &set, 0);
}

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

int fl_threads_list(pid_t *tids, int max, int *total) {
    // opendir/readdir allocate; getdents64 on a raw fd does not.
    int fd = fl_open_high("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[4096] __attribute__((aligned(8)));
    int n = 0, all = 0;
    for (;;) {
        long r = syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (r <= 0) break;
        for (long off = 0; off < r;) {
            struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
            if (d->d_name[0] >= '0' && d->d_name[0] <= '9') {
                if (n < max) tids[n++] = (pid_t)fl_parse_dec(d->d_name, 0);
                all++;
            }
            off += d->d_reclen;
        }
    }
    close(fd);
    if (total) *total = all;
    return n;
}

int fl_thread_name(pid_t tid, char *buf, int cap) {
    char path[64] = "/proc/self/task/";
    size_t l = fl_strlen(path);
    l += fl_fmt_u64(path + l, (uint64_t)tid);
    fl_strlcpy(path + l, "/comm", sizeof path - l);
    ssize_t n = fl_read_file(path, buf, (size_t)cap);
    if (n <= 0) { buf[0] = 0; return 0; }
    while (n > 0 && (buf[n - 1] == '\n')) buf[--n] = 0;
    return (int)n;
}

int fl_capture_self(uintptr_t *pcs, int max) {
    ucontext_t uc;
    getcontext(&uc);  // async-signal-safe in practice: a register dump
    int n = fl_unwind_context(&uc, pcs, max);
    return n;
}

int fl_capture_thread(pid_t tid, uintptr_t *pcs, int max, uint64_t timeout_ns) {
    if (!g_signo) return -1;
    if (max > FL_MAX_FRAMES) max = FL_MAX_FRAMES;
    pid_t me = fl_gettid();
    if (tid == me) return fl_capture_self(pcs, max);
    // Serialise requesters (crash handler, hang watchdog); bounded wait.
    uint64_t deadline = fl_monotonic_ns() + timeout_ns;
    int expected = 0;
    while (!atomic_compare_exchange_weak(&g_requester, &expected, me)) {
        if (expected == me) break;  // re-entered from a crash inside a capture
        expected = 0;
        if (fl_monotonic_ns() > deadline) return -1;
        fl_sleep_ns(50000);
    }
    while (atomic_load(&g_busy) && fl_monotonic_ns() < deadline) fl_sleep_ns(10000);
    int result = -1;
    if (!atomic_load(&g_busy)) {
        atomic_store(&g_scratch_max, max);
        atomic_store(&g_target, tid);
        unsigned seq = atomic_fetch_add(&g_seq, 1) + 1;
        uint64_t start = fl_monotonic_ns();
        if (syscall(SYS_tgkill, getpid(), tid, g_signo) == 0) {
            while (fl_monotonic_ns() < deadline) {
                if (atomic_load(&g_done_seq) == seq && !atomic_load(&g_busy)) {
                    result = atomic_load(&g_scratch_n);
                    for (int i = 0; i < result; i++) pcs[i] = g_scratch[i];
                    break;
                }
                // Spin briefly (an answer usually takes a few microseconds and
                // nanosleep's timer slack is ~50 us), then back off.
                if (fl_monotonic_ns() - start > 200000) fl_sleep_ns(20000);
                else sched_yield();
            }
        }
        atomic_store(&g_target, 0);
    }
    atomic_store(&g_requester, 0);
    return result;
}

int fl_thread_blocks_signal(pid_t tid, int sig) {
    char path[64], buf[2048];
    size_t l = fl_strlcpy(path, "/proc/self/task/", sizeof path);
    l += fl_fmt_u64(path + l, (uint64_t)tid);
    fl_strlcpy(path + l, "/status", sizeof path - l);
    if (fl_read_file(path, buf, sizeof buf) <= 0 || sig < 1 || sig > 64) return 0;
    static const char key[] = "\nSigBlk:";
    for (const char *s = buf; *s; s++) {
        int match = 1;
        for (size_t i = 0; i < sizeof key - 1; i++) if (s[i] != key[i]) { match = 0; break; }
        if (!match) continue;
        s += sizeof key - 1;
        while (*s == ' ' || *s == '\t') s++;
        return (int)((fl_parse_hex(s, 0) >> (sig - 1)) & 1);
    }
    return 0;
}
