// A program that leaves by _exit, _Exit or a raw exit_group runs no
// destructor, so it got no exit checks: a forked worker ending in
// os._exit, a daemon's child. valgrind checks it, so the shim does too:
// these interposers run shim_exit_checks first. A vfork child (Python's
// subprocess uses vfork; posix_spawn's child calls libc's internal _exit,
// which passes no interposer) shares the parent's memory, so its checks
// would scan and change the parent's state: a pid that is not the one this
// image recorded at start or fork means such a child, and nothing runs.
#include "shim_exit_check.h"
#include "interpose_next.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef void (*exit_fn)(int);
typedef long (*syscall_fn)(long, ...);

FL_NEXT_VAR(_exit)
FL_NEXT_VAR(_Exit)
FL_NEXT_VAR(syscall)
#define real(name) (next_##name ? next_##name : dlsym(RTLD_NEXT, #name))

static pid_t g_pid;  // this process's, at start and after each fork

static void after_fork_child(void) { g_pid = (pid_t)syscall(SYS_getpid); }

__attribute__((constructor)) static void record_pid(void) {
    g_pid = (pid_t)syscall(SYS_getpid);
    pthread_atfork(0, 0, after_fork_child);
}

static void leaving(void) {
    if (g_pid && (pid_t)syscall(SYS_getpid) == g_pid) shim_exit_checks();
}

FL_EXPORT void _exit(int status) {
    leaving();
    ((exit_fn)real(_exit))(status);
    __builtin_unreachable();
}

FL_EXPORT void _Exit(int status) {
    leaving();
    ((exit_fn)real(_Exit))(status);
    __builtin_unreachable();
}

#if defined(__x86_64__)
// The system call itself, as glibc's syscall() makes it (-1 and errno on
// failure). Not libc's through dlsym: an allocator that calls syscall()
// while it starts (tcmalloc) reached dlsym, whose error path frees, inside
// its own first malloc, and the process died (memory.step-aside-tcmalloc).
static long raw_syscall6(long n, long a, long b, long c, long d, long e, long f) {
    register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9) : "rcx", "r11", "memory");
    if ((unsigned long)ret > -4096UL) { errno = (int)-ret; return -1; }
    return ret;
}
#endif

// syscall(SYS_exit_group, n): the arguments are passed on as six longs,
// as glibc's own syscall() reads them.
FL_EXPORT long syscall(long nr, ...) {
    va_list ap;
    va_start(ap, nr);
    long a[6];
    for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
    va_end(ap);
    if (nr == SYS_exit_group) leaving();
#if defined(__x86_64__)
    return raw_syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
#else
    return ((syscall_fn)real(syscall))(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
#endif
}
