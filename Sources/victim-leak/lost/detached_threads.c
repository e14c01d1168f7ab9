// Leaks of detached threads: the argument and the result of each, which
// glibc keeps in the thread's descriptor at the top of its stack, and which
// stays mapped (glibc's stack cache) after the thread has ended.
#include "detached_threads.h"
#include "victim_leak_check.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int g_returned;

__attribute__((noinline)) static void *detached_leaker(void *arg) {
    ((volatile char *)arg)[0] = 1;  // kept, never freed
    void *result = malloc(234);
    memset(result, 0, 234);
    __atomic_add_fetch(&g_returned, 1, __ATOMIC_RELEASE);
    return result;  // nobody joins: lost
}

__attribute__((noinline)) static void *thread_argument(void) { return malloc(123); }

__attribute__((noinline)) static int start_all(int n) {
    for (int i = 0; i < n; i += 10) {
        pthread_t t[10];
        int batch = n - i < 10 ? n - i : 10;
        for (int k = 0; k < batch; k++)
            if (pthread_create(&t[k], 0, detached_leaker, thread_argument()) != 0) { perror("victim: pthread_create"); return 2; }
        for (int k = 0; k < batch; k++) pthread_detach(t[k]);
    }
    return 0;
}

// A forked child that spins until killed: a busy second core.
static pid_t start_busy_loop(void) {
    fflush(0);
    pid_t p = fork();
    if (p == 0) for (volatile unsigned long x = 0;; x++) {}
    return p;
}

int victim_detached_threads(int n, int busy) {
    pid_t spinner = busy ? start_busy_loop() : -1;
    if (start_all(n) != 0) return 2;
    for (int waited = 0; __atomic_load_n(&g_returned, __ATOMIC_ACQUIRE) < n; waited++) {
        if (waited > 10000) { printf("victim: only %d of %d threads returned within 10 s\n", g_returned, n); return 1; }
        usleep(1000);
    }
    if (spinner > 0) {
        kill(spinner, SIGKILL);
        waitpid(spinner, 0, 0);
    }
    victim_clear_stack();
    printf("victim: %d detached threads each lost a 123-byte argument and a 234-byte result\n", n);
    return 0;
}
