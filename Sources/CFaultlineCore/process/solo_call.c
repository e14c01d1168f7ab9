// Stopping this image's own threads around a call the kernel refuses in a
// multi-threaded process, and starting them again after it (solo_call.h).
#include "crash_signals.h"
#include "tool_log.h"
#include "solo_call.h"
#include "cancel_off.h"
#include "cred_mirror.h"
#include "interpose_next.h"
#include "sigsafe.h"
#include "symbol_table.h"

#include <linux/futex.h>
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/// Where a registered thread stands. RUNNING → STOP (a solo call asks) →
/// LEAVING (the thread, at a safe point) → OFF (the caller saw it end) →
/// RUNNING (started again). A thread ending on its own goes to LEAVING.
enum { SOLO_OFF, SOLO_RUNNING, SOLO_STOP, SOLO_LEAVING };

/// More than any image registers (the agent 3, the shim 1).
#define FL_SOLO_MAX 8
/// How long a solo call waits for the threads to end. Only one that is
/// stopped (ptrace) or busy for that long (a leak check of a large heap)
/// costs it; the call is then made with it running.
#define FL_SOLO_WAIT_NS 2000000000ull
/// After that, how long it waits for a thread that has already left its
/// loop (it cannot be called back).
#define FL_SOLO_LEAVING_WAIT_NS 200000000ull
/// How often a thread that has not ended is woken again.
#define FL_SOLO_WAKE_EVERY_NS 1000000ull

static fl_solo_thread *_Atomic g_threads[FL_SOLO_MAX];

/// faultline_solo_thread_name of the next image and of the first one in
/// the lookup order (the agent, when it is preloaded before the shim),
/// looked up by fl_solo_link_images: dlsym is no call for a signal handler.
static const char *(*_Atomic g_named_after_here)(pid_t);
static const char *(*_Atomic g_named_first)(pid_t);
static atomic_int g_linked;

void fl_solo_link_images(void) {
    if (atomic_load(&g_linked)) return;
    // Asked only when a later image has one (the shim, after the agent):
    // a failed dlsym mallocs dlerror's message.
    if (fl_symbol_after((const void *)fl_solo_link_images, "faultline_solo_thread_name"))
        atomic_store(&g_named_after_here, (const char *(*)(pid_t))dlsym(RTLD_NEXT, "faultline_solo_thread_name"));
    atomic_store(&g_named_first, (const char *(*)(pid_t))dlsym(RTLD_DEFAULT, "faultline_solo_thread_name"));
    atomic_store(&g_linked, 1);
}

void fl_solo_thread_starting(fl_solo_thread *t) {
    fl_solo_link_images();
    int known = 0;
    for (int i = 0; i < FL_SOLO_MAX && !known; i++) known = atomic_load(&g_threads[i]) == t;
    for (int i = 0; i < FL_SOLO_MAX && !known; i++) {
        fl_solo_thread *free_slot = 0;
        known = atomic_compare_exchange_strong(&g_threads[i], &free_slot, t);
    }
    atomic_store(&t->tid, 0);
    atomic_store(&t->pid, getpid());
    atomic_store(&t->state, SOLO_RUNNING);
}

void fl_solo_thread_start_failed(fl_solo_thread *t) { atomic_store(&t->state, SOLO_OFF); }

void fl_solo_thread_begin(fl_solo_thread *t) {
    // The system call itself, not the agent's prctl interposer, whose first
    // call looks up the next prctl: dlsym takes the loader's lock, which the
    // installing thread holds often enough to make one wait for the other.
    syscall(SYS_prctl, (long)PR_SET_NAME, t->name);
    // Its creator has stored the same id already (fl_solo_thread_created),
    // unless it could not read it.
    atomic_store(&t->tid, fl_gettid());
}

void fl_solo_thread_created(fl_solo_thread *t, pthread_t thread) {
    // The kernel wrote the new thread's id into glibc's descriptor before
    // clone returned (CLONE_PARENT_SETTID); glibc hands it out in the id of
    // the thread's CPU clock, ((~tid) << 3) | 6 (the kernel's
    // MAKE_THREAD_CPUCLOCK).
    clockid_t clock;
    if (pthread_getcpuclockid(thread, &clock) != 0) return;
    pid_t tid = (pid_t)~(clock >> 3);
    pid_t unknown = 0;
    if (tid > 0) atomic_compare_exchange_strong(&t->tid, &unknown, tid);
}

int fl_solo_thread_stop_asked(fl_solo_thread *t) {
    int asked = SOLO_STOP;
    // Claimed, so a solo call that gives up waiting cannot take the request
    // back once the thread has acted on it.
    return atomic_compare_exchange_strong(&t->state, &asked, SOLO_LEAVING);
}

void fl_solo_thread_end(fl_solo_thread *t) { atomic_store(&t->state, SOLO_LEAVING); }

int fl_solo_thread_stopped(fl_solo_thread *t) {
    int s = atomic_load(&t->state);
    return (s == SOLO_LEAVING || s == SOLO_OFF) && atomic_load(&t->pid) == getpid();
}

void fl_solo_wake_by_signal(fl_solo_thread *t) {
    pid_t tid = atomic_load(&t->tid);
    if (tid > 0) fl_cred_mirror_nudge(tid);
}

// --- which threads are whose ------------------------------------------------

/// This image's threads running in this process (a forked child inherits
/// the registry, not the threads).
static int running_here(void) {
    pid_t pid = getpid();
    int n = 0;
    for (int i = 0; i < FL_SOLO_MAX; i++) {
        fl_solo_thread *t = atomic_load(&g_threads[i]);
        if (t && atomic_load(&t->pid) == pid && atomic_load(&t->state) == SOLO_RUNNING) n++;
    }
    return n;
}

/// The running threads of the Faultline images after this one in the
/// lookup order (the shim, after the agent), through their copy of this.
static int running_after_here(void) {
    static int (*next)(void);
    static int looked;
    if (!looked) {
        next = (int (*)(void))dlsym(RTLD_NEXT, "faultline_solo_threads_running");
        looked = 1;
    }
    return next ? next() : 0;
}

/// The name of this image's thread `tid` in this process, or NULL.
/// Async-signal-safe.
static const char *named_here(pid_t tid) {
    pid_t pid = getpid();
    for (int i = 0; i < FL_SOLO_MAX; i++) {
        fl_solo_thread *t = atomic_load(&g_threads[i]);
        if (t && atomic_load(&t->tid) == tid && atomic_load(&t->pid) == pid && atomic_load(&t->state) != SOLO_OFF)
            return t->name;
    }
    return 0;
}

/// Exported under one name by every image, so that the first can tell all
/// of Faultline's threads from the program's by id, and name them: this
/// image's and those of the images after it. Async-signal-safe.
FL_EXPORT const char *faultline_solo_thread_name(pid_t tid);
const char *faultline_solo_thread_name(pid_t tid) {
    if (tid <= 0) return 0;
    const char *name = named_here(tid);
    if (name) return name;
    const char *(*next)(pid_t) = atomic_load(&g_named_after_here);
    return next ? next(tid) : 0;
}

const char *fl_solo_thread_name(pid_t tid) {
    const char *name = faultline_solo_thread_name(tid);
    if (name) return name;
    const char *(*first)(pid_t) = atomic_load(&g_named_first);
    return first && first != faultline_solo_thread_name ? first(tid) : 0;
}

int fl_solo_thread_is_faultlines(pid_t tid) { return fl_solo_thread_name(tid) != 0; }

/// Exported under one name by every image, so that the first can tell the
/// others' threads from the program's: this image's running threads and
/// those of the images after it.
FL_EXPORT int faultline_solo_threads_running(void);
int faultline_solo_threads_running(void) { return running_here() + running_after_here(); }

/// The process's thread count (Threads: in /proc/self/status), -1 when it
/// cannot be read (no /proc in this mount namespace).
static long process_threads(void) {
    char buf[4096];
    if (fl_read_file("/proc/self/status", buf, sizeof buf) <= 0) return -1;
    const char *v = fl_find_field(buf, "\nThreads:");
    return v ? (long)fl_parse_dec(v, 0) : -1;
}

// --- one line, once ---------------------------------------------------------

static void say(const char *what, const fl_solo_thread *t, const char *call, const char *after) {
    char line[320];
    size_t n = fl_strlcpy(line, "faultline: Faultline's thread ", sizeof line);
    n += fl_strlcpy(line + n, t->name, sizeof line - n);
    n += fl_strlcpy(line + n, what, sizeof line - n);
    n += fl_strlcpy(line + n, call, sizeof line - n);
    n += fl_strlcpy(line + n, after, sizeof line - n);
    fl_log_write(line, n);
}

static void say_not_stopped(const fl_solo_thread *t, const char *call) {
    static atomic_int said;
    if (atomic_exchange(&said, 1)) return;
    say(" did not end within 2 s for ", t, call,
        ", so the call was made with it running (the kernel refuses it in a process with more than one thread)\n");
}

static void say_not_restarted(const fl_solo_thread *t, const char *call) {
    static atomic_int said;
    if (atomic_exchange(&said, 1)) return;
    say(" could not be started again after ", t, call, "; what it does is off for the rest of this process\n");
}

// --- the call ---------------------------------------------------------------

/// 1 once thread `t` has left its loop and the kernel has taken it out of
/// the thread group: its id is let go in the same step (release_task), so
/// signal 0 (which only checks) fails with ESRCH from then on.
static int has_ended(fl_solo_thread *t) {
    pid_t tid = atomic_load(&t->tid);
    return atomic_load(&t->state) == SOLO_LEAVING && tid > 0 && syscall(SYS_tgkill, getpid(), tid, 0) != 0 &&
           errno == ESRCH;
}

/// Waits for the threads asked to stop to end, waking them every
/// millisecond, for at most `limit_ns`. Returns 1 when all have.
static int wait_for_ends(fl_solo_turn *turn, uint64_t limit_ns) {
    uint64_t now = fl_monotonic_ns(), deadline = now + limit_ns, next_wake = now;
    for (;;) {
        int waiting = 0, wake = now >= next_wake;
        for (int i = 0; i < FL_SOLO_MAX; i++) {
            unsigned bit = 1u << i;
            if (!(turn->stopped & bit) || (turn->gone & bit)) continue;
            fl_solo_thread *t = atomic_load(&g_threads[i]);
            if (has_ended(t)) {
                turn->gone |= bit;
                atomic_store(&t->state, SOLO_OFF);
                continue;
            }
            waiting = 1;
            if (wake && atomic_load(&t->state) == SOLO_STOP && t->wake) t->wake(t);
        }
        if (!waiting) return 1;
        if (now >= deadline) return 0;
        if (wake) next_wake = now + FL_SOLO_WAKE_EVERY_NS;
        fl_sleep_ns(50000);  // a thread takes some tens of microseconds to end
        now = fl_monotonic_ns();
    }
}

int fl_solo_thread_stop(fl_solo_thread *t) {
    fl_solo_turn turn;
    memset(&turn, 0, sizeof turn);
    int running = SOLO_RUNNING;
    for (int i = 0; i < FL_SOLO_MAX; i++)
        if (atomic_load(&g_threads[i]) == t && atomic_load(&t->pid) == getpid() &&
            atomic_compare_exchange_strong(&t->state, &running, SOLO_STOP))
            turn.stopped = 1u << i;
    return !turn.stopped || wait_for_ends(&turn, FL_SOLO_WAIT_NS);
}

void fl_solo_enter(fl_solo_turn *turn, const char *call) {
    int saved = errno;
    memset(turn, 0, sizeof *turn);
    // unshare and setns are no cancellation points; the reads and sleeps
    // here are: a pending pthread_cancel ended the caller with our threads
    // stopped (cancel_off.h).
    turn->cancel_state = fl_cancel_off();
    int mine = running_here();
    if (mine == 0) goto done;  // nothing of this image's in the way
    // Any other thread is the program's: the call fails for it as it would
    // without Faultline, and ours stay. (Unknown without /proc: go ahead.)
    long threads = process_threads();
    if (threads > 0 && threads != 1 + mine + running_after_here()) goto done;
    // No handler of the program's runs while our threads are away (one that
    // forks, execs or exits would find them half gone). The fault signals
    // still reach the crash handler; the image's own signal still answers
    // the watchdog's sample of this thread, which it may be taking.
    sigset_t set;
    sigfillset(&set);
    fl_crash_signals_del(&set);
    if (fl_cred_mirror_signal()) sigdelset(&set, fl_cred_mirror_signal());
    turn->masked = pthread_sigmask(SIG_BLOCK, &set, &turn->old_mask) == 0;
    pid_t pid = getpid();
    for (int i = 0; i < FL_SOLO_MAX; i++) {
        fl_solo_thread *t = atomic_load(&g_threads[i]);
        int running = SOLO_RUNNING;
        if (t && atomic_load(&t->pid) == pid && atomic_compare_exchange_strong(&t->state, &running, SOLO_STOP))
            turn->stopped |= 1u << i;
    }
    if (wait_for_ends(turn, FL_SOLO_WAIT_NS)) goto done;
    // Those still running take the request back; one that has already left
    // its loop cannot, and is waited for a little longer.
    for (int i = 0; i < FL_SOLO_MAX; i++) {
        unsigned bit = 1u << i;
        if (!(turn->stopped & bit) || (turn->gone & bit)) continue;
        fl_solo_thread *t = atomic_load(&g_threads[i]);
        int asked = SOLO_STOP;
        if (atomic_compare_exchange_strong(&t->state, &asked, SOLO_RUNNING)) turn->stopped &= ~bit;
        say_not_stopped(t, call);
    }
    wait_for_ends(turn, FL_SOLO_LEAVING_WAIT_NS);
    turn->stopped = turn->gone;  // one that never ended is not started twice
done:
    errno = saved;
}

int fl_solo_retry(fl_solo_turn *turn, int rc) {
    int e = errno;
    if (rc != -1 || !turn->gone || turn->gone != turn->stopped || turn->retries >= 2) return 0;
    if (e != EINVAL && e != EUSERS) return 0;
    turn->retries++;
    fl_sleep_ns(1000000);
    errno = e;
    return 1;
}

void fl_solo_leave(fl_solo_turn *turn, const char *call) {
    int saved = errno;
    for (int i = 0; i < FL_SOLO_MAX; i++) {
        if (!(turn->gone & (1u << i))) continue;
        fl_solo_thread *t = atomic_load(&g_threads[i]);
        if (t->start() != 0) say_not_restarted(t, call);
    }
    if (turn->masked) pthread_sigmask(SIG_SETMASK, &turn->old_mask, 0);
    turn->stopped = turn->gone = 0;
    fl_cancel_restore(turn->cancel_state);
    errno = saved;
}
