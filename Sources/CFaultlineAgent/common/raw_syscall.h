// System calls without libc, for the few instructions a signal handler runs
// on the stack it was entered on (which may be a program's small alternate
// stack). A libc call from there goes through the PLT, and its first use
// runs the dynamic linker's lazy binder, which saves the vector registers on
// the stack: 3 KiB with AVX-512, more than such a stack may have left. These
// leave errno alone.
#ifndef FL_RAW_SYSCALL_H
#define FL_RAW_SYSCALL_H

#include <stdint.h>
#include <sys/syscall.h>

/// System call `nr` with up to four arguments; returns the kernel's result
/// (a negative errno on failure). Async-signal-safe.
static inline long fl_raw_syscall(long nr, long a, long b, long c, long d) {
#if defined(__x86_64__)
    register long r10 __asm__("r10") = d;
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
    return ret;
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = nr;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
    return x0;
#else
#error "fl_raw_syscall: only x86-64 and aarch64 are supported"
#endif
}

/// The kernel's signal mask size for rt_sigprocmask and rt_sigaction: 64
/// signals (glibc's sigset_t is 1024 bits, of which the kernel reads these).
#define FL_KERNEL_SIGSET_SIZE 8

/// The kernel's struct sigaction for a raw rt_sigaction (not glibc's, whose
/// field order and mask size differ).
typedef struct {
    void *handler;
    unsigned long flags;
    void *restorer;
    uint64_t mask;
} fl_kernel_sigaction;

#endif
