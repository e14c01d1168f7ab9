#include "sigsafe.h"
#include "fd_transient.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

pid_t fl_gettid(void) { return (pid_t)syscall(SYS_gettid); }

int fl_send_marked_signal(pid_t tid, int sig, const void *mark) {
    // A negative si_code may be sent only to one's own threads; SI_QUEUE
    // is negative.
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = sig;
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    si.si_uid = getuid();
    si.si_value.sival_ptr = (void *)mark;
    return (int)syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, sig, &si);
}

size_t fl_strlen(const char *s) {
    size_t n = 0;
    while (s && s[n]) n++;
    return n;
}

size_t fl_strlcpy(char *dst, const char *src, size_t cap) {
    size_t n = 0;
    if (cap == 0) return 0;
    while (src && src[n] && n + 1 < cap) { dst[n] = src[n]; n++; }
    dst[n] = 0;
    return n;
}

size_t fl_strlcpy_cut(char *dst, const char *src, size_t cap, size_t max) {
    if (cap == 0) return 0;
    size_t n = fl_strlcpy(dst, src, max + 1 < cap ? max + 1 : cap);
    if (src && src[n]) n += fl_strlcpy(dst + n, "...", cap - n);
    return n;
}

int fl_streq(const char *a, const char *b) {
    while (*a && *a == *b) { a++; b++; }
    return *a == *b;
}

int fl_startswith(const char *s, const char *prefix) {
    while (*prefix) if (*s++ != *prefix++) return 0;
    return 1;
}

size_t fl_fmt_u64(char *buf, uint64_t v) {
    char tmp[21];
    size_t n = 0;
    do { tmp[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    for (size_t i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
    buf[n] = 0;
    return n;
}

size_t fl_fmt_i64(char *buf, int64_t v) {
    if (v < 0) { buf[0] = '-'; return 1 + fl_fmt_u64(buf + 1, (uint64_t)0 - (uint64_t)v); }
    return fl_fmt_u64(buf, (uint64_t)v);
}

size_t fl_fmt_hex(char *buf, uint64_t v) {
    static const char digits[] = "0123456789abcdef";
    char tmp[16];
    size_t n = 0;
    do { tmp[n++] = digits[v & 15]; v >>= 4; } while (v);
    buf[0] = '0'; buf[1] = 'x';
    for (size_t i = 0; i < n; i++) buf[2 + i] = tmp[n - 1 - i];
    buf[2 + n] = 0;
    return 2 + n;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

uint64_t fl_parse_hex(const char *s, const char **end) {
    uint64_t v = 0;
    int d;
    while ((d = hexval(*s)) >= 0) { v = (v << 4) | (uint64_t)d; s++; }
    if (end) *end = s;
    return v;
}

uint64_t fl_parse_dec(const char *s, const char **end) {
    uint64_t v = 0;
    while (*s >= '0' && *s <= '9') { v = v * 10 + (uint64_t)(*s - '0'); s++; }
    if (end) *end = s;
    return v;
}

const char *fl_find_field(const char *text, const char *name) {
    size_t n = fl_strlen(name);
    for (const char *s = text; *s; s++) {
        size_t i = 0;
        while (i < n && s[i] == name[i]) i++;
        if (i < n) continue;
        s += n;
        while (*s == ' ' || *s == '\t') s++;
        return s;
    }
    return 0;
}

static int write_loop(int fd, const void *buf, size_t len) {
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0) { if (errno == EINTR) continue; return -1; }
        p += w; len -= (size_t)w;
    }
    return 0;
}

// Our lines on stderr into a pipe whose reader has gone (`2>&1 | head`)
// raised SIGPIPE, whose default action ended the program by it (141), in
// the crash handler too, instead of by its own signal (139). SIGPIPE is
// blocked for the write, and the one the write raised (not one pending
// before) is taken back. Raw system calls: no interposer runs.
int fl_write_all_no_sigpipe(int fd, const void *buf, size_t len) {
    uint64_t pipe_bit = 1ull << (SIGPIPE - 1), old = 0, pending = 0;
    int blocked = syscall(SYS_rt_sigprocmask, SIG_BLOCK, &pipe_bit, &old, sizeof old) == 0;
    int was_pending = syscall(SYS_rt_sigpending, &pending, sizeof pending) == 0 && (pending & pipe_bit);
    int rc = write_loop(fd, buf, len), err = errno;
    if (rc != 0 && err == EPIPE && blocked && !was_pending) {
        struct timespec now = {0, 0};
        syscall(SYS_rt_sigtimedwait, &pipe_bit, (void *)0, &now, sizeof pipe_bit);
    }
    if (blocked) syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, (void *)0, sizeof old);
    errno = err;
    return rc;
}

int fl_write_all(int fd, const void *buf, size_t len) {
    return fd == 2 ? fl_write_all_no_sigpipe(fd, buf, len) : write_loop(fd, buf, len);
}

ssize_t fl_read_file(const char *path, char *buf, size_t cap) {
    // O_NONBLOCK and regular files only: a FIFO given as a file (a
    // FAULTLINE_SUPPRESSIONS path) blocked the program in open(2) at
    // startup, waiting for a writer. /proc files are regular.
    int fd = fl_open_high(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        fl_close_high(fd);
        errno = e;
        return -1;
    }
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0) { if (errno == EINTR) continue; fl_close_high(fd); return -1; }
        if (r == 0) break;
        n += (size_t)r;
    }
    buf[n] = 0;
    fl_close_high(fd);
    return (ssize_t)n;
}

void fl_sleep_ns(uint64_t ns) {
    // Until a deadline on the monotonic clock. Restarted with the time
    // nanosleep said was left, a sleep that a signal interrupted at each
    // start (one always pending: glibc's SIGSETXID while threads looped on
    // seteuid) never ended, and an exit-time leak check waited in it for
    // ever (leaks.check-under-setxid).
    uint64_t end = fl_monotonic_ns() + ns;
    struct timespec ts = { (time_t)(end / 1000000000ull), (long)(end % 1000000000ull) };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, 0) == EINTR) {}
}

uint64_t fl_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t fl_realtime_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void put2(char *p, unsigned v) { p[0] = (char)('0' + v / 10 % 10); p[1] = (char)('0' + v % 10); }

void fl_fmt_iso8601(char *buf, uint64_t unix_ns) {
    // gmtime_r is not on the async-signal-safe list; this is Howard
    // Hinnant's civil_from_days, which is.
    uint64_t secs = unix_ns / 1000000000ull;
    unsigned ms = (unsigned)(unix_ns / 1000000ull % 1000);
    int64_t days = (int64_t)(secs / 86400);
    unsigned sod = (unsigned)(secs % 86400);
    days += 719468;
    int64_t era = days / 146097;
    unsigned doe = (unsigned)(days - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = (int64_t)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    unsigned d = doy - (153 * mp + 2) / 5 + 1;
    unsigned m = mp < 10 ? mp + 3 : mp - 9;
    if (m <= 2) y++;
    unsigned yy = (unsigned)y;
    buf[0] = (char)('0' + yy / 1000 % 10); buf[1] = (char)('0' + yy / 100 % 10);
    put2(buf + 2, yy % 100); buf[4] = '-'; put2(buf + 5, m); buf[7] = '-'; put2(buf + 8, d);
    buf[10] = 'T'; put2(buf + 11, sod / 3600); buf[13] = ':'; put2(buf + 14, sod / 60 % 60);
    buf[16] = ':'; put2(buf + 17, sod % 60); buf[19] = '.';
    buf[20] = (char)('0' + ms / 100); put2(buf + 21, ms % 100); buf[23] = 'Z'; buf[24] = 0;
}

void fl_memcpy(void *dst, const void *src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--) *d++ = *s++;
}
