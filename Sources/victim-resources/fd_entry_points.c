// The descriptor entry points beyond open and close, one leak (or one
// non-leak) per case, each made in a named, non-inlined function that a
// report's opening stack must name. The files opened are the victim's
// own config file in its working directory (the artifacts folder).
#define _GNU_SOURCE
#include "fd_entry_points.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static const char k_config[] = "victim-config.txt";

// The config file, written and closed; 0 or -1.
static int make_config(void) {
    int fd = open(k_config, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror("victim: config"); return -1; }
    ssize_t w = write(fd, "key = value\n", 12);
    close(fd);
    return w == 12 ? 0 : -1;
}

// --- fcntl ----------------------------------------------------------------

/// Keeps a copy of `fd` made by fcntl(`cmd`), numbered 10 or above.
NOINLINE int victim_copy_by_fcntl(int fd, int cmd) { return fcntl(fd, cmd, 10); }

static int fcntl_case(int cmd, const char *name) {
    if (make_config() != 0) return 2;
    int fd = open(k_config, O_RDONLY);
    int copy = victim_copy_by_fcntl(fd, cmd);
    if (fd < 0 || copy < 10) { perror("victim: fcntl"); return 2; }
    close(fd);
    printf("victim: kept fd %d, a fcntl(%s) copy of a file it closed\n", copy, name);
    return 0;
}

int fd_fcntl_dupfd(void) { return fcntl_case(F_DUPFD, "F_DUPFD"); }

int fd_fcntl_dupfd_cloexec(void) { return fcntl_case(F_DUPFD_CLOEXEC, "F_DUPFD_CLOEXEC"); }

// --- SCM_RIGHTS -----------------------------------------------------------

// A message of one byte carrying `fd` (or room for one fd), in `cbuf`.
static void one_fd_message(struct msghdr *m, struct iovec *iov, char *byte, char *cbuf, size_t clen, int fd) {
    memset(m, 0, sizeof *m);
    iov->iov_base = byte;
    iov->iov_len = 1;
    m->msg_iov = iov;
    m->msg_iovlen = 1;
    m->msg_control = cbuf;
    m->msg_controllen = clen;
    struct cmsghdr *c = CMSG_FIRSTHDR(m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fd);
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
}

// The fd in `m`'s first control message, or -1.
static int fd_in(struct msghdr *m) {
    struct cmsghdr *c = CMSG_FIRSTHDR(m);
    if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len < CMSG_LEN(sizeof(int))) return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

/// Receives one fd over `s` by recvmsg and keeps it.
NOINLINE int victim_receive_fd_by_recvmsg(int s) {
    char byte, cbuf[CMSG_SPACE(sizeof(int))];
    struct iovec iov;
    struct msghdr m;
    one_fd_message(&m, &iov, &byte, cbuf, sizeof cbuf, -1);
    return recvmsg(s, &m, 0) == 1 ? fd_in(&m) : -1;
}

/// Receives one fd over `s` by recvmmsg and keeps it.
NOINLINE int victim_receive_fd_by_recvmmsg(int s) {
    char byte, cbuf[CMSG_SPACE(sizeof(int))];
    struct iovec iov;
    struct mmsghdr mm;
    memset(&mm, 0, sizeof mm);
    one_fd_message(&mm.msg_hdr, &iov, &byte, cbuf, sizeof cbuf, -1);
    return recvmmsg(s, &mm, 1, 0, 0) == 1 ? fd_in(&mm.msg_hdr) : -1;
}

// Sends the config's fd from one end of a socket pair to the other, closes
// what it sent and the pair, and keeps what `receive` got.
static int scm_rights_case(int (*receive)(int), const char *name) {
    if (make_config() != 0) return 2;
    int sp[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) != 0) { perror("victim: socketpair"); return 2; }
    int fd = open(k_config, O_RDONLY);
    char byte = 'x', cbuf[CMSG_SPACE(sizeof(int))];
    struct iovec iov;
    struct msghdr m;
    one_fd_message(&m, &iov, &byte, cbuf, sizeof cbuf, fd);
    if (fd < 0 || sendmsg(sp[0], &m, 0) != 1) { perror("victim: sendmsg"); return 2; }
    close(fd);
    int got = receive(sp[1]);
    close(sp[0]);
    close(sp[1]);
    if (got < 0) { perror("victim: receive"); return 2; }
    printf("victim: kept fd %d, received by %s (SCM_RIGHTS)\n", got, name);
    return 0;
}

int fd_recvmsg(void) { return scm_rights_case(victim_receive_fd_by_recvmsg, "recvmsg"); }

int fd_recvmmsg(void) { return scm_rights_case(victim_receive_fd_by_recvmmsg, "recvmmsg"); }

// --- syscall() ------------------------------------------------------------

/// Opens the config by libc's syscall() wrapper and keeps it.
NOINLINE int victim_open_by_syscall(void) { return (int)syscall(SYS_openat, AT_FDCWD, k_config, O_RDONLY); }

int fd_syscall_openat(void) {
    if (make_config() != 0) return 2;
    int fd = victim_open_by_syscall();
    if (fd < 0) { perror("victim: syscall(SYS_openat)"); return 2; }
    printf("victim: kept fd %d, opened by syscall(SYS_openat)\n", fd);
    return 0;
}

// openat by the instruction itself, past every wrapper and interposer, as
// a runtime that makes its own system calls (Go) opens.
static int raw_openat(const char *path) {
    long r;
#if defined(__x86_64__)
    register long r10 __asm__("r10") = 0;
    __asm__ volatile("syscall" : "=a"(r) : "a"((long)SYS_openat), "D"((long)AT_FDCWD), "S"(path), "d"((long)O_RDONLY), "r"(r10)
                     : "rcx", "r11", "memory");
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = SYS_openat, x0 __asm__("x0") = AT_FDCWD;
    register long x1 __asm__("x1") = (long)path, x2 __asm__("x2") = O_RDONLY, x3 __asm__("x3") = 0;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
    r = x0;
#else
#error "raw_openat: add this architecture's system call instruction"
#endif
    return r < 0 ? -1 : (int)r;
}

int fd_syscall_close(void) {
    if (make_config() != 0) return 2;
    int fd = open(k_config, O_RDONLY);
    if (fd < 0 || syscall(SYS_close, fd) != 0) { perror("victim: syscall(SYS_close)"); return 2; }
    int again = raw_openat(k_config);
    if (again != fd) { fprintf(stderr, "victim: the raw open got fd %d, not %d\n", again, fd); return 2; }
    printf("victim: closed fd %d by syscall(SYS_close); a raw openat of the same file has it now\n", fd);
    return 0;
}

// --- ways out without destructors -----------------------------------------

/// Opens the config and keeps it (for the exits below).
NOINLINE int victim_open_before_leaving(void) { return open(k_config, O_RDONLY); }

/// Opens the config again, after the vfork child is gone.
NOINLINE int victim_open_after_vfork(void) { return open(k_config, O_RDONLY); }

int fd_leak_then_exit(void) {
    if (make_config() != 0) return 2;
    int fd = victim_open_before_leaving();
    printf("victim: kept fd %d, leaving by _exit\n", fd);
    _exit(fd < 0 ? 2 : 0);
}

int fd_leak_then_exit_group(void) {
    if (make_config() != 0) return 2;
    int fd = victim_open_before_leaving();
    printf("victim: kept fd %d, leaving by exit_group\n", fd);
    syscall(SYS_exit_group, fd < 0 ? 2 : 0);
    return 2;
}

int fd_vfork_child_exit(void) {
    if (make_config() != 0) return 2;
    int first = victim_open_before_leaving();
    pid_t child = vfork();
    if (child == 0) _exit(0);  // shares the parent's memory: no check of its own
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child) { perror("victim: vfork"); return 2; }
    int second = victim_open_after_vfork();
    printf("victim: kept fd %d, a vfork child left by _exit (status %d), then kept fd %d\n", first, WEXITSTATUS(status), second);
    return first < 0 || second < 0 ? 2 : 0;
}
