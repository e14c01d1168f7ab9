// victim-leak check-under-setxid (check_under_setxid.h). The check's short
// sleeps (waiting for threads to park and to leave) were restarted with
// the time nanosleep said was left; a SIGSETXID pending each time one
// started left it whole, and the check never came back (a program exiting
// while its threads looped on seteuid hung in its exit check).
#include "check_under_setxid.h"
#include "victim_leak_check.h"
#include "victim_euid.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile int g_stop;
static uid_t g_flip_to;  // what the flippers' seteuid goes to and back from

static void *flipper(void *unused) {
    while (!g_stop)
        if (seteuid(g_flip_to) != 0 || seteuid(0) != 0) { perror("victim: seteuid"); break; }
    return unused;
}

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

// `checks` on-demand leak checks on main while three threads loop on
// seteuid(`to`) and seteuid(0); the seconds they took, or -1 after a line
// saying why they could not run.
static double checks_while_flipping(int checks, uid_t to) {
    victim_leak_check_fn check = victim_leak_check_needed();
    if (!check) return -1;
    if (geteuid() != 0) { fprintf(stderr, "victim: this must run as root\n"); return -1; }
    g_flip_to = to;
    g_stop = 0;
    pthread_t t[3];
    for (int i = 0; i < 3; i++) pthread_create(&t[i], 0, flipper, 0);
    double t0 = seconds();
    for (int i = 0; i < checks; i++) check();
    double took = seconds() - t0;
    g_stop = 1;
    for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
    return took;
}

int victim_check_under_setxid(int checks) {
    double took = checks_while_flipping(checks, 1000);
    if (took < 0) return 2;
    printf("victim: %d leak checks while 3 threads looped on seteuid took %.1f s\n", checks, took);
    return took < 10.0 ? 0 : 1;
}

int victim_checks_while_euid_flips(int checks) {
    if (checks_while_flipping(checks, 65534) < 0) return 2;
    const char *dir = getenv("FAULTLINE_REPORT_DIR");
    DIR *d = dir ? opendir(dir) : 0;
    int reports = 0;
    for (struct dirent *e; d && (e = readdir(d));) reports += !strncmp(e->d_name, "leak-", 5);
    if (d) closedir(d);
    printf("victim: %d leak checks while 3 threads looped on seteuid(65534) and seteuid(0): %d leak reports in the report directory\n",
           checks, reports);
    return reports == checks && victim_threads_have_main_ids() == 0 ? 0 : 1;
}
