// What an interposed syscall() needs, for the agent's (fds/fd_syscall.c)
// and the shim's (leak/shim_exit_hooks.c): the six machine words glibc's
// own syscall() reads after the number, and the call made with them.
// Static inline, so that each library gets its own copy and neither links
// the other's; no allocation, no libc call, async-signal-safe.
#ifndef FL_SYSCALL_WORDS_H
#define FL_SYSCALL_WORDS_H

#include <errno.h>
#include <stdarg.h>

/// Declares `long words[6]` and fills it with the six arguments after
/// `last` of the variadic function it stands in: glibc's syscall() reads
/// six whatever the call takes, so an interposer passes on six too.
#define FL_SYSCALL_WORDS(last, words)                                      \
    long words[6];                                                         \
    do {                                                                   \
        va_list fl_words_ap;                                               \
        va_start(fl_words_ap, last);                                       \
        for (int fl_i = 0; fl_i < 6; fl_i++) words[fl_i] = va_arg(fl_words_ap, long); \
        va_end(fl_words_ap);                                               \
    } while (0)

#if defined(__x86_64__)
/// Defined where `fl_syscall_words` exists; elsewhere a caller passes the
/// call on to the next syscall() found by dlsym.
#define FL_HAVE_SYSCALL_WORDS 1

/// System call `nr` with six words, as glibc's syscall() makes it: -1 and
/// errno on failure. Made here, not through libc's found by dlsym, since
/// dlsym's error path frees and an allocator that calls syscall() while it
/// starts (tcmalloc) would be re-entered inside its own first malloc.
static inline long fl_syscall_words(long nr, const long w[6]) {
    register long r10 __asm__("r10") = w[3], r8 __asm__("r8") = w[4], r9 __asm__("r9") = w[5];
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(nr), "D"(w[0]), "S"(w[1]), "d"(w[2]), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    if ((unsigned long)ret > -4096UL) {
        errno = (int)-ret;
        return -1;
    }
    return ret;
}
#endif

#endif
