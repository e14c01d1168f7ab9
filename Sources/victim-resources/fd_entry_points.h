// victim-resources' cases for the descriptor entry points beyond open and
// close (docs/resources.md, "Entry points followed"): fcntl copies, fds
// received over a socket, raw syscall() opens and closes, and the ways out
// that run no destructor (_exit, exit_group, a vfork child's _exit).
#ifndef VICTIM_FD_ENTRY_POINTS_H
#define VICTIM_FD_ENTRY_POINTS_H

/// Leaks one fcntl(fd, F_DUPFD, 10) copy of a file it closes.
int fd_fcntl_dupfd(void);
/// The same with F_DUPFD_CLOEXEC.
int fd_fcntl_dupfd_cloexec(void);
/// Receives a file's fd over a socket pair by recvmsg (SCM_RIGHTS), keeps it.
int fd_recvmsg(void);
/// The same by recvmmsg.
int fd_recvmmsg(void);
/// Opens a file by syscall(SYS_openat) and keeps it.
int fd_syscall_openat(void);
/// Opens a file, closes it by syscall(SYS_close), then a raw system call
/// (no libc wrapper) opens the same file on the same number and keeps it:
/// the number is no longer the program's open (no report).
int fd_syscall_close(void);
/// Leaks one open, then leaves by _exit.
int fd_leak_then_exit(void);
/// Leaks one open, then leaves by syscall(SYS_exit_group).
int fd_leak_then_exit_group(void);
/// Leaks one open, vforks a child that calls _exit, leaks a second open,
/// returns: one report, with both (the child writes none, and its _exit
/// must not stand for the parent's check).
int fd_vfork_child_exit(void);

#endif
