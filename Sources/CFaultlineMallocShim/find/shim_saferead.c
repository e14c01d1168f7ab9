#include "shim_saferead.h"
#include "shim_block.h"
#include "fd_high.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static pid_t g_pid;
static int g_pipe[2] = {-1, -1};
static atomic_int g_use_pipe;
static atomic_flag g_pipe_busy = ATOMIC_FLAG_INIT;
static atomic_int g_pipe_state;  // 0 not opened, 1 being opened, 2 done (g_pipe set, or -1 when it failed)

// process_vm_readv on ourselves, by pid, then (the main thread has ended
// with pthread_exit and the pid's task has no memory any more) by tid.
static ssize_t vm_read(void *out, const void *addr, size_t n) {
    struct iovec local = {out, n}, remote = {(void *)addr, n};
    // syscall() is variadic: pass every argument at full register width.
    long pid = g_pid ? (long)g_pid : syscall(SYS_getpid);
    ssize_t r = syscall(SYS_process_vm_readv, pid, &local, 1ul, &remote, 1ul, 0ul);
    if (r < 0 && errno == ESRCH) r = syscall(SYS_process_vm_readv, syscall(SYS_gettid), &local, 1ul, &remote, 1ul, 0ul);
    return r;
}

// The pipe is made only once process_vm_readv has been refused: it would
// otherwise hold two of the program's fds for a path most processes never
// take (a program under `ulimit -n 16` has 13 of its own). pipe2 is a
// plain system call, so the first use may be inside a report; a thread
// that finds another one opening it goes without.
static void open_pipe(void) {
    int expected = 0;
    if (!atomic_compare_exchange_strong(&g_pipe_state, &expected, 1)) return;
    int fds[2];
    if (syscall(SYS_pipe2, fds, O_CLOEXEC | O_NONBLOCK) == 0) {
        // Held for the process's life: high, where a program's `exec 4>log`
        // cannot turn it into a file that copies of our reads then go to.
        g_pipe[0] = fl_fd_move_high(fds[0]);
        g_pipe[1] = fl_fd_move_high(fds[1]);
    }
    atomic_store(&g_pipe_state, 2);
}

void shim_saferead_init(void) {
    g_pid = (pid_t)syscall(SYS_getpid);
    long probe = 1, copy = 0;
    if (vm_read(&copy, &probe, sizeof probe) < 0 && (errno == ENOSYS || errno == EPERM)) {
        atomic_store(&g_use_pipe, 1);
        open_pipe();
    }
}

void shim_saferead_after_fork(void) { g_pid = (pid_t)syscall(SYS_getpid); }

// Empties the pipe of a short write's bytes. A small buffer, looped: this
// runs on whatever stack the caller has, and a page-sized one here
// overflowed a 16 KiB thread stack whose exit ran the red-zone check
// (leaks.small-stack-libunwind).
__attribute__((noinline)) static void drain_pipe(size_t n) {
    char sink[256];
    while (n > 0) {
        ssize_t r = read(g_pipe[0], sink, n < sizeof sink ? n : sizeof sink);
        if (r <= 0) return;
        n -= (size_t)r;
    }
}

// write() from unreadable memory fails with EFAULT; the bytes that went into
// the pipe are read straight back. Serialised by a flag (try only).
static int read_via_pipe(const void *addr, void *out, size_t n) {
    if (atomic_load(&g_pipe_state) != 2) open_pipe();
    if (atomic_load(&g_pipe_state) != 2 || g_pipe[1] < 0 || n > 4096) return -1;
    for (int i = 0; atomic_flag_test_and_set(&g_pipe_busy); i++) if (i > 100000) return -1;
    int ok = -1;
    ssize_t w = write(g_pipe[1], addr, n);
    if (w == (ssize_t)n && read(g_pipe[0], out, n) == (ssize_t)n) ok = 0;
    else if (w > 0) drain_pipe((size_t)w);
    atomic_flag_clear(&g_pipe_busy);
    return ok;
}

int shim_safe_read(const void *addr, void *out, size_t n) {
    if (n == 0) return 0;
    uintptr_t a = (uintptr_t)addr;
    if (a < 4096 || a + n < a || a + n > SHIM_USER_ADDR_END) return -1;
    int saved = errno;
    int result = -1;
    if (!atomic_load_explicit(&g_use_pipe, memory_order_relaxed)) {
        ssize_t r = vm_read(out, addr, n);
        if (r == (ssize_t)n) result = 0;
        else if (r < 0 && (errno == ENOSYS || errno == EPERM)) atomic_store(&g_use_pipe, 1);
    }
    if (result != 0 && atomic_load_explicit(&g_use_pipe, memory_order_relaxed)) {
        // Copy in page-sized pieces (a pipe holds at least one page).
        result = 0;
        for (size_t off = 0; off < n && result == 0; off += 4096) {
            size_t len = n - off < 4096 ? n - off : 4096;
            result = read_via_pipe((const char *)addr + off, (char *)out + off, len);
        }
    }
    errno = saved;
    return result;
}
