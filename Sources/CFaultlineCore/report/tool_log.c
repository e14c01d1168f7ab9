#include "tool_log.h"
#include "fd_transient.h"
#include "sigsafe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { LOG_UNSET, LOG_STDERR, LOG_FD, LOG_PATH };

static atomic_int g_kind;  // LOG_UNSET until fl_log_init
static int g_fd = 2;
static dev_t g_fd_dev;
static ino_t g_fd_ino;
static char g_path[PATH_MAX];

void fl_log_init(void) {
    if (atomic_load(&g_kind) != LOG_UNSET) return;
    const char *v = getenv(FL_LOG_ENV);
    int kind = LOG_STDERR;
    if (v && fl_startswith(v, "fd:")) {
        const char *end;
        uint64_t n = fl_parse_dec(v + 3, &end);
        struct stat st;
        if (end != v + 3 && !*end && n <= INT_MAX && fstat((int)n, &st) == 0) {
            g_fd = (int)n;
            g_fd_dev = st.st_dev;
            g_fd_ino = st.st_ino;
            kind = LOG_FD;
        }
    } else if (v && *v == '/' && fl_strlen(v) < sizeof g_path) {
        fl_strlcpy(g_path, v, sizeof g_path);
        kind = LOG_PATH;
    }
    atomic_store(&g_kind, kind);
}

// The log fd still the file it was at start: the program may have closed
// it and opened something else under its number.
static int fd_still_ours(void) {
    struct stat st;
    return fstat(g_fd, &st) == 0 && st.st_dev == g_fd_dev && st.st_ino == g_fd_ino;
}

// Opens the channel's path for one line, high (fd_transient.h: clear of a
// program's dup2, and drawing on the reserve when the program has used up
// its fds).
static int open_path(void) {
    int fd = fl_open_high(g_path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return -1;
    // Non-blocking only for the open (a FIFO with no reader fails at once
    // with ENXIO instead of waiting): a full pipe makes the line wait for
    // `faultline exec` to read, rather than be dropped.
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

int fl_log_write(const void *buf, size_t len) {
    if (atomic_load(&g_kind) == LOG_UNSET) fl_log_init();
    int saved = errno;
    int rc = -1;
    switch (atomic_load(&g_kind)) {
    case LOG_FD:
        if (fd_still_ours()) rc = fl_write_all_no_sigpipe(g_fd, buf, len);
        break;
    case LOG_PATH: {
        int fd = open_path();
        if (fd >= 0) {
            rc = fl_write_all_no_sigpipe(fd, buf, len);
            fl_close_high(fd);
        }
        break;
    }
    default: break;
    }
    if (rc != 0) rc = fl_write_all_no_sigpipe(2, buf, len);
    errno = saved;
    return rc;
}

int fl_log_puts(const char *s) { return fl_log_write(s, fl_strlen(s)); }

int fl_log_printf(const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) return -1;
    if ((size_t)n >= sizeof line) {
        n = sizeof line - 1;
        line[n - 1] = '\n';
    }
    return fl_log_write(line, (size_t)n);
}
