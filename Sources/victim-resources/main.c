// victim-resources: one resource fault per subcommand, for the cpu, fds,
// threads and launch detectors (docs/resources.md). Each fault happens in
// a named, non-inlined function so that a report's stacks can be checked
// by name. Links nothing of Faultline: the agent comes by LD_PRELOAD.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "victim_cases.h"
#include "victim_event_loop.h"
#include "fd_entry_points.h"
#include "stderr_copies.h"

#define NOINLINE __attribute__((noinline))

/// The agent's, when it is preloaded (faultline.h).
extern void faultline_ready(void) __attribute__((weak));

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

// --- cpu ------------------------------------------------------------------

static volatile uint64_t g_sink;

/// Burns the CPU for `ms`: the function a cpu_hog report must name.
NOINLINE void victim_spin_hot_loop(int ms) {
    uint64_t until = now_ms() + (uint64_t)ms, x = 1;
    while (now_ms() < until)
        for (int i = 0; i < 100000; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
    g_sink = x;
}

static void *spinner(void *arg) {
    pthread_setname_np(pthread_self(), "spinner");
    victim_idle_like_event_loop(300);
    victim_spin_hot_loop((int)(intptr_t)arg);
    return 0;
}

static int cpu_spin_worker(void) {
    pthread_t t;
    printf("victim: a worker spins 4 s while main polls an eventfd\n");
    fflush(stdout);
    pthread_create(&t, 0, spinner, (void *)(intptr_t)4000);
    victim_idle_like_event_loop(4800);
    pthread_join(t, 0);
    return 0;
}

static int cpu_batch_main(void) {
    printf("victim: main computes for 4 s, with no event loop\n");
    fflush(stdout);
    victim_spin_hot_loop(4000);
    return 0;
}

static int cpu_busy_main_loop(void) {
    printf("victim: main waits in its event loop, then spins 4 s on it\n");
    fflush(stdout);
    victim_idle_like_event_loop(500);
    victim_spin_hot_loop(4000);
    victim_idle_like_event_loop(300);
    return 0;
}

// --- fds ------------------------------------------------------------------

/// Opens the configuration three times and keeps none of them closed.
NOINLINE int victim_open_config_three_times(const char *path) {
    int last = -1;
    for (int i = 0; i < 3; i++) last = open(path, O_RDONLY);
    return last;
}

static int write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return -1;
    ssize_t w = write(fd, text, strlen(text));
    close(fd);
    return w < 0 ? -1 : 0;
}

static int fd_leak_exec(void) {
    // fd 3 is the log the first image opened and kept across exec.
    if (fcntl(3, F_GETFD) < 0) { fprintf(stderr, "victim: fd 3 was not inherited\n"); return 2; }
    if (write_file("victim-config.txt", "key = value\n") != 0) { perror("victim: config"); return 2; }
    int fd = victim_open_config_three_times("victim-config.txt");
    dprintf(3, "victim: opened the config three times, last fd %d\n", fd);
    printf("victim: three opens of one file in a helper, never closed; stdin, stdout and log fd 3 kept\n");
    return 0;
}

static int fd_leak(int argc, char **argv, char **envp) {
    (void)argc, (void)envp;
    int log = open("victim-log.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log < 0 || dup2(log, 3) != 3) { perror("victim: log"); return 2; }
    if (log != 3) close(log);
    execl(argv[0], argv[0], "fd-leak-exec", (char *)0);
    perror("victim: exec");
    return 2;
}

/// Opens a socket it never closes.
NOINLINE int victim_open_socket(void) { return socket(AF_INET, SOCK_STREAM, 0); }

/// Makes a pipe it never closes.
NOINLINE int victim_make_pipe(int fds[2]) { return pipe(fds); }

static int fd_socket_pipe(void) {
    int p[2];
    int s = victim_open_socket();
    if (s < 0 || victim_make_pipe(p) != 0) { perror("victim"); return 2; }
    printf("victim: leaked socket %d and pipe %d, %d\n", s, p[0], p[1]);
    return 0;
}

static int fd_clean(void) {
    if (write_file("victim-clean.txt", "x\n") != 0) return 2;
    int fd = open("victim-clean.txt", O_RDONLY);
    int d = dup(fd), d2 = dup2(fd, 40), d3 = dup3(fd, 41, O_CLOEXEC);
    close(d); close(d2); close(d3); close(fd);
    int sp[2], p[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0) { close(sp[0]); close(sp[1]); }
    if (pipe2(p, O_CLOEXEC) == 0) { close(p[0]); close(p[1]); }
    int e = eventfd(0, 0), ep = epoll_create1(0), s = socket(AF_INET, SOCK_DGRAM, 0);
    close(e); close(ep); close(s);
    char tmpl[] = "victim-XXXXXX";
    int t = mkstemp(tmpl);
    if (t >= 0) { close(t); unlink(tmpl); }
    int r1 = open("victim-clean.txt", O_RDONLY), r2 = open("victim-clean.txt", O_RDONLY);
    close_range((unsigned)(r1 < r2 ? r1 : r2), (unsigned)(r1 < r2 ? r2 : r1), 0);
    // Last, so that no later open takes their numbers: closes inside libc.
    FILE *f = fopen("victim-clean.txt", "r");
    if (f) fclose(f);
    DIR *dir = opendir(".");
    if (dir) closedir(dir);
    FILE *tf = tmpfile();
    if (tf) fclose(tf);
    printf("victim: every descriptor opened was closed\n");
    return 0;
}

/// Keeps the configuration open while a forked child runs and exits.
NOINLINE int victim_open_config_for_children(const char *path) { return open(path, O_RDONLY); }

static int fd_fork_child(void) {
    if (write_file("victim-config.txt", "key = value\n") != 0) return 2;
    int fd = victim_open_config_for_children("victim-config.txt");
    pid_t child = fork();
    if (child == 0) exit(0);  // holds fd by inheritance: not its leak
    int status = 0;
    waitpid(child, &status, 0);
    close(fd);
    printf("victim: a child forked with an open fd exited %d; the parent closed it\n", WEXITSTATUS(status));
    return 0;
}

/// Opens /dev/null until the limit is near, as a program leaking fds does.
NOINLINE int victim_open_until_near_limit(int *fds, int count) {
    int n = 0;
    while (n < count && (fds[n] = open("/dev/null", O_RDONLY)) >= 0) n++;
    return n;
}

static int fd_pressure_exec(void) {
    static int fds[256];
    int n = victim_open_until_near_limit(fds, 200);
    printf("victim: holding %d descriptors under a limit of 256\n", n);
    for (int i = 0; i < n; i++) close(fds[i]);
    return 0;
}

static int fd_pressure(int argc, char **argv, char **envp) {
    (void)argc, (void)envp;
    struct rlimit rl = {256, 256};
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) { perror("victim: setrlimit"); return 2; }
    execl(argv[0], argv[0], "fd-pressure-exec", (char *)0);
    perror("victim: exec");
    return 2;
}

// --- threads --------------------------------------------------------------

static void *finish_at_once(void *arg) { return arg; }

/// Starts `n` joinable workers that finish at once and are never joined.
NOINLINE void victim_start_forgotten_workers(int n) {
    for (int i = 0; i < n; i++) {
        pthread_t t;
        pthread_create(&t, 0, finish_at_once, 0);
    }
}

static int thread_leak(void) {
    victim_start_forgotten_workers(10);
    usleep(300000);
    printf("victim: 10 joinable threads finished and were never joined\n");
    return 0;
}

static void *detach_self(void *arg) {
    pthread_detach(pthread_self());
    return arg;
}

static int thread_clean(void) {
    pthread_t t[4];
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_create(&t[0], 0, finish_at_once, 0);
    pthread_create(&t[1], &attr, finish_at_once, 0);
    pthread_create(&t[2], 0, detach_self, 0);
    pthread_create(&t[3], 0, finish_at_once, 0);
    pthread_join(t[0], 0);
    pthread_detach(t[3]);
    usleep(200000);
    printf("victim: threads joined, created detached, detached by themselves and by main\n");
    return 0;
}

static int g_block[2];

static void *wait_for_ever(void *arg) {
    char c;
    while (read(g_block[0], &c, 1) < 0 && errno == EINTR) {}
    return arg;
}

/// Starts a worker per request and never lets one end: a pool that grows.
NOINLINE void victim_grow_pool(int n) {
    for (int i = 0; i < n; i++) {
        pthread_t t;
        pthread_create(&t, 0, wait_for_ever, 0);
        pthread_detach(t);
    }
}

static int thread_growth(void) {
    if (pipe(g_block) != 0) return 2;
    victim_grow_pool(40);
    printf("victim: 40 threads started and still running\n");
    return 0;
}

// --- launch ---------------------------------------------------------------

/// A constructor that takes 400 ms (only for `slow-constructor`).
NOINLINE void victim_slow_initialisation(void) { usleep(400000); }

__attribute__((constructor)) static void slow_constructor(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "slow-constructor") == 0) victim_slow_initialisation();
}

static int slow_constructor_main(void) {
    if (faultline_ready) faultline_ready();
    printf("victim: main began after a 400 ms constructor and is ready\n");
    return 0;
}

static int ready_after_loop(void) {
    victim_idle_like_event_loop(400);
    printf("victim: waited in an event loop for 400 ms\n");
    return 0;
}

// The cases and their help (victim_cases.h): adding one is a function and a
// row. fd-leak and fd-pressure run themselves again by argv[0], so they are
// `run` rows, as is stderr-fcntl-copy, which reads argv[2]. A usage error
// exits 64, as this victim always did.
static const victim_case k_cases[] = {
    VICTIM_CALL("cpu-spin-worker", cpu_spin_worker, "a worker thread spins 4 s while main polls an eventfd (cpu_hog)"),
    VICTIM_CALL("cpu-batch-main", cpu_batch_main, "main computes 4 s with no event loop (no report)"),
    VICTIM_CALL("cpu-busy-main-loop", cpu_busy_main_loop, "main reaches its event loop, then spins 4 s on it (a hang, not also a cpu_hog)"),
    VICTIM_RUN("fd-leak", fd_leak, "keep a log as fd 3 across exec, then open a file three times in a helper and never close it"),
    VICTIM_CALL("fd-leak-exec", fd_leak_exec, "(fd-leak after its exec)"),
    VICTIM_CALL("fd-socket-pipe", fd_socket_pipe, "leak a socket and a pipe"),
    VICTIM_CALL("fd-clean", fd_clean, "open and close through every entry point (no report)"),
    VICTIM_CALL("fd-fork-child", fd_fork_child, "fork a child (which exits) while an fd is open, then close it (no report)"),
    VICTIM_RUN("fd-pressure", fd_pressure, "under a limit of 256 fds, hold 200 at once, then close them"),
    VICTIM_CALL("fd-pressure-exec", fd_pressure_exec, "(fd-pressure after its exec)"),
    VICTIM_CALL("fd-fcntl-dupfd", fd_fcntl_dupfd, "keep a fcntl(F_DUPFD) copy of a file it closes"),
    VICTIM_CALL("fd-fcntl-dupfd-cloexec", fd_fcntl_dupfd_cloexec, "keep a fcntl(F_DUPFD_CLOEXEC) copy of a file it closes"),
    VICTIM_CALL("fd-recvmsg", fd_recvmsg, "keep an fd received by recvmsg (SCM_RIGHTS)"),
    VICTIM_CALL("fd-recvmmsg", fd_recvmmsg, "keep an fd received by recvmmsg (SCM_RIGHTS)"),
    VICTIM_CALL("fd-syscall-openat", fd_syscall_openat, "keep an fd opened by syscall(SYS_openat)"),
    VICTIM_CALL("fd-syscall-close", fd_syscall_close, "close by syscall(SYS_close), then a raw openat reuses the number (no report)"),
    VICTIM_CALL("fd-leak-then-exit", fd_leak_then_exit, "keep an open fd and leave by _exit"),
    VICTIM_CALL("fd-leak-then-exit-group", fd_leak_then_exit_group, "keep an open fd and leave by syscall(SYS_exit_group)"),
    VICTIM_CALL("fd-vfork-child-exit", fd_vfork_child_exit, "keep an fd, vfork a child that calls _exit, keep another (one report, both fds)"),
    VICTIM_RUN("stderr-fcntl-copy", stderr_fcntl_copy_then_crash, "copy fd 2 by fcntl (F_DUPFD_CLOEXEC, or F_DUPFD when named), write to the copies, crash"),
    VICTIM_CALL("thread-leak", thread_leak, "10 joinable threads finish and are never joined"),
    VICTIM_CALL("thread-clean", thread_clean, "threads joined or detached every way (no report)"),
    VICTIM_CALL("thread-growth", thread_growth, "start 40 threads that never end"),
    VICTIM_CALL("slow-constructor", slow_constructor_main, "a constructor takes 400 ms before main, which calls faultline_ready"),
    VICTIM_CALL("ready-after-loop", ready_after_loop, "wait 400 ms in an event loop (ready by the hang detector's rule)"),
};

int main(int argc, char **argv, char **envp) {
    setvbuf(stdout, 0, _IOLBF, 0);
    return victim_run_case_or(64, "victim-resources", k_cases, sizeof k_cases / sizeof k_cases[0], argc, argv, envp);
}
