// Cases for faultline_uninstall (issue 32): after uninstall the process is
// the program's again — its handlers, no thread and no fd of a detector's —
// and a second install works like the first.
#define _GNU_SOURCE  // dlsym's RTLD_DEFAULT
#include "faultline.h"
#include "faultline_hang.h"

#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void own_segv(int sig) {
    (void)sig;
    static const char line[] = "victim: own SIGSEGV handler ran\n";
    write(2, line, sizeof line - 1);
    _exit(42);
}

static int *volatile g_null;

/// A NULL store: the fault a crash handler is for (raise would come back).
__attribute__((noinline)) static void null_store(void) {
    fprintf(stderr, "victim: storing through NULL\n");
    *g_null = 1;
}

static void install_or_exit(void) {
    faultline_options options;
    memset(&options, 0, sizeof options);
    if (faultline_install(&options) == 0) return;
    fprintf(stderr, "victim-c-linked: %s\n", faultline_last_error());
    _exit(3);
}

static void uninstall_or_exit(void) {
    faultline_uninstall();
    if (!faultline_is_installed()) return;
    fprintf(stderr, "victim: still installed after uninstall\n");
    _exit(4);
}

/// Threads of this process whose name is `name`.
static int threads_named(const char *name) {
    DIR *d = opendir("/proc/self/task");
    if (!d) { perror("victim: /proc/self/task"); _exit(2); }
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[64], comm[32] = {0};
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f && fgets(comm, sizeof comm, f)) comm[strcspn(comm, "\n")] = 0;
        if (f) fclose(f);
        n += strcmp(comm, name) == 0;
    }
    closedir(d);
    return n;
}

/// Descriptors of this process open on a file under /sys/fs/cgroup (the
/// memory monitor's).
static int cgroup_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    if (!d) { perror("victim: /proc/self/fd"); _exit(2); }
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char path[64], target[512];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t len = readlink(path, target, sizeof target - 1);
        if (len <= 0) continue;
        target[len] = 0;
        n += strncmp(target, "/sys/fs/cgroup/", 15) == 0;
    }
    closedir(d);
    return n;
}

/// Says how many threads named `name` run, and exits 5 unless `want`.
static void expect_threads(const char *name, int want, const char *when) {
    int n = threads_named(name);
    fprintf(stderr, "victim: %d %s thread(s) %s\n", n, name, when);
    if (n != want) _exit(5);
}

/// Waits until a detector's new thread has named itself (it names itself
/// as it begins), at most 2 s.
static void wait_for_thread(const char *name) {
    for (int i = 0; i < 200 && threads_named(name) == 0; i++) usleep(10000);
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {}
}

/// A loop that beats for 200 ms (the watchdog then watches by heartbeat),
/// then one sleep of `ms` on the main thread (a hang while a watchdog
/// runs), then beats for 300 ms again.
static void beat_then_sleep(long ms) {
    for (int i = 0; i < 20; i++) {
        faultline_heartbeat();
        sleep_ms(10);
    }
    fprintf(stderr, "victim: main thread sleeps %ld ms\n", ms);
    sleep_ms(ms);
    fprintf(stderr, "victim: main thread awake again\n");
    for (int i = 0; i < 30; i++) {  // long enough for a watchdog to see it
        faultline_heartbeat();
        sleep_ms(10);
    }
}

// --- the cases ----------------------------------------------------------------

static void then_crash(void) {
    install_or_exit();
    uninstall_or_exit();
    null_store();
    _exit(1);
}

static void own_handler_back(void) {
    signal(SIGSEGV, own_segv);
    install_or_exit();
    uninstall_or_exit();
    struct sigaction old;
    sigaction(SIGSEGV, 0, &old);
    if (old.sa_handler != own_segv) { fprintf(stderr, "victim: SIGSEGV handler is not the program's\n"); _exit(5); }
    fprintf(stderr, "victim: sigaction reports the program's handler\n");
    fprintf(stderr, "victim: raising SIGSEGV\n");
    raise(SIGSEGV);
    _exit(1);
}

static void reinstall_then_crash(void) {
    install_or_exit();
    uninstall_or_exit();
    install_or_exit();
    null_store();
    _exit(1);
}

static void hang_stops(void) {
    install_or_exit();
    faultline_ready();  // the cpu detector's sampler starts at ready
    wait_for_thread("faultline-wdog");
    wait_for_thread("faultline-cpu");
    expect_threads("faultline-wdog", 1, "after install");
    expect_threads("faultline-cpu", 1, "after install");
    uninstall_or_exit();
    expect_threads("faultline-wdog", 0, "after uninstall");
    expect_threads("faultline-cpu", 0, "after uninstall");
    beat_then_sleep(3000);
    _exit(0);
}

static void reinstall_hang(void) {
    install_or_exit();
    wait_for_thread("faultline-wdog");
    uninstall_or_exit();
    install_or_exit();
    wait_for_thread("faultline-wdog");
    expect_threads("faultline-wdog", 1, "after the second install");
    beat_then_sleep(3000);
    _exit(0);
}

static void *uninstall_later(void *ms) {
    sleep_ms((long)(intptr_t)ms);
    fprintf(stderr, "victim: uninstalling while main sleeps\n");
    faultline_uninstall();
    return 0;
}

static void during_hang(void) {
    install_or_exit();
    pthread_t t;
    pthread_create(&t, 0, uninstall_later, (void *)(intptr_t)2800);
    beat_then_sleep(4000);
    pthread_join(t, 0);
    expect_threads("faultline-wdog", 0, "after uninstall");
    _exit(0);
}

static void memory_stops(void) {
    install_or_exit();
    wait_for_thread("faultline-mem");
    expect_threads("faultline-mem", 1, "after install");
    int held = cgroup_fds();
    fprintf(stderr, "victim: %s cgroup fds after install\n", held > 0 ? "some" : "no");
    uninstall_or_exit();
    expect_threads("faultline-mem", 0, "after uninstall");
    fprintf(stderr, "victim: %d cgroup fds after uninstall\n", cgroup_fds());
    _exit(cgroup_fds() == 0 && held > 0 ? 0 : 6);
}

typedef void (*terminate_fn)(void);

static void cxx_terminate_back(void) {
    // The C++ runtime is the agent's dependency; asked by name from C.
    terminate_fn (*get_terminate)(void) = (terminate_fn (*)(void))dlsym(RTLD_DEFAULT, "_ZSt13get_terminatev");
    if (!get_terminate) { fprintf(stderr, "victim: no std::get_terminate\n"); _exit(2); }
    terminate_fn before = get_terminate();
    install_or_exit();
    terminate_fn during = get_terminate();
    uninstall_or_exit();
    terminate_fn after = get_terminate();
    fprintf(stderr, "victim: terminate handler while installed: %s\n", during == before ? "the program's" : "another");
    fprintf(stderr, "victim: terminate handler after uninstall: %s\n", after == before ? "the program's" : "another");
    _exit(during != before && after == before ? 0 : 7);
}

static const struct {
    const char *name;
    void (*run)(void);
} k_cases[] = {
    {"uninstall-then-crash", then_crash},
    {"uninstall-own-handler-back", own_handler_back},
    {"reinstall", reinstall_then_crash},
    {"uninstall-hang-stops", hang_stops},
    {"reinstall-hang", reinstall_hang},
    {"uninstall-during-hang", during_hang},
    {"uninstall-memory-stops", memory_stops},
    {"uninstall-cxx-terminate-back", cxx_terminate_back},
};

/// Runs case `name` when it is one of these (never returns then); else 0.
int victim_uninstall_case(const char *name) {
    for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++)
        if (strcmp(name, k_cases[i].name) == 0) k_cases[i].run();
    return 0;
}
