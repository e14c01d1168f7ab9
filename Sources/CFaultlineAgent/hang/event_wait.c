#include "event_wait.h"
#include "own_memory.h"
#include "sigsafe.h"

#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>

/// Descriptors looked at in one poll or select; more are taken as events.
#define FL_EVENT_FDS_MAX 64
/// The bits of an fd_set (FD_SETSIZE); select on more is taken as events.
#define FL_SELECT_BITS 1024

// 1 when `fd` is an event source: anything but a pipe or FIFO. A
// descriptor closed meanwhile is not evidence either way (0).
static int event_source(int fd) {
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 && !S_ISFIFO(st.st_mode);
}

static int poll_waits(uintptr_t fds_addr, uint64_t nfds) {
    if (nfds == 0) return 0;  // poll(NULL, 0, ms): a sleep
    struct pollfd fds[FL_EVENT_FDS_MAX];
    size_t n = nfds < FL_EVENT_FDS_MAX ? (size_t)nfds : FL_EVENT_FDS_MAX;
    if (fl_read_own_memory(fds_addr, fds, n * sizeof fds[0]) != 0) return 1;
    for (size_t i = 0; i < n; i++)
        if (event_source(fds[i].fd)) return 1;
    return nfds > FL_EVENT_FDS_MAX;
}

static int select_waits(uint64_t nfds, const uint64_t *sets) {
    if (nfds == 0 || nfds > FL_SELECT_BITS) return nfds != 0;  // select(0, …, &tv): a sleep
    uint64_t bits[FL_SELECT_BITS / 64];
    size_t words = ((size_t)nfds + 63) / 64;
    for (int s = 0; s < 3; s++) {
        if (!sets[s]) continue;
        if (fl_read_own_memory((uintptr_t)sets[s], bits, words * sizeof bits[0]) != 0) return 1;
        for (size_t fd = 0; fd < nfds; fd++)
            if ((bits[fd / 64] >> (fd % 64) & 1) && event_source((int)fd)) return 1;
    }
    return 0;
}

// The descriptors an epoll instance watches are the `tfd:` lines of its
// /proc/self/fdinfo entry.
static int epoll_waits(int epfd) {
    char path[48], info[4096];
    size_t l = fl_strlcpy(path, "/proc/self/fdinfo/", sizeof path);
    path[l + fl_fmt_u64(path + l, (uint64_t)epfd)] = 0;
    ssize_t n = fl_read_file(path, info, sizeof info);
    if (n <= 0 || (size_t)n >= sizeof info - 1) return 1;  // unreadable, or more than fits: assume events
    for (const char *s = info; (s = __builtin_strstr(s, "tfd:")) != 0;) {
        s += 4;
        while (*s == ' ' || *s == '\t') s++;
        long fd = 0;
        while (*s >= '0' && *s <= '9') fd = fd * 10 + (*s++ - '0');
        if (event_source((int)fd)) return 1;
    }
    return 0;
}

int fl_probe_waits_for_events(const fl_thread_probe *p) {
    if (p->running || !fl_syscall_waits_for_events(p->nr)) return 0;
    switch (p->nr) {
#ifdef SYS_poll
    case SYS_poll:
#endif
    case SYS_ppoll: return poll_waits((uintptr_t)p->args[0], p->args[1]);
#ifdef SYS_select
    case SYS_select:
#endif
    case SYS_pselect6: return select_waits(p->args[0], &p->args[1]);
#ifdef SYS_epoll_wait
    case SYS_epoll_wait:
#endif
#ifdef SYS_epoll_pwait2
    case SYS_epoll_pwait2:
#endif
    case SYS_epoll_pwait: return epoll_waits((int)p->args[0]);
    default: return 1;
    }
}
