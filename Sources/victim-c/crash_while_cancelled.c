// victim-c crash-while-cancelled: thread 'cancelled' is asked to end with
// pthread_cancel (deferred, the default) while it computes, and stores
// through NULL before it reaches a cancellation point. Without Faultline
// the process dies of SIGSEGV. Under Faultline the crash report's first
// write (a cancellation point) acted on the request: the thread ended from
// inside the handler, with no report, and main went on.
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static atomic_int g_go;
static int *volatile g_nowhere;

NOINLINE static void victim_store_while_cancelled(void) {
    *g_nowhere = 1;  // [cancelled store]
}

static void *cancelled_thread(void *unused) {
    (void)unused;
    pthread_setname_np(pthread_self(), "cancelled");
    while (!atomic_load(&g_go)) {}  // no cancellation point
    victim_store_while_cancelled();
    return unused;
}

void victim_crash_while_cancelled(void) {
    pthread_t t;
    if (pthread_create(&t, 0, cancelled_thread, 0) != 0) { perror("victim"); exit(2); }
    fprintf(stderr, "victim: cancelling thread 'cancelled', which then stores through NULL\n");
    pthread_cancel(t);  // pending: the thread spins without a cancellation point
    atomic_store(&g_go, 1);
    pthread_join(t, 0);
    fprintf(stderr, "victim: thread 'cancelled' ended without crashing the process\n");
}

// victim-c crash-beside-cancelled: thread 'waiter' has a pthread_cancel
// pending while it waits in a raw futex call (syscall(2) is no
// cancellation point), and main stores through NULL. The crash report asks
// every thread for its stack: the waiter's sample handler unwound with
// libunwind, whose read of its validation pipe acted on the request and
// ended the thread inside the handler ("did not answer the stack request
// in time").
static atomic_int g_waiting;
static int g_never;  // the futex word: never woken

NOINLINE static void victim_wait_while_cancelled(void) {
    atomic_store(&g_waiting, 1);
    for (;;) syscall(SYS_futex, &g_never, FUTEX_WAIT_PRIVATE, 0, (void *)0, (void *)0, 0);
}

static void *waiter_thread(void *unused) {
    pthread_setname_np(pthread_self(), "waiter");
    atomic_store(&g_waiting, -1);  // started: its start routine runs
    while (!atomic_load(&g_go)) {}
    victim_wait_while_cancelled();
    return unused;
}

void victim_crash_beside_cancelled(void) {
    pthread_t t;
    if (pthread_create(&t, 0, waiter_thread, 0) != 0) { perror("victim"); exit(2); }
    while (atomic_load(&g_waiting) == 0) {}
    pthread_cancel(t);
    atomic_store(&g_go, 1);
    while (atomic_load(&g_waiting) != 1) {}
    fprintf(stderr, "victim: thread 'waiter' waits with a cancellation pending; storing through NULL\n");
    *g_nowhere = 1;  // [beside-cancelled store]
}

// victim-c calls-while-cancelled: main asks itself to end with
// pthread_cancel (deferred), then calls unshare(CLONE_NEWUSER) and, having
// ignored Faultline's sample signal (SIGRTMIN+8) by system call,
// setresuid(-1, -1, -1): neither is a cancellation point, so both return.
// Under Faultline the thread ended inside the first (the solo call's
// /proc read) and, with that fixed, inside the second (the write of the
// "could not take" line), holding the mirror lock.
// The agent keeps its handler on that signal against sigaction and signal()
// (sample_keep.h), so the program takes it with a raw rt_sigaction: SIG_IGN,
// which needs no sa_restorer.
static void take_sample_signal_raw(void) {
    struct { void *handler; unsigned long flags; void *restorer; unsigned long mask; } ign = {(void *)SIG_IGN, 0, 0, 0};
    syscall(SYS_rt_sigaction, SIGRTMIN + 8, &ign, 0, sizeof ign.mask);
}

int victim_calls_while_cancelled(void) {
    pthread_cancel(pthread_self());
    int unshared = unshare(CLONE_NEWUSER);
    take_sample_signal_raw();
    int dropped = setresuid(-1, -1, -1);
    int old;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);  // printf is a cancellation point
    printf("victim: with a cancellation pending, unshare(CLONE_NEWUSER) returned %d and setresuid %d\n", unshared, dropped);
    return unshared == 0 && dropped == 0 ? 0 : 1;
}
