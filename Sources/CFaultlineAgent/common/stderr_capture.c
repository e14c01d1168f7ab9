#include "fl_options.h"
#include "stderr_capture.h"
#include "raw_exit_runtime.h"
#include "altstack.h"
#include "cred_mirror.h"
#include "fd_guard.h"
#include "json_writer.h"
#include "sigsafe.h"
#include "solo_call.h"
#include "thread_count.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

static int g_active;
static int g_orig_fd = 2;
static int g_read_fd = -1;
static int g_write_fd = -1;  // our own reference to the pipe's write end
static char g_ring[FL_STDERR_RING];
static atomic_size_t g_total;      // bytes ever appended
// 1 from the moment the drain thread sees data until it has forwarded and
// kept it: with the pipe's FIONREAD this tells a waiter when every byte
// written so far has reached the real stderr (see wait_for_drain).
static atomic_int g_busy;

static void append(const char *p, size_t n) {
    size_t t = atomic_load(&g_total);
    for (size_t i = 0; i < n; i++) g_ring[(t + i) % FL_STDERR_RING] = p[i];
    atomic_store(&g_total, t + n);
}

static void after_fork_child(void);
static int restart_drain(void);

/// The drain thread, stopped around calls the kernel refuses in a
/// multi-threaded process (solo_call.h): it then waits in poll, and the
/// image's signal cuts that short. What the program writes meanwhile waits
/// in the pipe (64 KiB) for the next drain thread; nothing else is reset.
static fl_solo_thread g_solo = {.name = "faultline-err", .wake = fl_solo_wake_by_signal, .start = restart_drain};

static void *drain(void *unused) {
    // Block every signal here: this thread must not be picked for
    // process-directed signals the program expects on its own threads.
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, 0);
    fl_cred_mirror_thread_begin();  // but for the agent's signal
    fl_solo_thread_begin(&g_solo);
    char buf[4096];
    for (;;) {
        // Between reads: nothing is held, the bytes not read stay queued.
        if (fl_solo_thread_stop_asked(&g_solo)) break;
        // poll first, then mark busy, then read: data is always either still
        // in the pipe or covered by g_busy, never in between.
        struct pollfd p = { .fd = g_read_fd, .events = POLLIN };
        if (poll(&p, 1, -1) < 0) { if (errno == EINTR) continue; break; }
        atomic_store(&g_busy, 1);
        ssize_t r = read(g_read_fd, buf, sizeof buf);
        if (r > 0) {
            fl_write_all(g_orig_fd, buf, (size_t)r);
            append(buf, (size_t)r);
        }
        atomic_store(&g_busy, 0);
        if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) break;
    }
    fl_solo_thread_end(&g_solo);
    fl_cred_mirror_thread_end();
    fl_thread_recount();
    return 0;
}

// After exec the drain thread is gone but fd 2 is still our pipe, now with
// no reader: the next write would raise SIGPIPE. The pre-exec image left the
// pipe's inode and the real stderr's fd (kept open across exec for exactly
// this) in the environment; if fd 2 is that pipe, put the real stderr back.
#define FL_PIPE_ENV "FAULTLINE_STDERR_PIPE"
#define FL_ORIG_ENV "FAULTLINE_STDERR_FD"

static void undo_inherited_capture(void) {
    const char *ino = fl_option_value(FL_OPT_STDERR_PIPE), *fd = fl_option_value(FL_OPT_STDERR_FD);
    if (!ino || !fd) return;
    struct stat st;
    int orig = atoi(fd);
    if (fstat(2, &st) == 0 && S_ISFIFO(st.st_mode) && (unsigned long long)st.st_ino == strtoull(ino, 0, 10) &&
        orig > 2 && fcntl(orig, F_GETFD) >= 0) {
        dup2(orig, 2);
        close(orig);
    }
    unsetenv(FL_PIPE_ENV);
    unsetenv(FL_ORIG_ENV);
}

// 1 when fd 2 is the same open file as `fd`. Fd 2 goes back to the real
// stderr (and to the pipe after a failed exec) only while it is still ours:
// a program that pointed it elsewhere keeps that (dash applies `2> FILE`
// before it vforks and execs the command, and a restore there sent the
// command's errors to the terminal instead of FILE). Async-signal-safe.
static int fd2_is(int fd) {
    struct stat a, b;
    return fd >= 0 && fstat(2, &a) == 0 && fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// Starts the drain thread (detached); 0, or -1 with errno.
static int start_drain(void) {
    pthread_t t;
    int rc = fl_agent_thread_create(&g_solo, &t, 1, 0, drain);
    if (rc != 0) { errno = rc; return -1; }
    fl_thread_uncount();  // it must not keep the process alive
    return 0;
}

int fl_stderr_capture_start(void) {
    if (g_active) return 0;
    undo_inherited_capture();
    // Go writes its panic message (or log.Fatal's line) and exits at once
    // with a raw exit_group: the drain thread dies before it forwards the
    // last lines, which were then lost about one run in four. Its stderr
    // stays the real one; its reports have no stderr tail.
    if (fl_runtime_exits_raw()) return 0;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    fcntl(fds[0], F_SETFL, O_NONBLOCK);  // only the drain thread reads, after poll
    // Not close-on-exec: an exec'd image needs it to restore stderr (above).
    int orig = fcntl(2, F_DUPFD, 3);
    if (orig < 0) { close(fds[0]); close(fds[1]); return -1; }
    // Guarded (moved high, kept from the program's close and dup2) before
    // the drain thread or fd 2 use them: a program that closes every fd
    // above 2 or dup2s onto low numbers must not take these.
    g_orig_fd = fl_fd_guard(orig);
    g_read_fd = fl_fd_guard(fds[0]);
    g_write_fd = fl_fd_guard(fds[1]);  // close-on-exec; kept for fl_stderr_resume
    // dup2 clears FD_CLOEXEC on fd 2, so children still inherit a stderr.
    if (dup2(g_write_fd, 2) < 0) goto undo;
    if (start_drain() != 0) { dup2(g_orig_fd, 2); goto undo; }
    pthread_atfork(0, 0, after_fork_child);
    struct stat st;
    char buf[32];
    if (fstat(2, &st) == 0) {
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)st.st_ino);
        setenv(FL_PIPE_ENV, buf, 1);
        snprintf(buf, sizeof buf, "%d", g_orig_fd);
        setenv(FL_ORIG_ENV, buf, 1);
    }
    g_active = 1;
    return 0;
undo:
    fl_fd_close(g_read_fd);
    fl_fd_close(g_write_fd);
    fl_fd_close(g_orig_fd);
    g_read_fd = g_write_fd = -1;
    g_orig_fd = 2;
    return -1;
}

int fl_stderr_capture_active(void) { return g_active; }
int fl_stderr_original_fd(void) { return g_orig_fd; }

// How long a report waits for the message a runtime printed just before
// trapping: short, the process is dying.
#define FL_DRAIN_REPORT_NS 50000000ull
// How long an ending image waits for its last lines: they are the
// program's output, not ours to drop, and on a loaded machine the drain
// thread may not run for tens of milliseconds (50 ms lost a final line in
// 1 run of 10 at a load of 10).
#define FL_DRAIN_EXIT_NS 2000000000ull

// Forwards and keeps what is queued in the pipe, on the calling thread:
// only while no drain thread runs (a crash or an exit while it is stopped
// for a solo call), so the ring has one writer. Async-signal-safe. Not
// inlined, and with a small buffer: wait_for_drain runs at every exit, on
// a thread that may have a 16 KiB stack (PTHREAD_STACK_MIN), where a
// 4 KiB buffer in its frame left the dynamic linker's lazy binding too
// little (leaks.small-stack-libunwind).
__attribute__((noinline)) static void drain_here(void) {
    int saved = errno;
    char buf[1024];
    for (;;) {
        ssize_t r = read(g_read_fd, buf, sizeof buf);  // non-blocking: EAGAIN once empty
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        // On a crashing thread: a reader gone from the real stderr must not
        // end the program by SIGPIPE instead of its own signal.
        fl_write_all_no_sigpipe(g_orig_fd, buf, (size_t)r);
        append(buf, (size_t)r);
    }
    errno = saved;
}

// A solo call's restart failed: the program's stderr must not fill a pipe
// nobody reads, so what is queued goes out and fd 2 is the real stderr again.
static int restart_drain(void) {
    if (start_drain() == 0) return 0;
    drain_here();
    dup2(g_orig_fd, 2);
    g_active = 0;
    return -1;
}

// Lets the drain thread forward what is still queued in the pipe, for at
// most `max_ns`.
static void wait_for_drain(uint64_t max_ns) {
    if (fl_solo_thread_stopped(&g_solo)) { drain_here(); return; }
    uint64_t deadline = fl_monotonic_ns() + max_ns;
    for (;;) {
        int pending = 0;
        if (ioctl(g_read_fd, FIONREAD, &pending) != 0) pending = 0;
        if ((pending == 0 && !atomic_load(&g_busy)) || fl_monotonic_ns() > deadline) break;
        fl_sleep_ns(1000000);
    }
}

void fl_stderr_write_tail(fl_json *w, char *buf, size_t cap) {
    if (!g_active) return;
    size_t n = fl_stderr_tail(buf, cap);
    fl_json_string_n(w, "stderr_tail", buf, n);
}

void fl_stderr_release(void) {
    if (!g_active) return;
    wait_for_drain(FL_DRAIN_EXIT_NS);
    if (fd2_is(g_write_fd)) dup2(g_orig_fd, 2);
    // fd 2 is the real stderr again, so an image this exec loads has no
    // pipe to undo and no use for our copy: without close-on-exec it stayed
    // open there, one fd held for nothing in every exec'd program.
    fcntl(g_orig_fd, F_SETFD, FD_CLOEXEC);
}

// A forked child has no drain thread and may outlive us (a daemon, a shell's
// background job): writing into our pipe then would raise SIGPIPE. Capture
// is per process image, so the child gets the real stderr back at once (and
// its own capture if it execs a preloaded program).
static void after_fork_child(void) {
    if (!g_active) return;
    if (fd2_is(g_write_fd)) dup2(g_orig_fd, 2);
    g_active = 0;
    // The child does not capture: its copies are its own to close.
    fl_fd_unguard(g_read_fd);
    fl_fd_unguard(g_orig_fd);
    fl_fd_unguard(g_write_fd);
}

void fl_stderr_resume(void) {
    if (!g_active || g_write_fd < 0) return;
    fcntl(g_orig_fd, F_SETFD, 0);  // kept across an exec that bypasses our wrappers (above)
    if (fd2_is(g_orig_fd)) dup2(g_write_fd, 2);  // only what fl_stderr_release gave back
}

size_t fl_stderr_tail(char *out, size_t cap) {
    if (!g_active) return 0;
    wait_for_drain(FL_DRAIN_REPORT_NS);
    size_t total = atomic_load(&g_total);
    size_t n = total < FL_STDERR_RING ? total : FL_STDERR_RING;
    if (n > cap) n = cap;
    for (size_t i = 0; i < n; i++) out[i] = g_ring[(total - n + i) % FL_STDERR_RING];
    return n;
}

// At a normal exit the drain thread dies with the process: whatever the
// program wrote last (a shell's final line) would be lost in the pipe.
__attribute__((destructor)) static void release_at_exit(void) { fl_stderr_release(); }
