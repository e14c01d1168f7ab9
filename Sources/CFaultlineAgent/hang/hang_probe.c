#include "hang_probe.h"
#include "fd_transient.h"
#include "fd_guard.h"
#include "fd_high.h"
#include "proc_tid.h"
#include "sched_wait.h"
#include "sigsafe.h"
#include "undumpable_hook.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// --- reading -----------------------------------------------------------------

// `tid` is the process's own id (gettid); /proc may know it by another
// (proc_tid.h). Through /proc/<id>/, not /proc/self/task/<id>/: a probe of
// another thread (a futex edge, a loaded machine's slow join) left a task
// directory dentry that costs the parent ms at reap (fl_proc_task_path).
static size_t task_path(char *buf, pid_t tid, const char *leaf) {
    return fl_proc_task_path(buf, 64, fl_proc_tid(tid), leaf);
}

static const char *skip_spaces(const char *s) {
    while (*s == ' ' || *s == '\t') s++;
    return s;
}

static uint64_t parse_hex_field(const char **s) {
    const char *p = skip_spaces(*s);
    if (p[0] == '0' && p[1] == 'x') p += 2;
    const char *end;
    uint64_t v = fl_parse_hex(p, &end);
    *s = end;
    return v;
}

// "running" | "-1 SP PC" | "NR A0 A1 A2 A3 A4 A5 SP PC"
static int parse_syscall_line(const char *s, fl_thread_probe *p) {
    if (fl_startswith(s, "running")) { p->running = 1; p->nr = -1; return 0; }
    s = skip_spaces(s);
    int neg = 0;
    if (*s == '-') { neg = 1; s++; }
    const char *end;
    uint64_t nr = fl_parse_dec(s, &end);
    if (end == s) return -1;
    s = end;
    if (neg) {
        p->nr = -1;
        p->sp = parse_hex_field(&s);
        p->pc = parse_hex_field(&s);
        return 0;
    }
    p->nr = (long)nr;
    for (int i = 0; i < 6; i++) p->args[i] = parse_hex_field(&s);
    p->sp = parse_hex_field(&s);
    p->pc = parse_hex_field(&s);
    return 0;
}

static uint64_t thread_cpu_ns(pid_t tid) {
    // pthread_getcpuclockid's encoding for a thread's CPU clock
    // (CPUCLOCK_SCHED | CPUCLOCK_PERTHREAD_MASK), usable on any tid of ours.
    clockid_t id = (clockid_t)((~(unsigned)tid << 3) | 6);
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

// The watched thread's syscall file, opened just before the process may
// become non-dumpable (undumpable_hook.h) and then kept. A process that
// makes itself non-dumpable (prctl(PR_SET_DUMPABLE, 0), a change of uid:
// agents holding keys, setuid programs) gets root-owned /proc/self files,
// and the mode 0400 ones can no longer be opened by it; reading one opened
// before still works (the kernel lets a process read its own). Every other
// process reads it by path at each tick and holds no fd for it (issue 37).
// The hook runs on a program thread, the watchdog reads on its own: atomics.
static atomic_int g_kept_fd = -1;
static atomic_int g_kept_tid;   // the thread g_kept_fd is for
static atomic_int g_want_tid;   // the thread the watchdog watches

// The undumpable hook: opens the watched thread's file while it still can.
static void keep_before_undumpable(void) {
    pid_t tid = atomic_load(&g_want_tid);
    // Under a low fd limit the fd would be one of the program's few: a
    // non-dumpable process then gets no syscall line, and its hangs are
    // classified without it.
    if (!tid || fl_fd_low_limit()) return;
    int cur = atomic_load(&g_kept_fd);
    if (cur >= 0 && fl_fd_hidden(cur) && atomic_load(&g_kept_tid) == tid) return;
    char path[64];
    task_path(path, tid, "syscall");
    int fd = fl_open_high(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    fd = fl_fd_hide(fd);  // a program closing every fd closes it; the next hook opens it again
    atomic_store(&g_kept_tid, tid);
    int old = atomic_exchange(&g_kept_fd, fd);
    if (old >= 0 && fl_fd_hidden(old)) fl_fd_close(old);
}

void fl_probe_keep(pid_t tid) {
    fl_undumpable_hook_set(keep_before_undumpable);
    atomic_store(&g_want_tid, tid);
    int fd = atomic_load(&g_kept_fd);
    // Closed by the program (fd_guard.h), or kept for another thread.
    if (fd >= 0 && (!fl_fd_hidden(fd) || atomic_load(&g_kept_tid) != tid)) fl_probe_forget();
}

void fl_probe_forget(void) {
    int fd = atomic_exchange(&g_kept_fd, -1);
    if (fd >= 0 && fl_fd_hidden(fd)) fl_fd_close(fd);
    atomic_store(&g_kept_tid, 0);
}

// Reads `tid`'s syscall file into buf: through the kept fd when it is that
// thread's, else by path.
static ssize_t read_syscall_file(pid_t tid, char *buf, size_t cap) {
    int kept = atomic_load(&g_kept_fd);
    if (kept >= 0 && tid == atomic_load(&g_kept_tid) && fl_fd_hidden(kept)) {
        ssize_t n = pread(kept, buf, cap - 1, 0);
        if (n > 0) { buf[n] = 0; return n; }
        // That thread is gone (a new one may have its tid): by path.
    }
    char path[64];
    task_path(path, tid, "syscall");
    return fl_read_file(path, buf, cap);
}

int fl_probe_thread(pid_t tid, fl_thread_probe *p) {
    char path[64], buf[2048];
    for (size_t i = 0; i < sizeof *p; i++) ((char *)p)[i] = 0;
    p->tid = tid;
    p->nr = -1;
    p->time_ns = fl_monotonic_ns();
    task_path(path, tid, "status");
    if (fl_read_file(path, buf, sizeof buf) <= 0) return -1;
    const char *st = fl_find_field(buf, "\nState:");
    p->state = st ? *st : 0;
    const char *v = fl_find_field(buf, "\nvoluntary_ctxt_switches:");
    const char *nv = fl_find_field(buf, "\nnonvoluntary_ctxt_switches:");
    p->vcsw = v ? fl_parse_dec(v, 0) : 0;
    p->nvcsw = nv ? fl_parse_dec(nv, 0) : 0;
    const char *blk = fl_find_field(buf, "\nSigBlk:");
    p->sigblk = blk ? fl_parse_hex(blk, 0) : 0;
    if (p->state == 'Z' || p->state == 'X') return 0;
    if (read_syscall_file(tid, buf, sizeof buf) <= 0) return -2;
    parse_syscall_line(buf, p);
    p->cpu_ns = thread_cpu_ns(tid);
    return 0;
}

// --- classifying -------------------------------------------------------------

static int is_one_of(long nr, const long *list, int n) {
    for (int i = 0; i < n; i++) if (list[i] == nr) return 1;
    return 0;
}

// Calls in which a thread waits for events, the way an event loop does: a
// poll, a server's accept, a signal loop's sigsuspend. A program seen in one
// is one whose main thread is meant to come back to it.
static const long k_event_loop_calls[] = {
#ifdef SYS_poll
    SYS_poll,
#endif
#ifdef SYS_select
    SYS_select,
#endif
#ifdef SYS_epoll_wait
    SYS_epoll_wait,
#endif
#ifdef SYS_pause
    SYS_pause,
#endif
#ifdef SYS_epoll_pwait2
    SYS_epoll_pwait2,
#endif
    SYS_ppoll, SYS_pselect6, SYS_epoll_pwait, SYS_rt_sigsuspend, SYS_rt_sigtimedwait,
    SYS_accept, SYS_accept4, SYS_recvfrom, SYS_recvmsg, SYS_recvmmsg, SYS_msgrcv, SYS_mq_timedreceive,
};

// Other calls in which a thread waits for something to happen rather than
// for something it should not wait for, but which batch tools and shells
// block in too: a launcher's wait4, asynchronous I/O completions.
static const long k_other_idle_calls[] = {SYS_wait4, SYS_waitid, SYS_io_getevents, SYS_io_uring_enter};

// Reads that are idle when the descriptor is a pipe, socket, terminal or
// event fd; a read from a regular file or disk is not.
static const long k_read_calls[] = {SYS_read, SYS_readv};

// Calls that a SA_RESTART handler leaves transparent (the kernel restarts
// them, or glibc retries them): sampling such a thread does not change what
// the program sees. nanosleep, poll, select, epoll and the like return
// EINTR whatever the flags, so they are not here.
static const long k_signal_tolerant[] = {
    SYS_futex, SYS_read, SYS_readv, SYS_write, SYS_writev, SYS_pread64, SYS_pwrite64,
    SYS_wait4, SYS_waitid, SYS_flock, SYS_fcntl, SYS_openat, SYS_accept, SYS_accept4,
    SYS_recvfrom, SYS_recvmsg, SYS_sendto, SYS_sendmsg, SYS_fsync, SYS_fdatasync,
#ifdef SYS_open
    SYS_open,
#endif
};

#define COUNT(a) ((int)(sizeof a / sizeof a[0]))

static int fd_waits_for_events(int fd) {
    char path[48], target[64];
    size_t l = fl_strlcpy(path, "/proc/self/fd/", sizeof path);
    fl_fmt_u64(path + l, (uint64_t)fd);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n <= 0) return 0;
    target[n] = 0;
    return fl_startswith(target, "pipe:") || fl_startswith(target, "socket:") ||
           fl_startswith(target, "anon_inode:") || fl_startswith(target, "/dev/pts/") ||
           fl_startswith(target, "/dev/tty") || fl_startswith(target, "/dev/input/") ||
           fl_startswith(target, "/dev/console");
}

fl_wait_kind fl_probe_classify(const fl_thread_probe *p) {
    if (p->state == 'Z' || p->state == 'X') return FL_WAIT_GONE;
    if (p->state == 'T' || p->state == 't') return FL_WAIT_STOPPED;
    if (p->running || p->state == 'R') return FL_WAIT_RUNNING;
    if (p->nr < 0) return FL_WAIT_BLOCKED;
    if (p->nr == SYS_futex) return FL_WAIT_FUTEX;
    if (p->nr == SYS_nanosleep || p->nr == SYS_clock_nanosleep) return FL_WAIT_SLEEP;
    if (is_one_of(p->nr, k_event_loop_calls, COUNT(k_event_loop_calls)) ||
        is_one_of(p->nr, k_other_idle_calls, COUNT(k_other_idle_calls)))
        return FL_WAIT_IDLE;
    if (is_one_of(p->nr, k_read_calls, COUNT(k_read_calls)) && fd_waits_for_events((int)p->args[0]))
        return FL_WAIT_IDLE;
    return FL_WAIT_BLOCKED;
}

int fl_probe_writes_to_pipe(const fl_thread_probe *p) {
    if (p->running || (p->nr != SYS_write && p->nr != SYS_writev)) return 0;
    // The watched thread is one of ours: its descriptor is in our table.
    struct stat st;
    return fstat((int)p->args[0], &st) == 0 && S_ISFIFO(st.st_mode);
}

const char *fl_wait_kind_name(fl_wait_kind k) {
    switch (k) {
    case FL_WAIT_RUNNING: return "running";
    case FL_WAIT_IDLE: return "idle";
    case FL_WAIT_FUTEX: return "futex";
    case FL_WAIT_SLEEP: return "sleep";
    case FL_WAIT_BLOCKED: return "blocked";
    case FL_WAIT_STOPPED: return "stopped";
    case FL_WAIT_GONE: return "gone";
    }
    return "unknown";
}

const char *fl_syscall_name(long nr) {
    static const struct { long nr; const char *name; } names[] = {
        {SYS_futex, "futex"}, {SYS_nanosleep, "nanosleep"}, {SYS_clock_nanosleep, "clock_nanosleep"},
        {SYS_read, "read"}, {SYS_readv, "readv"}, {SYS_write, "write"}, {SYS_writev, "writev"},
        {SYS_pread64, "pread64"}, {SYS_pwrite64, "pwrite64"}, {SYS_ppoll, "ppoll"},
        {SYS_pselect6, "pselect6"}, {SYS_epoll_pwait, "epoll_pwait"}, {SYS_rt_sigsuspend, "rt_sigsuspend"},
        {SYS_rt_sigtimedwait, "rt_sigtimedwait"}, {SYS_wait4, "wait4"}, {SYS_waitid, "waitid"},
        {SYS_accept, "accept"}, {SYS_accept4, "accept4"}, {SYS_recvfrom, "recvfrom"},
        {SYS_recvmsg, "recvmsg"}, {SYS_connect, "connect"}, {SYS_flock, "flock"}, {SYS_fcntl, "fcntl"},
        {SYS_fsync, "fsync"}, {SYS_fdatasync, "fdatasync"}, {SYS_openat, "openat"},
        {SYS_io_uring_enter, "io_uring_enter"}, {SYS_msgrcv, "msgrcv"}, {SYS_semtimedop, "semtimedop"},
#ifdef SYS_poll
        {SYS_poll, "poll"},
#endif
#ifdef SYS_select
        {SYS_select, "select"},
#endif
#ifdef SYS_epoll_wait
        {SYS_epoll_wait, "epoll_wait"},
#endif
#ifdef SYS_pause
        {SYS_pause, "pause"},
#endif
    };
    for (int i = 0; i < COUNT(names); i++) if (names[i].nr == nr) return names[i].name;
    return 0;
}

int fl_syscall_waits_for_events(long nr) {
    return is_one_of(nr, k_event_loop_calls, COUNT(k_event_loop_calls));
}

int fl_syscall_tolerates_signal(long nr) {
    // nr -1: blocked in a page fault; the signal waits for it to finish.
    return nr < 0 || is_one_of(nr, k_signal_tolerant, COUNT(k_signal_tolerant));
}

int fl_probe_unchanged(const fl_thread_probe *a, const fl_thread_probe *b, int signals_sent) {
    if (a->running || b->running || a->state == 'R' || b->state == 'R') return 0;
    if (a->nr != b->nr || a->sp != b->sp || a->pc != b->pc) return 0;
    for (int i = 0; i < 6; i++) if (a->args[i] != b->args[i]) return 0;
    if (b->nvcsw != a->nvcsw) return 0;
    return b->vcsw - a->vcsw <= (uint64_t)signals_sent;
}

int fl_probe_tracer_pid(void) {
    char buf[4096];
    if (fl_read_file("/proc/self/status", buf, sizeof buf) <= 0) return 0;
    const char *t = fl_find_field(buf, "\nTracerPid:");
    return t ? (int)fl_parse_dec(t, 0) : 0;
}

int fl_thread_alive(pid_t tid) {
    if (tid <= 0) return 0;
    char st = fl_thread_state(tid);
    return st && st != 'Z' && st != 'X';
}
