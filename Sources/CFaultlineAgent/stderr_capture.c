#include "stderr_capture.h"
#include "sigsafe.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int g_active;
static int g_orig_fd = 2;
static int g_read_fd = -1;
static char g_ring[FL_STDERR_RING];
static atomic_size_t g_total;      // bytes ever appended
static atomic_int g_appending;     // drain thread is mid-append

static void append(const char *p, size_t n) {
    atomic_store(&g_appending, 1);
    size_t t = atomic_load(&g_total);
    for (size_t i = 0; i < n; i++) g_ring[(t + i) % FL_STDERR_RING] = p[i];
    atomic_store(&g_total, t + n);
    atomic_store(&g_appending, 0);
}

static void *drain(void *unused) {
    // Block every signal here: this thread must not be picked for
    // process-directed signals the program expects on its own threads.
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, 0);
    char buf[4096];
    for (;;) {
        ssize_t r = read(g_read_fd, buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        fl_write_all(g_orig_fd, buf, (size_t)r);
        append(buf, (size_t)r);
    }
    return 0;
}

int fl_stderr_capture_start(void) {
    if (g_active) return 0;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    int orig = fcntl(2, F_DUPFD_CLOEXEC, 3);
    if (orig < 0) { close(fds[0]); close(fds[1]); return -1; }
    g_orig_fd = orig;
    g_read_fd = fds[0];
    // dup2 clears FD_CLOEXEC on fd 2, so children still inherit a stderr.
    if (dup2(fds[1], 2) < 0) { close(fds[0]); close(fds[1]); g_orig_fd = 2; return -1; }
    close(fds[1]);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &attr, drain, 0);
    pthread_attr_destroy(&attr);
    if (rc != 0) { dup2(orig, 2); g_orig_fd = 2; return -1; }
    pthread_setname_np(t, "faultline-err");  // 15 characters at most
    g_active = 1;
    return 0;
}

int fl_stderr_capture_active(void) { return g_active; }
int fl_stderr_original_fd(void) { return g_orig_fd; }

// Lets the drain thread forward what is still queued in the pipe (the
// message a runtime printed just before trapping), for at most 50 ms.
static void wait_for_drain(void) {
    uint64_t deadline = fl_monotonic_ns() + 50000000ull;
    for (;;) {
        int pending = 0;
        if (ioctl(g_read_fd, FIONREAD, &pending) != 0) pending = 0;
        if ((pending == 0 && !atomic_load(&g_appending)) || fl_monotonic_ns() > deadline) break;
        fl_sleep_ns(1000000);
    }
}

void fl_stderr_release(void) {
    if (!g_active) return;
    wait_for_drain();
    dup2(g_orig_fd, 2);
}

size_t fl_stderr_tail(char *out, size_t cap) {
    if (!g_active) return 0;
    wait_for_drain();
    size_t total = atomic_load(&g_total);
    size_t n = total < FL_STDERR_RING ? total : FL_STDERR_RING;
    if (n > cap) n = cap;
    for (size_t i = 0; i < n; i++) out[i] = g_ring[(total - n + i) % FL_STDERR_RING];
    return n;
}
