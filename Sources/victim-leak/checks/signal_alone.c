#include "signal_alone.h"
#include "../leak_sites.h"
#include "victim_leak_check.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/// Signals `parent` and waits up to 10 s for the report count to pass
/// `*seen`; 1 when it did.
static int ask(pid_t parent, int sig, const char *dir, int *seen) {
    kill(parent, sig);
    long until = now_ms() + 10000;
    int n;
    while ((n = victim_leak_reports(dir)) <= *seen && now_ms() < until) usleep(2000);
    int answered = n > *seen;
    *seen = n;
    return answered;
}

static int threads_now(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != 0;) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

int victim_signal_alone(int rounds) {
    const char *dir = getenv("FAULTLINE_REPORT_DIR"), *s = getenv("FAULTLINE_LEAK_SIGNAL");
    if (!dir || !s || !*s) { fprintf(stderr, "victim: signal-alone needs FAULTLINE_REPORT_DIR and FAULTLINE_LEAK_SIGNAL (a number)\n"); return 2; }
    int sig = atoi(s);
    leak_77();
    victim_clear_stack();
    int go[2], done[2];
    if (pipe(go) != 0 || pipe(done) != 0) { perror("victim: pipe"); return 2; }
    fflush(stdout);
    pid_t parent = getpid(), child = fork();
    if (child < 0) { perror("victim: fork"); return 2; }
    if (child == 0) {
        close(go[0]);
        int seen = victim_leak_reports(dir), answered = 0;
        for (int i = 0; i < rounds; i++) answered += ask(parent, sig, dir, &seen);
        // The parent waits in read(2) now (it was told to by a byte).
        if (write(go[1], "r", 1) != 1) _exit(2);
        usleep(100000);
        answered += ask(parent, sig, dir, &seen);
        char b = (char)answered;
        if (write(done[1], &b, 1) != 1) _exit(2);
        _exit(0);
    }
    close(go[1]);
    // Allocating until the child's byte says it is the read's turn.
    void *kept[64] = {0};
    unsigned r = 1;
    long steps = 0;
    struct timespec no_wait = {0, 0};
    for (;;) {
        for (int k = 0; k < 1000; k++, steps++) {
            r = r * 1103515245u + 12345u;
            unsigned i = (r >> 8) % 64;
            free(kept[i]);
            kept[i] = malloc(16 + (r >> 12) % 4000);
            if (kept[i]) memset(kept[i], 1, 16);
        }
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(go[0], &fds);
        if (pselect(go[0] + 1, &fds, 0, 0, &no_wait, 0) == 1) break;
    }
    char b;
    if (read(go[0], &b, 1) != 1) { perror("victim: read"); return 2; }
    // The signal comes during this read, which the kernel restarts after
    // the handler: only a check run by then lets the child write.
    ssize_t got = read(done[0], &b, 1);
    int status = 0;
    waitpid(child, &status, 0);
    for (int i = 0; i < 64; i++) free(kept[i]);
    int answered = got == 1 ? (int)(unsigned char)b : -1;
    printf("victim: %d of %d leak signals answered by a report (the last during a read), %ld malloc/free steps, %d thread(s)\n",
           answered, rounds + 1, steps, threads_now());
    return answered == rounds + 1 ? 0 : 1;
}
