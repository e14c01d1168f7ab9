// victim-leak check-under-signal-flood (check_under_signal_flood.h). The
// check sleeps 50-100 us at a time while threads park and leave; a sleep
// restarted with the time nanosleep said was left never ended when a
// signal was pending each time it started again (glibc's SIGSETXID while
// threads loop on seteuid: leaks.check-under-setxid, which no longer hits
// it). A thread sending main a signal without pause keeps one pending.
#include "check_under_signal_flood.h"
#include "victim_leak_check.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_int g_stop;
static pid_t g_main_tid;

static void on_usr1(int sig) { (void)sig; }

// Blocks the shim's default stop signal (SIGRTMIN+10): a check reads this
// thread whole instead of waiting for it to park, so it floods throughout.
static void *flooder(void *unused) {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGRTMIN + 10);
    pthread_sigmask(SIG_BLOCK, &s, 0);
    pid_t pid = getpid();
    while (!atomic_load(&g_stop)) syscall(SYS_tgkill, pid, g_main_tid, SIGUSR1);
    return unused;
}

// Parks at each check's stop signal: main sleeps while it arrives and leaves.
static void *idler(void *unused) {
    while (!atomic_load(&g_stop)) usleep(1000);
    return unused;
}

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int victim_check_under_signal_flood(int checks) {
    victim_leak_check_fn check = victim_leak_check_needed();
    if (!check) return 2;
    struct sigaction sa = {0};
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &sa, 0);
    g_main_tid = (pid_t)syscall(SYS_gettid);
    pthread_t f, i;
    if (pthread_create(&i, 0, idler, 0) != 0 || pthread_create(&f, 0, flooder, 0) != 0) { perror("victim: pthread_create"); return 2; }
    usleep(20000);  // the flood under way
    double t0 = seconds();
    for (int n = 0; n < checks; n++) check();
    double took = seconds() - t0;
    atomic_store(&g_stop, 1);
    pthread_join(f, 0);
    pthread_join(i, 0);
    printf("victim: %d leak checks while main was sent SIGUSR1 without pause took %.1f s\n", checks, took);
    return 0;  // a check that never came back is the failure: the scenario times out
}
