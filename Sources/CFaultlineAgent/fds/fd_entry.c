// The fds detector's interposers: every libc call that makes a descriptor
// (and the stdio and dirent calls that open and close one inside libc,
// where the program's calls to open and close do not pass), each passing
// the call on and recording the result (fd_table.h). close, close_range,
// closefrom, dup2, dup3 and pipe2 are interposed in common/fd_guard.c,
// which calls fd_hooks.h. While the detector is off each is one load and
// a test on top of the call.
#include "fd_hooks.h"
#include "stderr_capture.h"
#include "interpose_next.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

#define CALLER __builtin_return_address(0)

// The next definition of `name` as `next` (of type `type`): filled when
// the image loads, or looked up at the first call before that.
#define NEXT_OR(name, fail, ...)                                           \
    static __typeof__(__VA_ARGS__) next;                                   \
    FL_NEXT_SLOT(next, name)                                               \
    if (!next) next = (__typeof__(__VA_ARGS__))dlsym(RTLD_NEXT, name);     \
    if (!next) { errno = ENOSYS; return fail; }

static mode_t mode_arg(int flags, va_list ap) {
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

#define OPEN_LIKE(name, opener)                                            \
    FL_EXPORT int name(const char *path, int flags, ...) {                 \
        va_list ap;                                                        \
        va_start(ap, flags);                                               \
        mode_t mode = mode_arg(flags, ap);                                 \
        va_end(ap);                                                        \
        NEXT_OR(#name, -1, int (*)(const char *, int, ...))                \
        int fd = next(path, flags, mode);                                  \
        fl_fds_opened(fd, opener, CALLER);                                 \
        return fd;                                                         \
    }
OPEN_LIKE(open, FL_FD_OPEN)
OPEN_LIKE(open64, FL_FD_OPEN)

#define OPENAT_LIKE(name)                                                  \
    FL_EXPORT int name(int dir, const char *path, int flags, ...) {        \
        va_list ap;                                                        \
        va_start(ap, flags);                                               \
        mode_t mode = mode_arg(flags, ap);                                 \
        va_end(ap);                                                        \
        NEXT_OR(#name, -1, int (*)(int, const char *, int, ...))           \
        int fd = next(dir, path, flags, mode);                             \
        fl_fds_opened(fd, FL_FD_OPENAT, CALLER);                           \
        return fd;                                                         \
    }
OPENAT_LIKE(openat)
OPENAT_LIKE(openat64)

// _FORTIFY_SOURCE builds call these when the flags are not constant.
#define OPEN_2(name, opener)                                               \
    FL_EXPORT int name(const char *path, int flags) {                      \
        NEXT_OR(#name, -1, int (*)(const char *, int))                     \
        int fd = next(path, flags);                                        \
        fl_fds_opened(fd, opener, CALLER);                                 \
        return fd;                                                         \
    }
OPEN_2(__open_2, FL_FD_OPEN)
OPEN_2(__open64_2, FL_FD_OPEN)

#define OPENAT_2(name)                                                     \
    FL_EXPORT int name(int dir, const char *path, int flags) {             \
        NEXT_OR(#name, -1, int (*)(int, const char *, int))                \
        int fd = next(dir, path, flags);                                   \
        fl_fds_opened(fd, FL_FD_OPENAT, CALLER);                           \
        return fd;                                                         \
    }
OPENAT_2(__openat_2)
OPENAT_2(__openat64_2)

// A call with these parameters that returns one new fd, made by `opener`.
#define ONE_FD(name, opener, params, args)                                 \
    FL_EXPORT int name params {                                            \
        NEXT_OR(#name, -1, int (*) params)                                 \
        int fd = next args;                                                \
        fl_fds_opened(fd, opener, CALLER);                                 \
        return fd;                                                         \
    }
ONE_FD(creat, FL_FD_CREAT, (const char *path, mode_t mode), (path, mode))
ONE_FD(creat64, FL_FD_CREAT, (const char *path, mode_t mode), (path, mode))
ONE_FD(socket, FL_FD_SOCKET, (int domain, int type, int protocol), (domain, type, protocol))
ONE_FD(accept, FL_FD_ACCEPT, (int s, struct sockaddr *a, socklen_t *l), (s, a, l))
ONE_FD(accept4, FL_FD_ACCEPT, (int s, struct sockaddr *a, socklen_t *l, int f), (s, a, l, f))
ONE_FD(eventfd, FL_FD_EVENTFD, (unsigned int initval, int flags), (initval, flags))
ONE_FD(timerfd_create, FL_FD_TIMERFD, (int clock, int flags), (clock, flags))
ONE_FD(epoll_create, FL_FD_EPOLL, (int size), (size))
ONE_FD(epoll_create1, FL_FD_EPOLL, (int flags), (flags))
ONE_FD(inotify_init, FL_FD_INOTIFY, (void), ())
ONE_FD(inotify_init1, FL_FD_INOTIFY, (int flags), (flags))
ONE_FD(memfd_create, FL_FD_MEMFD, (const char *name, unsigned int flags), (name, flags))
ONE_FD(mkstemp, FL_FD_MKSTEMP, (char *t), (t))
ONE_FD(mkstemp64, FL_FD_MKSTEMP, (char *t), (t))
ONE_FD(mkostemp, FL_FD_MKSTEMP, (char *t, int flags), (t, flags))
ONE_FD(mkostemp64, FL_FD_MKSTEMP, (char *t, int flags), (t, flags))

// A copy of fd 2 is stderr too (stderr_tee.c keeps what is written to it).
FL_EXPORT int dup(int oldfd) {
    NEXT_OR("dup", -1, int (*)(int))
    int fd = next(oldfd);
    if (fd >= 0) fl_stderr_copied(oldfd, fd);
    fl_fds_opened(fd, FL_FD_DUP, CALLER);
    return fd;
}

// A new fd only when asked for one (-1); else the mask of an existing one.
FL_EXPORT int signalfd(int fd, const sigset_t *mask, int flags) {
    NEXT_OR("signalfd", -1, int (*)(int, const sigset_t *, int))
    int r = next(fd, mask, flags);
    if (fd == -1) fl_fds_opened(r, FL_FD_SIGNALFD, CALLER);
    return r;
}

FL_EXPORT int pipe(int fds[2]) {
    NEXT_OR("pipe", -1, int (*)(int[2]))
    int r = next(fds);
    if (r == 0) fl_fds_opened_pair(fds, FL_FD_PIPE, CALLER);
    return r;
}

FL_EXPORT int socketpair(int domain, int type, int protocol, int fds[2]) {
    NEXT_OR("socketpair", -1, int (*)(int, int, int, int[2]))
    int r = next(domain, type, protocol, fds);
    if (r == 0) fl_fds_opened_pair(fds, FL_FD_SOCKETPAIR, CALLER);
    return r;
}

// --- stdio and dirent: they open and close inside libc -------------------

static void file_opened(FILE *f, fl_fd_opener opener, const void *caller) {
    if (f && fl_fd_table_on()) fl_fds_opened(fileno(f), opener, caller);
}

#define FOPEN_LIKE(name)                                                   \
    FL_EXPORT FILE *name(const char *path, const char *mode) {             \
        NEXT_OR(#name, 0, FILE *(*)(const char *, const char *))           \
        FILE *f = next(path, mode);                                        \
        file_opened(f, FL_FD_FOPEN, CALLER);                               \
        return f;                                                          \
    }
FOPEN_LIKE(fopen)
FOPEN_LIKE(fopen64)

// freopen and freopen64 are interposed once, in common/stderr_tee.c, which
// calls the fds hooks around them.

#define TMPFILE_LIKE(name)                                                 \
    FL_EXPORT FILE *name(void) {                                           \
        NEXT_OR(#name, 0, FILE *(*)(void))                                 \
        FILE *f = next();                                                  \
        file_opened(f, FL_FD_TMPFILE, CALLER);                             \
        return f;                                                          \
    }
TMPFILE_LIKE(tmpfile)
TMPFILE_LIKE(tmpfile64)

FL_EXPORT FILE *popen(const char *command, const char *type) {
    NEXT_OR("popen", 0, FILE *(*)(const char *, const char *))
    FILE *f = next(command, type);
    file_opened(f, FL_FD_POPEN, CALLER);
    return f;
}

#define FCLOSE_LIKE(name)                                                  \
    FL_EXPORT int name(FILE *f) {                                          \
        NEXT_OR(#name, EOF, int (*)(FILE *))                               \
        if (f && fl_fd_table_on()) fl_fds_closing(fileno(f));              \
        return next(f);                                                    \
    }
FCLOSE_LIKE(fclose)
FCLOSE_LIKE(pclose)

FL_EXPORT DIR *opendir(const char *path) {
    NEXT_OR("opendir", 0, DIR *(*)(const char *))
    DIR *d = next(path);
    if (d && fl_fd_table_on()) fl_fds_opened(dirfd(d), FL_FD_OPENDIR, CALLER);
    return d;
}

FL_EXPORT int closedir(DIR *d) {
    NEXT_OR("closedir", -1, int (*)(DIR *))
    if (fl_fd_table_on()) fl_fds_closing(dirfd(d));
    return next(d);
}
