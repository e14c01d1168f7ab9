// What an image must do before it ends without running destructors: the
// program calls _exit (dash does) or replaces itself with exec. The memory
// monitor's breadcrumb file exists only for a SIGKILL to leave behind: it is
// removed, or every forked child that ends in _exit would leave one (the
// monitor creates it at the fork). An image that exec loads with the agent
// makes its own. An exec that fails puts it back. (The malloc shim's exit
// checks hook _exit themselves: shim_exit_hooks.c, next in line.)
// Injected (LD_PRELOAD) these wrappers interpose the libc functions; linked
// into a program, its own calls reach them too. Async-signal-safe (_exit
// may be called from a signal handler).
#include "interpose_next.h"
#include "memory_breadcrumb.h"
#include "fd_report.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>


typedef void (*exit_fn)(int);
typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*execvpe_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);

// The next definitions, filled when the agent's library is loaded
// (FL_NEXT_SLOT): a lookup in the call (dlsym takes the loader's lock, and
// is no async-signal-safe call) hung a program that called _exit while
// another thread's dlopen held that lock (its library's constructor
// waiting), and could in a child forked while it was held. The lookup in
// the call stays for a call made before that constructor ran.
FL_NEXT_VAR(_exit)
FL_NEXT_VAR(_Exit)
FL_NEXT_VAR(execve)
FL_NEXT_VAR(execv)
FL_NEXT_VAR(execvp)
FL_NEXT_VAR(execvpe)
FL_NEXT_VAR(fexecve)
FL_NEXT_VAR(execveat)
#define real(name) (next_##name ? next_##name : dlsym(RTLD_NEXT, #name))

static void image_ending(void) { fl_breadcrumb_remove(); }

// An exec failed: this image goes on, with its breadcrumbs.
static void image_continues(void) { fl_breadcrumb_restore(); }

// _exit and _Exit run no destructor: the fds detector's exit check runs
// here (fd_report.h), as the malloc shim's leak check does in its own.
FL_EXPORT void _exit(int status) {
    fl_fd_report_leaving();
    image_ending();
    ((exit_fn)real(_exit))(status);
    __builtin_unreachable();
}

FL_EXPORT void _Exit(int status) {
    fl_fd_report_leaving();
    image_ending();
    ((exit_fn)real(_Exit))(status);
    __builtin_unreachable();
}

FL_EXPORT int execve(const char *path, char *const argv[], char *const envp[]) {
    image_ending();
    int rc = ((execve_fn)real(execve))(path, argv, envp);
    image_continues();  // exec failed
    return rc;
}

FL_EXPORT int execv(const char *path, char *const argv[]) {
    image_ending();
    int rc = ((execv_fn)real(execv))(path, argv);
    image_continues();
    return rc;
}

FL_EXPORT int execvp(const char *file, char *const argv[]) {
    image_ending();
    int rc = ((execv_fn)real(execvp))(file, argv);
    image_continues();
    return rc;
}

FL_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[]) {
    image_ending();
    int rc = ((execvpe_fn)real(execvpe))(file, argv, envp);
    image_continues();
    return rc;
}

FL_EXPORT int fexecve(int fd, char *const argv[], char *const envp[]) {
    image_ending();
    int rc = ((fexecve_fn)real(fexecve))(fd, argv, envp);
    image_continues();
    return rc;
}

FL_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags) {
    image_ending();
    int rc = ((execveat_fn)real(execveat))(dirfd, path, argv, envp, flags);
    image_continues();
    return rc;
}

// execl, execlp, execle: collect the variadic arguments into an argv on the
// stack and go through the vector forms above.
static int count_args(const char *arg0, va_list ap) {
    int n = arg0 ? 1 : 0;
    while (arg0 && va_arg(ap, const char *)) n++;
    return n;
}

// glibc declares arg0 nonnull, but execl(path, NULL) is legal and happens;
// the empty asm hides the attribute so the NULL checks are not folded away.
#define COLLECT_ARGV(arg0, last, argv_name)                       \
    va_list ap, ap2;                                              \
    va_start(ap, last);                                           \
    const char *a0_ = (arg0);                                     \
    __asm__("" : "+r"(a0_));                                      \
    va_copy(ap2, ap);                                             \
    int n_ = count_args(a0_, ap2);                                \
    va_end(ap2);                                                  \
    char *argv_name[n_ + 1];                                      \
    argv_name[0] = (char *)a0_;                                   \
    for (int i_ = 1; i_ < n_; i_++) argv_name[i_] = va_arg(ap, char *); \
    argv_name[n_] = NULL;

FL_EXPORT int execl(const char *path, const char *arg0, ...) {
    COLLECT_ARGV(arg0, arg0, argv)
    va_end(ap);
    return execv(path, argv);
}

FL_EXPORT int execlp(const char *file, const char *arg0, ...) {
    COLLECT_ARGV(arg0, arg0, argv)
    va_end(ap);
    return execvp(file, argv);
}

FL_EXPORT int execle(const char *path, const char *arg0, ...) {
    COLLECT_ARGV(arg0, arg0, argv)
    // envp follows the NULL that ends the arguments; COLLECT_ARGV stopped
    // before that NULL unless arg0 itself was it.
    if (n_ > 0) (void)va_arg(ap, char *);
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    return execve(path, argv, envp);
}
