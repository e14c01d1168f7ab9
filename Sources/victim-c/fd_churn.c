// victim-c dup2-churn: a program that keeps putting its own file at fd 3
// (dup2) and taking it away again (close) on a worker thread while the
// agent's watchdog reads /proc files on its own thread. Every open the
// agent makes takes the lowest free number, which is 3 whenever the
// program has just closed it: if the program's dup2 lands on that number
// before the agent is done with it, the agent then reads and closes the
// program's file (the program's close fails with EBADF, or fd 3 names
// something else), and a dup2 that lands while the open is still in the
// kernel fails with EBUSY.
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/// What went wrong with fd 3 over the run.
typedef struct {
    long cycles, dup2_failed, replaced, closed_by_other;
    int dup2_errno;
} churn_result;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *churn(void *arg) {
    churn_result *r = arg;
    // The program's own file, kept away from 3 so 3 is the number it moves.
    int mine = fcntl(open("/dev/null", O_RDWR), F_DUPFD, 100);
    struct stat want, got;
    if (mine < 0 || fstat(mine, &want) != 0) { perror("victim: /dev/null"); exit(3); }
    close(3);
    double end = now_s() + 2.0;
    while (now_s() < end) {
        r->cycles++;
        if (dup2(mine, 3) != 3) { r->dup2_failed++; r->dup2_errno = errno; continue; }
        if (fstat(3, &got) != 0 || got.st_ino != want.st_ino || got.st_dev != want.st_dev) r->replaced++;
        if (close(3) != 0) r->closed_by_other++;
    }
    return 0;
}

/// Runs the churn for 2 s on a worker while main waits, then says whether
/// fd 3 was the program's every time it put it there.
void victim_dup2_churn(void) {
    churn_result r = {0};
    pthread_t t;
    pthread_create(&t, 0, churn, &r);
    pthread_join(t, 0);
    if (r.dup2_failed || r.replaced || r.closed_by_other) {
        fprintf(stderr, "victim: fd 3 was taken from the program: of %ld dup2/close cycles, %ld dup2 failed (last: %s), "
                        "%ld found another file at 3, %ld closes failed\n",
                r.cycles, r.dup2_failed, r.dup2_failed ? strerror(r.dup2_errno) : "none", r.replaced, r.closed_by_other);
        exit(1);
    }
    fprintf(stderr, "victim: fd 3 stayed the program's through %s dup2/close cycles\n", r.cycles > 1000 ? "over 1000" : "too few");
    exit(r.cycles > 1000 ? 0 : 1);
}
