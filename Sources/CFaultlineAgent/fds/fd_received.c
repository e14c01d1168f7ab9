// recvmsg and recvmmsg: descriptors passed over a UNIX socket (SCM_RIGHTS)
// are new in this process, as an open's are, and are followed from the
// call that received them. The control messages are walked only after a
// call that succeeded, and only in the buffer the kernel filled
// (msg_controllen is what it wrote), so a truncated message (MSG_CTRUNC)
// yields just the fds it holds.
#include "fd_hooks.h"
#include "interpose_next.h"

#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef ssize_t (*recvmsg_fn)(int, struct msghdr *, int);
typedef int (*recvmmsg_fn)(int, struct mmsghdr *, unsigned int, int, struct timespec *);

FL_NEXT_VAR(recvmsg)
FL_NEXT_VAR(recvmmsg)

// Every fd in `msg`'s SCM_RIGHTS messages, recorded as received.
static void received(const struct msghdr *msg, fl_fd_opener opener, const void *caller) {
    if (!fl_fd_table_on() || !msg->msg_control || msg->msg_controllen < sizeof(struct cmsghdr)) return;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len < CMSG_LEN(0)) continue;
        size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        const unsigned char *data = CMSG_DATA(c);
        for (size_t i = 0; i < n; i++) {
            int fd;
            memcpy(&fd, data + i * sizeof fd, sizeof fd);  // CMSG_DATA need not be int-aligned
            fl_fds_opened(fd, opener, caller);
        }
    }
}

FL_EXPORT ssize_t recvmsg(int s, struct msghdr *msg, int flags) {
    recvmsg_fn next = (recvmsg_fn)next_recvmsg;
    if (!next) next = (recvmsg_fn)dlsym(RTLD_NEXT, "recvmsg");
    ssize_t r = next ? next(s, msg, flags) : syscall(SYS_recvmsg, s, msg, flags);
    if (r >= 0 && msg) received(msg, FL_FD_RECVMSG, __builtin_return_address(0));
    return r;
}

FL_EXPORT int recvmmsg(int s, struct mmsghdr *v, unsigned int n, int flags, struct timespec *timeout) {
    recvmmsg_fn next = (recvmmsg_fn)next_recvmmsg;
    if (!next) next = (recvmmsg_fn)dlsym(RTLD_NEXT, "recvmmsg");
    int r = next ? next(s, v, n, flags, timeout) : (int)syscall(SYS_recvmmsg, s, v, n, flags, timeout);
    for (int i = 0; i < r && v; i++) received(&v[i].msg_hdr, FL_FD_RECVMMSG, __builtin_return_address(0));
    return r;
}
