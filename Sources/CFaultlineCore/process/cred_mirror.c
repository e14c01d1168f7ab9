// Own threads take the calling thread's capabilities and securebits
// (cred_mirror.h): the registry of this image's threads, one request at a
// time to one of them, and the code that runs on it.
#include "tool_log.h"
#include "cred_mirror.h"
#include "cancel_off.h"
#include "sigsafe.h"

#include <errno.h>
#include <linux/capability.h>
#include <linux/futex.h>
#include <linux/securebits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

// --- the registry of this image's own threads ------------------------------

/// More than any image starts (the agent 3, the shim 1).
#define FL_OWN_MAX 16
/// How long a set*id call waits for an own thread still starting, and for
/// one thread's answer. Only a thread stopped (ptrace) or starved for that
/// long costs them; the call then goes on unmirrored. The mirror lock is
/// waited for as long as it is held (lock()).
#define FL_START_WAIT_NS 1000000000ull
#define FL_ANSWER_WAIT_NS 500000000ull

static _Atomic pid_t g_own[FL_OWN_MAX];  // registered tids; 0: free
static _Atomic pid_t g_own_pid;          // the process they are threads of
static atomic_int g_starting;             // created, not registered yet
static atomic_uint g_generation;         // bumped at each registration
// The calling thread's tid when it is an own thread, else 0. initial-exec:
// reading it in a handler never allocates.
static __thread pid_t t_own __attribute__((tls_model("initial-exec")));

static int g_signo;
static const char *g_option;
static int (*g_prepare)(void);

void fl_cred_mirror_init(int signo, const char *option, int (*prepare)(void)) {
    g_signo = signo;
    g_option = option;
    g_prepare = prepare;
}

// A forked child has none of its parent's threads (and the registry and
// counts it inherited name the parent's): the first use in another process
// starts over.
static void claim_process(void) {
    pid_t pid = getpid();
    if (atomic_load(&g_own_pid) == pid) return;
    for (int i = 0; i < FL_OWN_MAX; i++) atomic_store(&g_own[i], 0);
    atomic_store(&g_starting, 0);
    atomic_store(&g_own_pid, pid);
}

void fl_cred_mirror_thread_starting(void) {
    claim_process();
    atomic_fetch_add(&g_starting, 1);
}

void fl_cred_mirror_thread_start_failed(void) {
    int n = atomic_load(&g_starting);
    while (n > 0 && !atomic_compare_exchange_weak(&g_starting, &n, n - 1)) {}
}

void fl_cred_mirror_thread_begin(void) {
    claim_process();
    pid_t me = fl_gettid();
    t_own = me;
    for (int i = 0; i < FL_OWN_MAX; i++) {
        pid_t free_slot = 0;
        if (atomic_compare_exchange_strong(&g_own[i], &free_slot, me)) break;
    }
    atomic_fetch_add(&g_generation, 1);
    if (g_signo) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, g_signo);
        pthread_sigmask(SIG_UNBLOCK, &set, 0);
    }
    fl_cred_mirror_thread_start_failed();  // one fewer starting
}

// --- the mirror lock --------------------------------------------------------

static atomic_int g_lock_owner;  // tid holding it, 0 when free

// Waited for without a deadline, as glibc's set*id calls wait for one
// another (and for every thread, a stopped one too). A caller that went on
// unmirrored after 2 s, as it once did, made its set*id call while the
// holder was giving our threads the state it had read before that call:
// they kept capabilities the program's threads had lost, or lacked ones
// they had, and glibc aborted a later set*id call (three threads flipping
// seteuid while two forked: the lock timed out 3 times in 2 s).
static void lock(fl_cred_turn *turn) {
    turn->locked = 0;
    pid_t me = fl_gettid();
    for (;;) {
        int owner = 0;
        if (atomic_compare_exchange_strong(&g_lock_owner, &owner, me)) { turn->locked = 1; return; }
        // Re-entered from a signal handler on this thread (POSIX lets
        // handlers call setuid): go on without mirroring.
        if (owner == me) return;
        // Its owner is no thread of this process (a forked child inherits
        // the word, not the thread): take it over. Signal 0 only checks.
        if (syscall(SYS_tgkill, getpid(), owner, 0) != 0 && errno == ESRCH) {
            if (atomic_compare_exchange_strong(&g_lock_owner, &owner, me)) { turn->locked = 1; return; }
            continue;
        }
        // Woken by unlock; the timeout rechecks the owner still exists.
        struct timespec ts = {0, 10000000};
        syscall(SYS_futex, (int *)&g_lock_owner, FUTEX_WAIT_PRIVATE, owner, &ts, (void *)0, 0);
    }
}

static void unlock(fl_cred_turn *turn) {
    if (turn->locked) {
        atomic_store(&g_lock_owner, 0);
        syscall(SYS_futex, (int *)&g_lock_owner, FUTEX_WAKE_PRIVATE, 1, (void *)0, (void *)0, 0);
    }
    turn->locked = 0;
}

void fl_cred_mirror_thread_end(void) {
    fl_cred_turn turn;
    lock(&turn);  // a request to this thread under way ends first
    for (int i = 0; i < FL_OWN_MAX; i++) {
        pid_t me = t_own;
        atomic_compare_exchange_strong(&g_own[i], &me, 0);
    }
    t_own = 0;
    unlock(&turn);
}

// --- what is mirrored -------------------------------------------------------

/// A thread's securebits (KEEPCAPS is SECBIT_KEEP_CAPS among them) and its
/// effective, permitted and inheritable capability sets.
typedef struct {
    long securebits;
    struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3];
} cred_state;

static long get_securebits(void) { return syscall(SYS_prctl, PR_GET_SECUREBITS, 0L, 0L, 0L, 0L); }

static int read_state(cred_state *s) {
    memset(s, 0, sizeof *s);  // compared with memcmp
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    s->securebits = get_securebits();
    return s->securebits >= 0 && syscall(SYS_capget, &h, s->caps) == 0 ? 0 : -1;
}

// Runs on the own thread, in the signal handler: raw system calls only
// (libc's syscall() is a plain wrapper, async-signal-safe; own threads run
// their handlers on stacks of Faultline's, so its PLT entry has room). The
// order matters: PR_SET_SECUREBITS needs CAP_SETPCAP, which the capset may
// take away (try it first) or bring (try again after); PR_SET_KEEPCAPS
// needs no capability. Returns 0, or an errno value when the thread did not
// end up as asked.
static int apply(const cred_state *want) {
    long now = get_securebits();
    int bits_failed = now >= 0 && ((now ^ want->securebits) & ~(long)SECBIT_KEEP_CAPS) &&
                      syscall(SYS_prctl, PR_SET_SECUREBITS, want->securebits, 0L, 0L, 0L) != 0;
    now = get_securebits();
    if (now >= 0 && ((now ^ want->securebits) & SECBIT_KEEP_CAPS))
        syscall(SYS_prctl, PR_SET_KEEPCAPS, (want->securebits & SECBIT_KEEP_CAPS) ? 1L : 0L, 0L, 0L, 0L);
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    int caps_failed = syscall(SYS_capset, &h, want->caps) != 0;
    int e = caps_failed ? errno : 0;
    if (bits_failed) syscall(SYS_prctl, PR_SET_SECUREBITS, want->securebits, 0L, 0L, 0L);
    cred_state got;
    if (read_state(&got) != 0) return errno;
    return memcmp(&got, want, sizeof got) == 0 ? 0 : (e ? e : EPERM);
}

// --- one request at a time --------------------------------------------------

// g_req is the request's number and where it stands (REQ_*), in one word a
// futex can wait on. The requester (holding the mirror lock) opens it for
// g_target; that thread's handler claims it with a compare-and-swap, applies
// g_want, and marks it answered with another, so an answer that comes after
// its requester gave up changes nothing (the numbers do not repeat).
enum { REQ_IDLE = 0, REQ_OPEN = 1, REQ_CLAIMED = 2, REQ_ANSWERED = 3 };
#define REQ_WORD(seq, state) (((seq) << 2) | (uint32_t)(state))
static _Atomic uint32_t g_req;
static atomic_int g_target;
static atomic_int g_answer;       // the answer's errno value, 0 when applied
static uint32_t g_seq;            // last request number (under the lock)
static cred_state g_want;         // what to apply; written under the lock
/// Its address marks this image's requests (si_value): a program's own
/// SI_QUEUE signal on the same number never matches.
static const char g_cookie;

int fl_cred_mirror_answer(const siginfo_t *info) {
    if (!info || info->si_code != SI_QUEUE || info->si_value.sival_ptr != (void *)&g_cookie) return 0;
    pid_t me = t_own;
    if (!me) return 1;  // not an own thread (a recycled tid): never act on it
    int saved = errno;
    uint32_t w = atomic_load(&g_req);
    if ((w & 3u) == REQ_OPEN && atomic_load(&g_target) == me &&
        atomic_compare_exchange_strong(&g_req, &w, (w & ~3u) | REQ_CLAIMED)) {
        atomic_store(&g_answer, apply(&g_want));
        uint32_t claimed = (w & ~3u) | REQ_CLAIMED;
        atomic_compare_exchange_strong(&g_req, &claimed, (w & ~3u) | REQ_ANSWERED);
        syscall(SYS_futex, &g_req, FUTEX_WAKE_PRIVATE, 1, (void *)0, (void *)0, 0);
    }
    errno = saved;
    return 1;
}

// Waits until `deadline` for g_req to leave `from`; returns what it holds.
static uint32_t wait_while(uint32_t from, uint64_t deadline) {
    for (;;) {
        uint32_t w = atomic_load(&g_req);
        uint64_t now = fl_monotonic_ns();
        if (w != from || now >= deadline) return w;
        uint64_t left = deadline - now < 10000000ull ? deadline - now : 10000000ull;
        struct timespec ts = {0, (long)left};
        syscall(SYS_futex, &g_req, FUTEX_WAIT_PRIVATE, from, &ts, (void *)0, 0);
    }
}

// Sends own thread `tid` the image's signal, marked as this image's
// (fl_cred_mirror_answer then acts on the open request for that thread, if
// any). 0, or -1 with errno.
static int send_marked(pid_t tid) { return fl_send_marked_signal(tid, g_signo, &g_cookie); }

int fl_cred_mirror_signal(void) { return g_signo; }

int fl_cred_mirror_nudge(pid_t tid) {
    if (!g_signo || tid <= 0) { errno = EINVAL; return -1; }
    // A handler the program put on the signal would run on our thread.
    if (g_prepare && g_prepare() != 0) { errno = ENOTSUP; return -1; }
    return send_marked(tid);
}

// Asks own thread `tid` to apply g_want. Returns 0, ESRCH when the thread
// is gone, ETIMEDOUT when it did not answer, or the answer's errno value.
static int ask(pid_t tid) {
    uint32_t seq = ++g_seq & 0x3fffffffu;
    uint32_t open = REQ_WORD(seq, REQ_OPEN), claimed = REQ_WORD(seq, REQ_CLAIMED);
    atomic_store(&g_target, tid);
    atomic_store(&g_req, open);
    int result = ETIMEDOUT;
    if (send_marked(tid) != 0) {
        result = errno;
    } else {
        uint64_t deadline = fl_monotonic_ns() + FL_ANSWER_WAIT_NS;
        uint32_t w = wait_while(open, deadline);
        // Claimed: the answer is a few system calls away; wait for it.
        if (w == claimed) w = wait_while(claimed, deadline + FL_ANSWER_WAIT_NS);
        if (w == REQ_WORD(seq, REQ_ANSWERED)) result = atomic_load(&g_answer);
    }
    // Withdraw it unless answered: a late claim then fails.
    atomic_store(&g_req, REQ_WORD(seq, REQ_IDLE));
    atomic_store(&g_target, 0);
    return result;
}

// --- mirroring ----------------------------------------------------------------

static cred_state g_last;  // what every own thread was last given
static int g_last_valid;
static unsigned g_last_generation;

// One line, once per process, when own thread `tid` could not be given the
// calling thread's state (`err`, or 0 when the program has taken the
// signal): a later set*id call may then abort in glibc.
static void say_not_mirrored(pid_t tid, int err) {
    static atomic_int said;
    if (atomic_exchange(&said, 1)) return;
    char line[384], num[24];
    size_t n = fl_strlcpy(line, "faultline: Faultline's thread ", sizeof line);
    fl_fmt_u64(num, (uint64_t)tid);
    n += fl_strlcpy(line + n, num, sizeof line - n);
    n += fl_strlcpy(line + n, " could not take this thread's capabilities and securebits (", sizeof line - n);
    if (err) {
        const char *name = strerrorname_np(err);  // a static table's entry: no allocation
        n += fl_strlcpy(line + n, name ? name : "error", sizeof line - n);
    } else {
        fl_fmt_u64(num, (uint64_t)g_signo);
        n += fl_strlcpy(line + n, "the program has its own handler for signal ", sizeof line - n);
        n += fl_strlcpy(line + n, num, sizeof line - n);
        n += fl_strlcpy(line + n, "; choose another with ", sizeof line - n);
        n += fl_strlcpy(line + n, g_option ? g_option : "its option", sizeof line - n);
    }
    n += fl_strlcpy(line + n, "); glibc aborts a set*id call whose result differs between threads\n", sizeof line - n);
    fl_log_write(line, n);
}

// Every own thread but the caller takes the caller's state, unless it has
// it already (nothing changed since it was last given, and no thread
// registered since).
static void sync_threads(const fl_cred_turn *turn) {
    if (!turn->locked || !g_signo || atomic_load(&g_own_pid) != getpid()) return;
    uint64_t deadline = fl_monotonic_ns() + FL_START_WAIT_NS;
    while (atomic_load(&g_starting) > 0 && fl_monotonic_ns() < deadline) fl_sleep_ns(100000);
    unsigned generation = atomic_load(&g_generation);
    cred_state now;
    if (read_state(&now) != 0) return;
    if (g_last_valid && generation == g_last_generation && memcmp(&now, &g_last, sizeof now) == 0) return;
    pid_t me = fl_gettid(), tids[FL_OWN_MAX];
    int n = 0;
    for (int i = 0; i < FL_OWN_MAX; i++) {
        pid_t tid = atomic_load(&g_own[i]);
        if (tid && tid != me) tids[n++] = tid;
    }
    if (n == 0) return;
    g_last_valid = 0;
    if (g_prepare && g_prepare() != 0) {
        say_not_mirrored(tids[0], 0);
        return;
    }
    g_want = now;
    int all = 1;
    for (int i = 0; i < n; i++) {
        int e = ask(tids[i]);
        if (e == ESRCH) continue;  // ended meanwhile
        if (e) { all = 0; say_not_mirrored(tids[i], e); }
    }
    g_last = now;
    g_last_valid = all;
    g_last_generation = generation;
}

static int finish(fl_cred_turn *turn, int rc, int saved_errno) {
    unlock(turn);
    fl_cancel_restore(turn->cancel_state);
    errno = saved_errno;
    return rc;
}

// The wrapped calls are no cancellation points, but the waits and the
// one-line message here are: a thread with a pthread_cancel pending ended
// inside setresuid, holding the mirror lock (cancel_off.h).
void fl_cred_mirror_before_setxid(fl_cred_turn *turn) {
    int saved = errno;
    turn->cancel_state = fl_cancel_off();
    lock(turn);
    sync_threads(turn);
    errno = saved;
}

int fl_cred_mirror_after_setxid(fl_cred_turn *turn, int rc) {
    int saved = errno;
    // Our threads made the same change from the same state.
    if (turn->locked && rc == 0 && g_last_valid && read_state(&g_last) != 0) g_last_valid = 0;
    return finish(turn, rc, saved);
}

void fl_cred_mirror_before_change(fl_cred_turn *turn) {
    int saved = errno;
    turn->cancel_state = fl_cancel_off();
    lock(turn);
    errno = saved;
}

int fl_cred_mirror_after_change(fl_cred_turn *turn, int rc) {
    int saved = errno;
    if (rc == 0) sync_threads(turn);
    return finish(turn, rc, saved);
}
