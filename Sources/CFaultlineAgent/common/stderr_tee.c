// The copy of stderr for stderr_capture.h, taken on the way out so that
// fd 2 stays the program's own file:
// - write and writev on fd 2 (Python, Rust, shells, Swift's runtime write
//   the descriptor directly);
// - the `stderr` stream: glibc's stdio writes through internal calls no
//   interposer sees, so `stderr` becomes an unbuffered fopencookie stream
//   whose writes go to fd 2 by the same write and are kept. fileno() of it
//   is 2 (isatty(fileno(stderr)) as before); freopen of it gives glibc's
//   own stream back first, so a redirect moves fd 2 as it would have;
//   fwrite, fputc and putc on glibc's own stream, which C++'s std::cerr
//   holds from before the agent started, go to the new one.
// - write and writev on a copy of fd 2, or a copy of a copy: made by dup,
//   dup2, dup3 (a shell's `cmd >&2` saves fd 1, dups 2 onto it and writes
//   to 1), by fcntl F_DUPFD and F_DUPFD_CLOEXEC (Python's os.dup, Rust's
//   std: fds/fd_fcntl.c) and by their syscall() forms (fds/fd_syscall.c),
//   each of which calls fl_stderr_copied; close, close_range, closefrom,
//   syscall(SYS_close) and a dup2 over one end it.
// Not seen: glibc's own messages written with its internal writev (malloc
// checks, stack smashing), raw system calls (Go), stdio streams opened on
// a copy (fdopen: glibc writes them internally), and copies above fd 1023.
#include "fd_hooks.h"
#include "stderr_capture.h"
#include "interpose_next.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
typedef int (*fileno_fn)(FILE *);
typedef FILE *(*freopen_fn)(const char *, const char *, FILE *);
typedef size_t (*fwrite_fn)(const void *, size_t, size_t, FILE *);
typedef int (*fputc_fn)(int, FILE *);

FL_NEXT_VAR(write)
FL_NEXT_VAR(writev)
FL_NEXT_VAR(fileno)
FL_NEXT_VAR(fileno_unlocked)
FL_NEXT_VAR(freopen)
FL_NEXT_VAR(freopen64)
FL_NEXT_VAR(fwrite)
FL_NEXT_VAR(fputc)
FL_NEXT_VAR(putc)
#define real(name) (next_##name ? next_##name : dlsym(RTLD_NEXT, #name))

static FILE *g_glibc_stderr;  // glibc's stream, which `stderr` named before
static FILE *g_stream;        // ours, while `stderr` is it

// The fds below FL_STDERR_ALIASES that are copies of fd 2, one bit each.
#define FL_STDERR_ALIASES 1024
static _Atomic uint64_t g_alias[FL_STDERR_ALIASES / 64];

static int is_alias(int fd) {
    return fd >= 0 && fd < FL_STDERR_ALIASES && (atomic_load_explicit(&g_alias[fd / 64], memory_order_relaxed) >> (fd % 64) & 1);
}

static void set_alias(int fd, int on) {
    if (fd < 0 || fd >= FL_STDERR_ALIASES || fd == 2) return;
    uint64_t bit = (uint64_t)1 << (fd % 64);
    if (on) atomic_fetch_or_explicit(&g_alias[fd / 64], bit, memory_order_relaxed);
    else atomic_fetch_and_explicit(&g_alias[fd / 64], ~bit, memory_order_relaxed);
}

void fl_stderr_copied(int oldfd, int newfd) {
    if (newfd >= 0 && newfd != oldfd) set_alias(newfd, oldfd == 2 || is_alias(oldfd));
}

void fl_stderr_closed(unsigned lo, unsigned hi) {
    for (unsigned fd = lo; fd <= hi && fd < FL_STDERR_ALIASES; fd++)
        if (is_alias((int)fd)) set_alias((int)fd, 0);
}

static int is_stderr(int fd) { return fd == 2 || is_alias(fd); }

static ssize_t raw_write(int fd, const void *buf, size_t n) {
    write_fn w = (write_fn)real(write);
    return w ? w(fd, buf, n) : syscall(SYS_write, fd, buf, n);
}

FL_EXPORT ssize_t write(int fd, const void *buf, size_t n) {
    ssize_t r = raw_write(fd, buf, n);
    if (r > 0 && is_stderr(fd)) fl_stderr_keep(buf, (size_t)r);
    return r;
}

FL_EXPORT ssize_t writev(int fd, const struct iovec *iov, int count) {
    writev_fn w = (writev_fn)real(writev);
    ssize_t r = w ? w(fd, iov, count) : syscall(SYS_writev, fd, iov, count);
    if (r <= 0 || !is_stderr(fd)) return r;
    size_t left = (size_t)r;
    for (int i = 0; i < count && left; i++) {
        size_t n = iov[i].iov_len < left ? iov[i].iov_len : left;
        fl_stderr_keep(iov[i].iov_base, n);
        left -= n;
    }
    return r;
}

static ssize_t stream_write(void *unused, const char *buf, size_t n) {
    ssize_t r = raw_write(2, buf, n);
    if (r > 0) fl_stderr_keep(buf, (size_t)r);
    return r;
}

// fclose(stderr) closes fd 2, as glibc's stream does.
static int stream_close(void *unused) { return (int)syscall(SYS_close, 2); }

static int is_ours(FILE *f) { return f && f == g_stream; }

FL_EXPORT int fileno(FILE *f) {
    int fd = ((fileno_fn)real(fileno))(f);
    return fd < 0 && is_ours(f) ? 2 : fd;
}

FL_EXPORT int fileno_unlocked(FILE *f) {
    int fd = ((fileno_fn)real(fileno_unlocked))(f);
    return fd < 0 && is_ours(f) ? 2 : fd;
}

// freopen of our stream: glibc's comes back as `stderr` and is reopened,
// which moves fd 2 as the program meant (our stream has no descriptor
// glibc could reopen). Writes to fd 2 are still kept.
// The fds detector sees the old descriptor go and the new stream's come.
static FILE *reopen(freopen_fn next, const char *path, const char *mode, FILE *f, const void *caller) {
    if (is_ours(f)) {
        fflush(f);
        stderr = g_glibc_stderr;
        g_stream = 0;
        f = g_glibc_stderr;
    }
    if (f) fl_fds_closing(fileno(f));
    FILE *r = next(path, mode, f);
    if (r) fl_fds_opened(fileno(r), FL_FD_FOPEN, caller);
    return r;
}

FL_EXPORT FILE *freopen(const char *path, const char *mode, FILE *f) {
    return reopen((freopen_fn)real(freopen), path, mode, f, __builtin_return_address(0));
}

FL_EXPORT FILE *freopen64(const char *path, const char *mode, FILE *f) {
    return reopen((freopen_fn)real(freopen64), path, mode, f, __builtin_return_address(0));
}

// glibc's stream, held by code that took `stderr` before the agent made
// its own (std::cerr), goes to ours while ours is `stderr`.
static FILE *current(FILE *f) { return f && f == g_glibc_stderr && g_stream && stderr == g_stream ? g_stream : f; }

FL_EXPORT size_t fwrite(const void *p, size_t size, size_t count, FILE *f) {
    return ((fwrite_fn)real(fwrite))(p, size, count, current(f));
}

FL_EXPORT int fputc(int c, FILE *f) { return ((fputc_fn)real(fputc))(c, current(f)); }

FL_EXPORT int putc(int c, FILE *f) { return ((fputc_fn)real(putc))(c, current(f)); }

int fl_stderr_tee_install(void) {
    if (g_stream) return 0;
    cookie_io_functions_t io = {.write = stream_write, .close = stream_close};
    FILE *f = fopencookie(0, "w", io);
    if (!f) return -1;
    setvbuf(f, 0, _IONBF, 0);
    fflush(stderr);
    g_glibc_stderr = stderr;
    g_stream = f;
    stderr = f;
    return 0;
}
