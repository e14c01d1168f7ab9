#include "crash_signals.h"
#include "thread_capture.h"
#include "solo_call.h"
#include "cred_mirror.h"
#include "proc_tid.h"
#include "fd_transient.h"
#include "handler_mask.h"
#include "fault_mask.h"
#include "loader_lock_watch.h"
#include "raw_syscall.h"
#include "sample_keep.h"
#include "sched_wait.h"
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
/// Its address marks the agent's stack requests (si_value), which tells
/// them from deliveries of the same signal by the program or another
/// process: those go to the program's handler (sample_keep.h).
static const char g_request_mark;

// One request at a time, and one answer per request. g_req holds the
// request number and where it stands (REQ_*): the requester opens it, the
// target's handler claims it with a compare-and-swap before it writes the
// scratch buffer, then marks it answered. A handler that finds no open
// request for its thread writes nothing. So a late answer (the target ran
// its handler after the requester gave up) either finds its request
// withdrawn and does nothing, or has claimed it, and then the next request
// waits until it is done before it opens: two answers never write the
// scratch at once, and none is taken for another request's. (Before, a
// `busy` flag any handler could clear, checked before opening, let a late
// answer and the next one write the scratch together.)
enum { REQ_IDLE = 0, REQ_OPEN = 1, REQ_CLAIMED = 2, REQ_ANSWERED = 3 };
#define REQ_STATE(w) ((unsigned)((w) & 3u))
#define REQ_WORD(seq, state) (((seq) << 2) | (uint64_t)(state))
static atomic_int g_requester;        // 0 free, else requester tid
static uint64_t g_seq;                // last request number (requesters are serialised)
static _Atomic uint64_t g_req;        // REQ_WORD(current request, its state)
static atomic_int g_target;           // tid asked to answer the open request
static atomic_int g_claimer;          // tid writing an answer, while REQ_CLAIMED
static uintptr_t g_scratch[FL_MAX_FRAMES];
static atomic_int g_scratch_n;
static atomic_int g_scratch_max;
static atomic_int g_scratch_want_fp;  // the requester asks for frame pointers
static atomic_int g_scratch_by_fp;    // the answer was taken by frame pointers

/// The stack answers are unwound on (see sample_handler); only the thread
/// that claimed the request runs on it. An answer took at most 7.5 KiB
/// across the scenario suite.
#define FL_SAMPLE_STACK_SIZE (64u << 10)
static fl_stack g_sample_stack;

static void unwind_answer(void *p) {
    const ucontext_t *uc = p;
    fl_altstack_suspend();  // until sigreturn: nothing lands over the handler's frames
    int saved_errno = errno;
    int max = atomic_load(&g_scratch_max);
    // libunwind's first walk through a function reads unwind tables through
    // dl_iterate_phdr, which waits for a thread parked inside it: this
    // handler would never return, and the requester would time out. The
    // frame-pointer walk takes no lock. (A thread that enters it just after
    // this check is the crash handler's deadline's to catch.)
    int by_fp = atomic_load(&g_scratch_want_fp) || fl_loader_iteration_elsewhere();
    int n = by_fp ? fl_unwind_context_fp(uc, g_scratch, max) : fl_unwind_context(uc, g_scratch, max);
    atomic_store(&g_scratch_by_fp, by_fp);
    atomic_store(&g_scratch_n, n);
    errno = saved_errno;
}

/// Bytes at the top of the sample stack that an answer may have written
/// (an answer took at most 7.5 KiB, above).
#define FL_SAMPLE_SCRUB (16u << 10)

// Zeroes the top of the sample stack after an answer. The switch's saved
// registers and libunwind's cursor held the interrupted thread's registers
// there, and the malloc shim's leak check reads the mapping as a root: a
// pointer the program had dropped since kept its block "still reachable"
// (leaks.sampled-register). Only the claimer runs on it. A plain loop, no
// libc call.
static void scrub_sample_stack(void) {
    void *p = (void *)(g_sample_stack.hi - FL_SAMPLE_SCRUB);
#if defined(__x86_64__)
    // rep stosq: ten times faster than a volatile loop (which took a fifth
    // of a sample's own CPU), and the compiler cannot drop it.
    size_t n = FL_SAMPLE_SCRUB / sizeof(uint64_t);
    __asm__ volatile("rep stosq" : "+D"(p), "+c"(n) : "a"(0ul) : "memory");
#else
    volatile uint64_t *q = p;
    for (size_t i = 0; i < FL_SAMPLE_SCRUB / sizeof(uint64_t); i++) q[i] = 0;
#endif
}

// Runs on the stack it was entered on until the switch, so no libc calls
// before it (raw_syscall.h says why).
static void sample_handler(int sig, siginfo_t *info, void *ucv) {
    // Own threads take the program's capabilities on this signal too
    // (cred_mirror.h); only loads and compares for any other delivery.
    if (fl_cred_mirror_answer(info)) return;
    if (!info || info->si_code != SI_QUEUE || info->si_value.sival_ptr != (void *)&g_request_mark) {
        fl_sample_keep_forward(sig, info, ucv);
        return;
    }
    uint64_t w = atomic_load(&g_req);
    if (REQ_STATE(w) != REQ_OPEN) return;
    pid_t me = (pid_t)fl_raw_syscall(SYS_gettid, 0, 0, 0, 0);
    // The target read while the request is open is that request's: the
    // claim below succeeds only if the same request (numbers never repeat)
    // is still open.
    if (atomic_load(&g_target) != me) return;
    if (!atomic_compare_exchange_strong(&g_req, &w, w + (REQ_CLAIMED - REQ_OPEN))) return;
    atomic_store(&g_claimer, me);
    // Unwinding needs several KiB (libunwind's cursor and context are 1 KiB
    // each, its DWARF parsing more), which the thread's alternate stack may
    // not have left: a program may have put an 8 KiB one of its own over the
    // agent's, and the kernel's signal frame takes 3.3 KiB of that with
    // AVX-512. So unwind on the sample stack, which only the claimer uses.
    fl_call_on_stack(unwind_answer, ucv, g_sample_stack.hi);
    scrub_sample_stack();
    atomic_store(&g_claimer, 0);  // before the answer: a stale claimer never matches
    atomic_store(&g_req, w + (REQ_ANSWERED - REQ_OPEN));
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
    // frames: every signal waits, glibc's SIGSETXID too (handler_mask.h),
    // except those a fault raises (a fault while unwinding must still reach
    // the crash handler).
    fl_handler_mask_fill(&sa.sa_mask);
    fl_crash_signals_del(&sa.sa_mask);
    if (sigaction(signo, &sa, 0) != 0) return -1;
    g_signo = signo;
    return 0;
}

int fl_threads_signal(void) { return g_signo; }

int fl_threads_is_sample_handler(void (*fn)(int, siginfo_t *, void *)) { return fn == sample_handler; }

int fl_threads_handler_in_place(void) {
    struct sigaction cur;
    if (!g_signo || fl_real_sigaction(g_signo, 0, &cur) != 0) return -1;
    return (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == sample_handler ? 0 : -1;
}

void fl_threads_unblock_agent_signals(void) {
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < FL_CRASH_SIGNAL_COUNT; i++) sigaddset(&set, fl_crash_signals[i]);
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
    int n = 0, all = 0, foreign = fl_proc_foreign();
    for (;;) {
        long r = syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (r <= 0) break;
        for (long off = 0; off < r;) {
            struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
            if (d->d_name[0] >= '0' && d->d_name[0] <= '9') {
                // /proc's id, which is not ours when /proc is another pid
                // namespace's (proc_tid.h): tgkill would miss the thread.
                pid_t tid = (pid_t)fl_parse_dec(d->d_name, 0);
                if (foreign) tid = fl_ns_tid(tid);
                if (n < max && tid > 0) tids[n++] = tid;
                all++;
            }
            off += d->d_reclen;
        }
    }
    fl_close_high(fd);
    if (total) *total = all;
    return n;
}

int fl_thread_name(pid_t tid, char *buf, int cap) {
    // Faultline's own threads by their record: until one has run its first
    // line its comm is its creator's, and a program may rename any task.
    const char *own = fl_solo_thread_name(tid);
    if (own && cap > 0) return (int)fl_strlcpy(buf, own, (size_t)cap);
    char path[64];
    fl_proc_task_path(path, sizeof path, fl_proc_tid(tid), "comm");  // not under /proc/self/task (proc_tid.h)
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

// Waits, until `deadline`, for the scratch buffer to be free: an answer to
// an earlier request that claimed it after its requester gave up may still
// be writing it. Returns 1 when free.
static int wait_for_scratch(pid_t me, uint64_t deadline) {
    for (;;) {
        uint64_t w = atomic_load(&g_req);
        unsigned state = REQ_STATE(w);
        if (state == REQ_IDLE || state == REQ_ANSWERED) return 1;  // an unread late answer is dropped
        // Our own answer, cut short by a fault inside it (we are the crash
        // handler now): it will never finish.
        if (state == REQ_CLAIMED && atomic_load(&g_claimer) == me) return 1;
        // A request left open by a requester that faulted mid-request (we
        // are its crash handler): withdraw it, unless claimed meanwhile.
        if (state == REQ_OPEN && atomic_compare_exchange_strong(&g_req, &w, w - REQ_OPEN)) return 1;
        if (fl_monotonic_ns() >= deadline) return 0;
        fl_sleep_ns(10000);
    }
}

/// How long past its timeout a request waits for a thread that is
/// runnable but has not had a CPU yet. On a loaded machine (load 20 on 2
/// cores) a thread woken from pause() by the request waited more than the
/// default 50 ms for a CPU now and then, and a hang report listed it
/// uncaptured, or had no culprit stack at all for a main thread asleep in
/// clock_nanosleep (hang.late-answers, hang.pid-namespace). It is not a
/// thread that cannot answer; it has not been given the chance. The bound
/// keeps a report from waiting for ever on a thread that stays runnable
/// without answering (an answer spinning in its handler).
#define FL_RUNNABLE_WAIT_NS (1000ull * 1000000ull)
/// How often the thread's state is read while the request waits past its
/// timeout.
#define FL_RUNNABLE_RECHECK_NS (2ull * 1000000ull)

// The timeout of request `seq` has passed at `now`: a new deadline when
// `tid` is answering it (it claimed the request: a first unwind through
// cold unwind tables may wait for the disk) or is runnable (waiting for a
// CPU) and will let the sample signal in (glibc's start-up mask lifts by
// itself), else 0 (give up). Never past `until_ns` (0: no such bound).
static uint64_t waiting_for_cpu(pid_t tid, uint64_t seq, uint64_t start, uint64_t now, uint64_t most_ns,
                                uint64_t until_ns) {
    if (now - start >= most_ns || (until_ns && now >= until_ns)) return 0;
    uint64_t next = now + FL_RUNNABLE_RECHECK_NS;
    if (until_ns && next > until_ns) next = until_ns;
    if (atomic_load(&g_req) == REQ_WORD(seq, REQ_CLAIMED)) return next;
    if (!fl_sched_runnable(tid) || fl_thread_blocks_signal_lastingly(tid, g_signo)) return 0;
    return next;
}

uint64_t fl_threads_deadline(int n, uint64_t timeout_ns) {
    uint64_t ns = (uint64_t)(n > 0 ? n : 0) * timeout_ns;
    return fl_monotonic_ns() + (ns > FL_RUNNABLE_WAIT_NS ? ns : FL_RUNNABLE_WAIT_NS);
}

int fl_capture_thread(pid_t tid, uintptr_t *pcs, int max, uint64_t timeout_ns) {
    return fl_capture_thread_by(tid, pcs, max, timeout_ns, 0, 0);
}

// Sends thread `tid` the sample signal marked as a request (g_request_mark).
static int send_request(pid_t tid) { return fl_send_marked_signal(tid, g_signo, &g_request_mark); }

static int capture(pid_t tid, uintptr_t *pcs, int max, uint64_t timeout_ns, uint64_t runnable_ns, uint64_t until_ns,
                   int want_fp, int *by_fp, int *stopped);

int fl_capture_thread_by(pid_t tid, uintptr_t *pcs, int max, uint64_t timeout_ns, int want_fp, int *by_fp) {
    return capture(tid, pcs, max, timeout_ns, FL_RUNNABLE_WAIT_NS, 0, want_fp, by_fp, 0);
}

int fl_capture_thread_until(pid_t tid, uintptr_t *pcs, int max, uint64_t timeout_ns, uint64_t until_ns, int want_fp,
                            int *by_fp) {
    return capture(tid, pcs, max, timeout_ns, FL_RUNNABLE_WAIT_NS, until_ns, want_fp, by_fp, 0);
}

int fl_capture_thread_sample(pid_t tid, uintptr_t *pcs, int max, uint64_t timeout_ns, int *by_fp, int *stopped) {
    *stopped = 0;
    return capture(tid, pcs, max, timeout_ns, 0, 0, 0, by_fp, stopped);
}

// `runnable_ns`: how long from the request to wait for a thread that is
// runnable (FL_RUNNABLE_WAIT_NS, or 0). `until_ns`: when to give up
// whatever the thread does (0: no such bound). `stopped` (may be NULL): set
// to 1 when the caller was stopped while it waited for the answer (it
// switched out more often than it slept).
static int capture(pid_t tid, uintptr_t *pcs, int max, uint64_t timeout_ns, uint64_t runnable_ns, uint64_t until_ns,
                   int want_fp, int *by_fp, int *stopped) {
    if (by_fp) *by_fp = 0;
    if (!g_signo) return -1;
    if (max > FL_MAX_FRAMES) max = FL_MAX_FRAMES;
    pid_t me = fl_gettid();
    if (tid == me) return fl_capture_self(pcs, max);
    // Serialise requesters (crash handler, hang watchdog); bounded wait.
    uint64_t deadline = fl_monotonic_ns() + timeout_ns;
    if (until_ns && deadline > until_ns) deadline = until_ns;
    int expected = 0;
    while (!atomic_compare_exchange_weak(&g_requester, &expected, me)) {
        if (expected == me) break;  // re-entered from a crash inside a capture
        expected = 0;
        if (fl_monotonic_ns() > deadline) return -1;
        fl_sleep_ns(50000);
    }
    int result = -1;
    if (wait_for_scratch(me, deadline)) {
        atomic_store(&g_scratch_max, max);
        atomic_store(&g_scratch_want_fp, want_fp);
        atomic_store(&g_target, tid);
        uint64_t seq = ++g_seq;
        atomic_store(&g_req, REQ_WORD(seq, REQ_OPEN));
        uint64_t start = fl_monotonic_ns();
        uint64_t switches = stopped ? fl_own_voluntary_switches() : 0, sleeps = 0;
        if (send_request(tid) == 0) {
            for (uint64_t now = start;; now = fl_monotonic_ns()) {
                if (atomic_load(&g_req) == REQ_WORD(seq, REQ_ANSWERED)) break;
                if (now >= deadline && !(deadline = waiting_for_cpu(tid, seq, start, now, runnable_ns, until_ns)))
                    break;
                // Spin briefly (an answer usually takes a few microseconds and
                // nanosleep's timer slack is ~50 us), then back off.
                if (fl_monotonic_ns() - start > 200000) { fl_sleep_ns(20000); sleeps++; }
                else sched_yield();  // an involuntary switch
            }
        }
        if (stopped && fl_own_voluntary_switches() > switches + sleeps) *stopped = 1;
        // Withdraw the request unless it was claimed: a claimed one that is
        // not answered yet is left to its answer (the next request waits).
        uint64_t w = REQ_WORD(seq, REQ_OPEN);
        if (!atomic_compare_exchange_strong(&g_req, &w, REQ_WORD(seq, REQ_IDLE)) && w == REQ_WORD(seq, REQ_ANSWERED)) {
            result = atomic_load(&g_scratch_n);
            for (int i = 0; i < result; i++) pcs[i] = g_scratch[i];
            if (by_fp) *by_fp = atomic_load(&g_scratch_by_fp);
            atomic_store(&g_req, REQ_WORD(seq, REQ_IDLE));
        }
        atomic_store(&g_target, 0);
    }
    atomic_store(&g_requester, 0);
    return result;
}

// SigBlk from the thread's status; 0 when unreadable (a thread gone).
static uint64_t blocked_mask(pid_t tid) {
    char path[64], buf[2048];
    fl_proc_task_path(path, sizeof path, fl_proc_tid(tid), "status");  // read at every start (altstack.c)
    if (fl_read_file(path, buf, sizeof buf) <= 0) return 0;
    const char *blk = fl_find_field(buf, "\nSigBlk:");
    return blk ? fl_parse_hex(blk, 0) : 0;
}

int fl_sigblk_blocks_lastingly(uint64_t sigblk, int sig) {
    if (sig < 1 || sig > 64) return 0;
    // Signals 32 and 33 are glibc's SIGCANCEL and SIGSETXID: only glibc
    // blocks them (pthread_sigmask drops them from a program's set).
    const uint64_t glibc_own = (1ull << 31) | (1ull << 32);
    return ((sigblk >> (sig - 1)) & 1) && (sigblk & glibc_own) != glibc_own;
}

int fl_thread_blocks_signal_lastingly(pid_t tid, int sig) {
    if (sig < 1 || sig > 64) return 0;
    return fl_sigblk_blocks_lastingly(blocked_mask(tid), sig);
}
