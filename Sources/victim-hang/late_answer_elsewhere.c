// late-answer-elsewhere: a thread's answer to a stack request comes while
// the request for the next thread is still open; it must not be taken for
// that thread's.
//
// late-0 waits in vfork (its parent side runs no signal handler until the
// child exits) for a child that exits only when thread 'releaser' lets it:
// 60 ms after the releaser sees a signal pending for late-0, that is, 10 ms
// after the hang report's request for late-0's stack timed out (50 ms),
// while the request for slow-1 is open. slow-1 waits in vfork for the whole
// run, so it never answers: its entry must say `captured: false`. Were
// late-0's answer taken for the open request, slow-1's entry would show a
// stack (hang.late-answers cannot see that: its late answers land at
// random moments, mostly between requests).
#include "victim_event_loop.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int g_late_pipe[2], g_slow_pipe[2];
static volatile int g_stop;
static volatile pid_t g_late_tid;

static uint64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/// vforks a child that exits once it reads a byte from `fd`; returns when it has.
static void vfork_until_released(int fd) {
    pid_t pid = vfork();
    if (pid == 0) {
        // Only raw system calls in a vfork child (it borrows the parent's
        // memory and stack; the agent wraps _exit).
        char c;
        syscall(SYS_read, fd, &c, 1);
        syscall(SYS_exit, 0);
    }
    if (pid > 0) waitpid(pid, 0, 0);
}

__attribute__((noinline)) static void late_wait_in_vfork(void) {
    while (!g_stop) vfork_until_released(g_late_pipe[0]);
}

__attribute__((noinline)) static void slow_wait_in_vfork(void) { vfork_until_released(g_slow_pipe[0]); }

static void *late_thread(void *unused) {
    pthread_setname_np(pthread_self(), "late-0");
    g_late_tid = (pid_t)syscall(SYS_gettid);
    late_wait_in_vfork();
    return unused;
}

static void *slow_thread(void *unused) {
    pthread_setname_np(pthread_self(), "slow-1");
    slow_wait_in_vfork();
    return unused;
}

/// 1 when a signal is pending for thread `tid` (SigPnd: directed at it).
static int signal_pending_for(pid_t tid) {
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)tid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strstr(buf, "\nSigPnd:");
    return p && strtoull(p + 8, 0, 16) != 0;
}

static void *releaser_thread(void *unused) {
    pthread_setname_np(pthread_self(), "releaser");
    while (!g_stop) {
        if (!g_late_tid || !signal_pending_for(g_late_tid)) { usleep(1000); continue; }
        usleep(60000);  // the request for late-0 has timed out; slow-1's is open
        if (write(g_late_pipe[1], "x", 1) != 1) return unused;
        while (!g_stop && signal_pending_for(g_late_tid)) usleep(1000);
    }
    return unused;
}

__attribute__((noinline)) static void spin_while_late_answers(int ms) {
    volatile uint64_t x = 0;
    for (uint64_t end = mono_ms() + (uint64_t)ms; mono_ms() < end;)
        for (int i = 0; i < 10000; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
}

int victim_cmd_late_answer_elsewhere(int argc, char **argv, char **envp) {
    int ms = argc > 2 ? atoi(argv[2]) : 3000;
    if (pipe(g_late_pipe) != 0 || pipe(g_slow_pipe) != 0) return 3;
    pthread_t late, slow, releaser;
    pthread_create(&late, 0, late_thread, 0);
    pthread_create(&slow, 0, slow_thread, 0);
    pthread_create(&releaser, 0, releaser_thread, 0);
    victim_idle_like_event_loop(800);
    fprintf(stderr, "victim: spinning on the main thread for %d ms; late-0 answers 60 ms after each request, slow-1 never\n", ms);
    spin_while_late_answers(ms);
    fprintf(stderr, "victim: main thread responsive again\n");
    victim_idle_like_event_loop(400);
    g_stop = 1;
    if (write(g_slow_pipe[1], "x", 1) != 1 || write(g_late_pipe[1], "x", 1) != 1) return 3;
    pthread_join(slow, 0);
    pthread_join(late, 0);
    pthread_join(releaser, 0);
    return 0;
}
