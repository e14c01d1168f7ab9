// victim-leak check-under-setxid (check_under_setxid.h). The check's short
// sleeps (waiting for threads to park and to leave) were restarted with
// the time nanosleep said was left; a SIGSETXID pending each time one
// started left it whole, and the check never came back (a program exiting
// while its threads looped on seteuid hung in its exit check).
#include "check_under_setxid.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static volatile int g_stop;

static void *flipper(void *unused) {
    while (!g_stop)
        if (seteuid(1000) != 0 || seteuid(0) != 0) { perror("victim: seteuid"); break; }
    return unused;
}

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int victim_check_under_setxid(int checks) {
    long (*check)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "faultline_leak_check");
    if (!check) { printf("victim: faultline_leak_check not found (shim not preloaded)\n"); return 2; }
    if (geteuid() != 0) { fprintf(stderr, "victim: check-under-setxid must run as root\n"); return 2; }
    pthread_t t[3];
    for (int i = 0; i < 3; i++) pthread_create(&t[i], 0, flipper, 0);
    double t0 = seconds();
    for (int i = 0; i < checks; i++) check();
    double took = seconds() - t0;
    g_stop = 1;
    for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
    printf("victim: %d leak checks while 3 threads looped on seteuid took %.1f s\n", checks, took);
    return took < 10.0 ? 0 : 1;
}
