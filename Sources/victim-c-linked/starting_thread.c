// victim-c-linked starting-overflow: thread 'start-ovf' is, at install,
// where glibc's start_thread has every new thread for its first
// instructions: all signals blocked, glibc's own SIGCANCEL and SIGSETXID
// included. It holds that mask (set with the raw system call, as glibc does)
// until the agent's install signal is pending, or 1 s, then restores its
// mask and overflows its stack. The agent used to take such a thread for
// one that blocks the install signal for good and skip it: it then had no
// alternate stack, and its overflow killed the process without a report
// (1 run in 60 of crash.existing-thread-overflow).
#define _GNU_SOURCE  // pthread_setname_np
#include "faultline.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_barrier_t g_masked, g_go;

/// Unbounded recursion; the volatile array keeps every frame on the stack.
__attribute__((noinline)) static int starting_recurse(int depth) {
    volatile char pad[256];
    pad[0] = (char)depth;
    return starting_recurse(depth + 1) + pad[0];
}

static int urg_pending(void) {
    sigset_t set;
    return sigpending(&set) == 0 && sigismember(&set, SIGURG);
}

static void *starting_thread(void *unused) {
    pthread_setname_np(pthread_self(), "start-ovf");
    // Every signal, 32 and 33 too: pthread_sigmask would drop those two.
    uint64_t all = ~0ull, before = 0;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &before, sizeof all);
    pthread_barrier_wait(&g_masked);  // main installs the agent meanwhile
    for (int i = 0; i < 1000 && !urg_pending(); i++) usleep(1000);
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &before, 0, sizeof before);
    pthread_barrier_wait(&g_go);
    fprintf(stderr, "victim: overflowing the stack of a thread that was starting at install\n");
    starting_recurse(0);
    return unused;
}

/// The whole starting-overflow case: start the thread, install, overflow.
int victim_starting_overflow(void) {
    pthread_barrier_init(&g_masked, 0, 2);
    pthread_barrier_init(&g_go, 0, 2);
    pthread_t t;
    pthread_create(&t, 0, starting_thread, 0);
    pthread_barrier_wait(&g_masked);
    faultline_options options;
    memset(&options, 0, sizeof options);  // report_dir from FAULTLINE_REPORT_DIR
    if (faultline_install(&options) != 0) {
        fprintf(stderr, "victim-c-linked: %s\n", faultline_last_error());
        return 3;
    }
    pthread_barrier_wait(&g_go);
    pthread_join(t, 0);
    return 1;
}
