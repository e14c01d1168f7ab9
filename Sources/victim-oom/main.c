// victim-oom: memory-limit faults for the scenario suite, one per
// subcommand. Run inside a memory cgroup (`memory_limit:` in a scenario,
// `faultline exec --memory-limit`), the growing ones are ended by the
// kernel's OOM killer with SIGKILL, which no handler can catch. Growth
// happens in named, non-inlined functions so the malloc shim's allocation
// stacks (in the memory monitor's breadcrumbs) name them.
#include "victim_cases.h"
#include "nested_child_oom.h"
#include "own_cgroup.h"
#include "nobody_children.h"
#include "stall_at_limit.h"
#include "victim_threads.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define KiB (1024ul)
#define MiB (1024ul * 1024ul)

// Keeps the optimiser from dropping memory nobody reads.
static void *volatile g_sink;

static void sleep_ms(long ms) {
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000l };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

/// Parses "64M", "512K", "1G" or bytes; exits with a one-line error otherwise.
static size_t parse_size(const char *what, const char *text) {
    char *end;
    errno = 0;
    unsigned long long n = strtoull(text, &end, 10);
    unsigned long long unit = 1;
    if (*end == 'K' || *end == 'k') { unit = KiB; end++; }
    else if (*end == 'M' || *end == 'm') { unit = MiB; end++; }
    else if (*end == 'G' || *end == 'g') { unit = 1024ull * MiB; end++; }
    if (errno || end == text || *end || n == 0) {
        fprintf(stderr, "victim-oom: %s '%s' is not a size; write e.g. 64M, 512K or 4096\n", what, text);
        exit(2);
    }
    return (size_t)(n * unit);
}

static long parse_ms(const char *what, const char *text) {
    char *end;
    long n = strtol(text, &end, 10);
    if (end == text || *end || n < 0) {
        fprintf(stderr, "victim-oom: %s '%s' is not a number of milliseconds\n", what, text);
        exit(2);
    }
    return n;
}

/// Touches every page so the memory is charged to the cgroup now.
static void touch(char *p, size_t n) {
    for (size_t i = 0; i < n; i += 4096) p[i] = (char)(i >> 12 | 1);
}

/// One heap allocation of `n` bytes, touched (its own frame in stacks).
NOINLINE static void *victim_malloc_chunk(size_t n) {
    char *p = malloc(n);
    if (!p) return 0;
    touch(p, n);
    return p;
}

/// Grows the heap in `step`-byte malloc calls until the OOM killer ends us.
NOINLINE static void victim_malloc_grow(size_t step) {
    fprintf(stderr, "victim-oom: growing through malloc in %zu KiB steps\n", step / KiB);
    size_t total = 0;
    for (;;) {
        void *p = victim_malloc_chunk(step);
        if (!p) { fprintf(stderr, "victim-oom: malloc returned NULL after %zu MiB\n", total / MiB); exit(3); }
        g_sink = p;
        total += step;
    }
}

/// Grows through anonymous private mappings until the OOM killer ends us.
NOINLINE static void victim_mmap_grow(size_t step) {
    fprintf(stderr, "victim-oom: growing through anonymous mmap in %zu KiB steps\n", step / KiB);
    size_t total = 0;
    for (;;) {
        char *p = mmap(0, step, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) { fprintf(stderr, "victim-oom: mmap failed after %zu MiB: %s\n", total / MiB, strerror(errno)); exit(3); }
        touch(p, step);
        g_sink = p;
        total += step;
    }
}

/// Leaks `step` bytes every `interval_ms`: reaches any limit, slowly.
NOINLINE static void victim_slow_leak(size_t step, long interval_ms) {
    fprintf(stderr, "victim-oom: leaking %zu KiB every %ld ms\n", step / KiB, interval_ms);
    for (;;) {
        void *p = victim_malloc_chunk(step);
        if (!p) { fprintf(stderr, "victim-oom: malloc returned NULL\n"); exit(3); }
        g_sink = p;
        sleep_ms(interval_ms);
    }
}

/// Allocates `size` at once, holds it `hold_ms`, frees it and exits 0.
NOINLINE static void victim_spike(size_t size, long hold_ms) {
    fprintf(stderr, "victim-oom: spiking to %zu MiB for %ld ms\n", size / MiB, hold_ms);
    void *p = victim_malloc_chunk(size);
    if (!p) { fprintf(stderr, "victim-oom: malloc(%zu) returned NULL\n", size); exit(3); }
    sleep_ms(hold_ms);
    free(p);
    fprintf(stderr, "victim-oom: spike released\n");
    exit(0);
}

/// Forks a child named "oom-child" that grows until the OOM killer ends it;
/// the parent stays small, waits, says how the child ended, and exits 0.
NOINLINE static void victim_child_oom(size_t step) {
    fflush(0);
    pid_t child = fork();
    if (child < 0) { perror("victim-oom: fork"); exit(2); }
    if (child == 0) {
        prctl(PR_SET_NAME, "oom-child", 0, 0, 0);
        victim_malloc_grow(step);
        _exit(3);
    }
    printf("victim-oom: child %d is growing\n", (int)child);
    fflush(stdout);
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    if (WIFSIGNALED(status))
        printf("victim-oom: child %d killed by signal %d\n", (int)child, WTERMSIG(status));
    else
        printf("victim-oom: child %d exited with code %d\n", (int)child, WEXITSTATUS(status));
    exit(0);
}

/// A directory for the pressure file whose pages the kernel can drop:
/// /tmp, else /var/tmp. On tmpfs (and ramfs) page cache is the file's only
/// copy, which without swap cannot be reclaimed: the victim would be
/// OOM-killed instead of making pressure, so it says so and exits 2.
static const char *reclaimable_directory(void) {
    static const char *dirs[] = { "/tmp", "/var/tmp" };
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        struct statfs fs;
        if (statfs(dirs[i], &fs) == 0 && fs.f_type != TMPFS_MAGIC && fs.f_type != RAMFS_MAGIC) return dirs[i];
    }
    fprintf(stderr, "victim-oom: pressure needs a disk-backed /tmp or /var/tmp; both are tmpfs (or missing), "
                    "whose pages cannot be reclaimed without swap\n");
    exit(2);
}

/// Holds `size` of anonymous memory (no swap: never reclaimed) and reads a
/// sparse file of `file_size` through a read-only shared mapping, a byte a
/// page, over and over for `ms`, then exits 0. With the file larger than
/// what the limit leaves, every fault charges a page-cache page and the
/// kernel reclaims inside the cgroup: v1 pressure_level events, and memory
/// stalls that v2 PSI counts (memcg reclaim runs under psi_memstall_enter).
/// The file is all hole: its pages are zero-filled without disk I/O and
/// are never dirty, so reclaim always finds clean pages and never waits on
/// the disk, and a busy disk cannot turn the pressure into an OOM kill.
/// (Written page cache did: dirty pages, which a v1 memory cgroup does not
/// throttle, got the victim OOM-killed while builds wrote; syncing them
/// every 4 MiB left too little stall for a PSI trigger; a written and
/// synced file read back waits on the disk and was OOM-killed under disk
/// load too.) A mapping rather than read(): evicting mapped pages costs
/// more (unmapping), so the stall is larger and steadier (PSI "some"
/// 610-1500 ms per 2.5 s against 120-710 ms with pread here), well above
/// the default trigger's 150 ms in 2 s. docs/memory-limits.md has the
/// measurements.
NOINLINE static void victim_pressure(size_t size, size_t file_size, long ms) {
    fprintf(stderr, "victim-oom: holding %zu MiB and cycling %zu MiB of page cache for %ld ms\n",
            size / MiB, file_size / MiB, ms);
    g_sink = victim_malloc_chunk(size);
    char path[64];
    snprintf(path, sizeof path, "%s/victim-oom-pressure-XXXXXX", reclaimable_directory());
    int fd = mkstemp(path);
    if (fd < 0) { perror("victim-oom: mkstemp"); exit(2); }
    unlink(path);  // nothing is left behind, even after a SIGKILL
    if (ftruncate(fd, (off_t)file_size) != 0) { perror("victim-oom: ftruncate"); exit(2); }
    const volatile char *file = mmap(0, file_size, PROT_READ, MAP_SHARED, fd, 0);
    if (file == MAP_FAILED) { perror("victim-oom: mmap"); exit(2); }
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        for (size_t off = 0; off < file_size; off += 4096) (void)file[off];
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >= ms) break;
    }
    fprintf(stderr, "victim-oom: pressure done\n");
    exit(0);
}

/// Forks `n` children that end with _exit and `n` that exec /bin/true, then
/// checks that none left a breadcrumb file in FAULTLINE_REPORT_DIR (the
/// monitor creates one in each forked child; only a SIGKILL should leave it).
NOINLINE static void victim_fork_exit(int n) {
    const char *dir = getenv("FAULTLINE_REPORT_DIR");
    if (!dir) { fprintf(stderr, "victim-oom: FAULTLINE_REPORT_DIR is not set\n"); exit(2); }
    pid_t kids[2 * 64];
    if (n > 64) n = 64;
    for (int i = 0; i < 2 * n; i++) {
        fflush(0);
        pid_t p = fork();
        if (p < 0) { perror("victim-oom: fork"); exit(2); }
        if (p == 0) {
            if (i % 2) execl("/bin/true", "true", (char *)0);
            _exit(0);
        }
        kids[i] = p;
        int status;
        while (waitpid(p, &status, 0) < 0 && errno == EINTR) {}
    }
    int left = 0;
    for (int i = 0; i < 2 * n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/memory-%d.breadcrumbs", dir, (int)kids[i]);
        if (access(path, F_OK) == 0) { left++; fprintf(stderr, "victim-oom: left behind: %s\n", path); }
    }
    printf("victim-oom: %d children (_exit and exec), %d breadcrumb files left\n", 2 * n, left);
    exit(left ? 1 : 0);
}

static size_t g_worker_size;

/// Says what the last breadcrumb in this process's breadcrumb file
/// (FAULTLINE_REPORT_DIR/memory-PID.breadcrumbs) gives as rss_bytes.
static void say_breadcrumb_rss(void) {
    const char *dir = getenv("FAULTLINE_REPORT_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/memory-%d.breadcrumbs", dir ? dir : ".", (int)getpid());
    FILE *f = fopen(path, "r");
    if (!f) { printf("victim-oom: no breadcrumb file\n"); return; }
    static char text[256 * 1024];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    // The slots hold NUL-padded JSON: search each piece of text.
    long long rss = -1;
    for (size_t i = 0; i < n; i += strlen(text + i) + 1)
        for (const char *p = text + i; (p = strstr(p, "\"rss_bytes\":")) != 0; p++) rss = atoll(p + 12);
    if (rss < 0) printf("victim-oom: no breadcrumb with rss_bytes\n");
    else printf("victim-oom: breadcrumb rss_bytes is %s\n", rss > 0 ? "above 0" : "0");
}

/// Whether this process's breadcrumb file holds a breadcrumb for
/// `percent` (0: whether the file exists at all).
static int breadcrumb_file_has(int percent) {
    const char *dir = getenv("FAULTLINE_REPORT_DIR");
    char path[4096], needle[64];
    snprintf(path, sizeof path, "%s/memory-%d.breadcrumbs", dir ? dir : ".", (int)getpid());
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    static char text[256 * 1024];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    if (percent == 0) return 1;
    snprintf(needle, sizeof needle, "\"threshold_percent\":%d,", percent);
    for (size_t i = 0; i < n; i += strlen(text + i) + 1)  // NUL-padded slots
        if (strstr(text + i, needle)) return 1;
    return 0;
}

/// Leaks until the 50 % breadcrumb is written, tries to exec a program that
/// does not exist (ENOENT), says whether the breadcrumb file survived the
/// failed exec, then leaks on until the OOM killer ends it: the report must
/// still carry every breadcrumb, the 50 % one from before the exec included.
NOINLINE static void victim_exec_fails(size_t step, long interval_ms) {
    fprintf(stderr, "victim-oom: leaking %zu KiB every %ld ms, an exec that fails at 50 %%\n", step / KiB, interval_ms);
    for (int i = 0; !breadcrumb_file_has(50); i++) {
        if (i > 100000) { printf("victim-oom: no 50 %% breadcrumb\n"); exit(2); }
        g_sink = victim_malloc_chunk(step);
        sleep_ms(interval_ms);
    }
    char *argv[] = { "faultline-no-such-program", 0 };
    execv("/nonexistent/faultline-no-such-program", argv);
    int err = errno;
    printf("victim-oom: exec failed (%s); breadcrumb file %s\n", strerror(err),
           breadcrumb_file_has(50) ? "kept with the 50 % breadcrumb" : breadcrumb_file_has(0) ? "lost the 50 % breadcrumb" : "gone");
    victim_slow_leak(step, interval_ms);
}

/// The last thread: allocates g_worker_size, says what the breadcrumb
/// written meanwhile gives as resident size, frees, then returns, and
/// glibc ends the process with exit(0).
NOINLINE static void *victim_last_worker(void *unused) {
    if (!victim_main_thread_gone()) printf("victim-oom: the main thread did not end within 5 s\n");
    void *p = victim_malloc_chunk(g_worker_size);
    sleep_ms(300);  // a few monitor ticks
    say_breadcrumb_rss();
    free(p);
    printf("victim-oom: worker used %zu MiB and returns; it is the last thread\n", g_worker_size / MiB);
    return 0;
}

/// The main thread leaves with pthread_exit; the process must end when the
/// worker does.
NOINLINE static void victim_main_exits_first(size_t size) {
    g_worker_size = size;
    pthread_t t;
    if (pthread_create(&t, 0, victim_last_worker, 0) != 0) { fprintf(stderr, "victim-oom: pthread_create failed\n"); exit(2); }
    printf("victim-oom: main thread leaves with pthread_exit\n");
    pthread_exit(0);
}


/// Moves itself into a new cgroup below its own (as a container runtime or
/// a service manager does) and grows until the OOM killer ends it.
NOINLINE static void victim_nested_oom(size_t step) {
    char dir[4096], nested[4200], procs[4300];
    own_memory_cgroup(dir, sizeof dir);
    snprintf(nested, sizeof nested, "%s/victim-nested", dir);
    if (mkdir(nested, 0755) != 0) { fprintf(stderr, "victim-oom: mkdir %s: %s\n", nested, strerror(errno)); exit(2); }
    snprintf(procs, sizeof procs, "%s/cgroup.procs", nested);
    FILE *f = fopen(procs, "w");
    if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0) {
        fprintf(stderr, "victim-oom: cannot join %s: %s\n", nested, strerror(errno));
        exit(2);
    }
    printf("victim-oom: moved into the nested cgroup victim-nested\n");
    victim_malloc_grow(step);
}

/// Forks a child that sleeps until killed (a daemon left behind) and exits
/// 0 once the child's breadcrumb file exists: the run's cleanup kills the
/// child, and must not leave its breadcrumb file behind.
NOINLINE static void victim_leave_child(void) {
    const char *dir = getenv("FAULTLINE_REPORT_DIR");
    fflush(0);
    pid_t child = fork();
    if (child < 0) { perror("victim-oom: fork"); exit(2); }
    if (child == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 1);  // the runner reads our output until every copy is closed
        dup2(null, 2);
        for (;;) pause();
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/memory-%d.breadcrumbs", dir ? dir : ".", (int)child);
    for (int i = 0; i < 200 && access(path, F_OK) != 0; i++) sleep_ms(10);
    printf("victim-oom: left child %d running (breadcrumb file %s)\n", (int)child, access(path, F_OK) == 0 ? "made" : "missing");
    exit(0);
}

/// Sleeps until killed (for the runner-sends-SIGKILL case).
NOINLINE static void victim_sleep_forever(void) {
    fprintf(stderr, "victim-oom: sleeping until killed\n");
    for (;;) pause();
}

static int case_malloc_grow(int argc, char **argv, char **envp) {
    (void)envp;
    const char *a = argc > 2 ? argv[2] : 0, *b = argc > 3 ? argv[3] : 0, *c = argc > 4 ? argv[4] : 0;
    (void)a, (void)b, (void)c;
    victim_malloc_grow(a ? parse_size("STEP", a) : 64 * KiB);
    return 0;
}

static int case_mmap_grow(int argc, char **argv, char **envp) {
    (void)envp;
    const char *a = argc > 2 ? argv[2] : 0, *b = argc > 3 ? argv[3] : 0, *c = argc > 4 ? argv[4] : 0;
    (void)a, (void)b, (void)c;
    victim_mmap_grow(a ? parse_size("STEP", a) : MiB);
    return 0;
}

static int case_slow_leak(int argc, char **argv, char **envp) {
    (void)envp;
    const char *a = argc > 2 ? argv[2] : 0, *b = argc > 3 ? argv[3] : 0, *c = argc > 4 ? argv[4] : 0;
    (void)a, (void)b, (void)c;
    victim_slow_leak(a ? parse_size("STEP", a) : MiB, b ? parse_ms("MS", b) : 20);
    return 0;
}

static int case_spike(int argc, char **argv, char **envp) {
    (void)envp;
    const char *a = argc > 2 ? argv[2] : 0, *b = argc > 3 ? argv[3] : 0, *c = argc > 4 ? argv[4] : 0;
    (void)a, (void)b, (void)c;
    if (!a) { fprintf(stderr, "victim-oom: spike needs a SIZE, e.g. spike 40M\n"); return 2; }
    victim_spike(parse_size("SIZE", a), b ? parse_ms("HOLD_MS", b) : 300);
    return 0;
}

static int case_child_oom(int argc, char **argv, char **envp) {
    (void)envp;
    const char *a = argc > 2 ? argv[2] : 0, *b = argc > 3 ? argv[3] : 0, *c = argc > 4 ? argv[4] : 0;
    (void)a, (void)b, (void)c;
    victim_child_oom(a ? parse_size("STEP", a) : 64 * KiB);
    return 0;
}

static int case_pressure(int argc, char **argv, char **envp) {
    (void)envp;
    const char *a = argc > 2 ? argv[2] : 0, *b = argc > 3 ? argv[3] : 0, *c = argc > 4 ? argv[4] : 0;
    (void)a, (void)b, (void)c;
    if (!a || !b) { fprintf(stderr, "victim-oom: pressure needs SIZE and FILE sizes, e.g. pressure 40M 64M\n"); return 2; }
    victim_pressure(parse_size("SIZE", a), parse_size("FILE", b), c ? parse_ms("MS", c) : 2000);
    return 0;
}

static int case_sleep_forever(int argc, char **argv, char **envp) {
    (void)envp;
    const char *a = argc > 2 ? argv[2] : 0, *b = argc > 3 ? argv[3] : 0, *c = argc > 4 ? argv[4] : 0;
    (void)a, (void)b, (void)c;
    victim_sleep_forever();
    return 0;
}

static int case_fork_exit(int argc, char **argv, char **envp) {
    (void)envp;
    const char *a = argc > 2 ? argv[2] : 0, *b = argc > 3 ? argv[3] : 0, *c = argc > 4 ? argv[4] : 0;
    (void)a, (void)b, (void)c;
    victim_fork_exit(a ? atoi(a) : 20);
    return 0;
}

static int case_main_exits_first(int argc, char **argv, char **envp) {
    (void)envp;
    const char *a = argc > 2 ? argv[2] : 0, *b = argc > 3 ? argv[3] : 0, *c = argc > 4 ? argv[4] : 0;
    (void)a, (void)b, (void)c;
    victim_main_exits_first(a ? parse_size("SIZE", a) : 8 * MiB);
    return 0;
}

static int case_leave_child(int argc, char **argv, char **envp) {
    (void)envp;
    const char *a = argc > 2 ? argv[2] : 0, *b = argc > 3 ? argv[3] : 0, *c = argc > 4 ? argv[4] : 0;
    (void)a, (void)b, (void)c;
    victim_leave_child();
    return 0;
}

static int case_nested_oom(int argc, char **argv, char **envp) {
    (void)envp;
    const char *a = argc > 2 ? argv[2] : 0, *b = argc > 3 ? argv[3] : 0, *c = argc > 4 ? argv[4] : 0;
    (void)a, (void)b, (void)c;
    victim_nested_oom(a ? parse_size("STEP", a) : 64 * KiB);
    return 0;
}

static int case_exec_fails(int argc, char **argv, char **envp) {
    (void)envp;
    const char *a = argc > 2 ? argv[2] : 0, *b = argc > 3 ? argv[3] : 0, *c = argc > 4 ? argv[4] : 0;
    (void)a, (void)b, (void)c;
    victim_exec_fails(a ? parse_size("STEP", a) : 256 * KiB, b ? parse_ms("MS", b) : 20);
    return 0;
}

static int case_stall_at_limit(int argc, char **argv, char **envp) {
    (void)envp;
    const char *a = argc > 2 ? argv[2] : 0, *b = argc > 3 ? argv[3] : 0, *c = argc > 4 ? argv[4] : 0;
    (void)a, (void)b, (void)c;
    victim_stall_at_limit("/proc/self/exe");
    return 0;
}

static int case_nobody_children(int argc, char **argv, char **envp) {
    (void)envp;
    const char *a = argc > 2 ? argv[2] : 0, *b = argc > 3 ? argv[3] : 0, *c = argc > 4 ? argv[4] : 0;
    (void)a, (void)b, (void)c;
    victim_nobody_children();
    return 0;
}

static int case_nested_child_oom(int argc, char **argv, char **envp) {
    (void)envp;
    const char *a = argc > 2 ? argv[2] : 0, *b = argc > 3 ? argv[3] : 0, *c = argc > 4 ? argv[4] : 0;
    (void)a, (void)b, (void)c;
    victim_nested_child_oom();
    return 0;
}

// Every fd above 2 is closed first with VICTIM_CLOSE_FDS=1 (closefrom(3)).
static const victim_case k_cases[] = {
    VICTIM_RUN("malloc-grow", case_malloc_grow, "[STEP=64K]  grow through malloc until OOM-killed"),
    VICTIM_RUN("mmap-grow", case_mmap_grow, "[STEP=1M]  grow through anonymous mmap until OOM-killed"),
    VICTIM_RUN("slow-leak", case_slow_leak, "[STEP=1M] [MS=20]  leak STEP every MS milliseconds"),
    VICTIM_RUN("spike", case_spike, "SIZE [HOLD_MS=300]  allocate SIZE once, hold, free, exit 0"),
    VICTIM_RUN("child-oom", case_child_oom, "[STEP=64K]  a forked child (\"oom-child\") grows until OOM-killed"),
    VICTIM_RUN("pressure", case_pressure, "SIZE FILE [MS=2000]  hold SIZE and read a sparse FILE-byte file through a mapping, over and over"),
    VICTIM_RUN("sleep-forever", case_sleep_forever, "sleep until killed"),
    VICTIM_RUN("fork-exit", case_fork_exit, "[N=20]  N children _exit, N exec /bin/true; none may leave a breadcrumb file"),
    VICTIM_RUN("main-exits-first", case_main_exits_first, "[SIZE=8M]  main calls pthread_exit; a worker uses SIZE and returns: the process must end"),
    VICTIM_RUN("leave-child", case_leave_child, "fork a child that sleeps until killed, exit 0"),
    VICTIM_RUN("nested-oom", case_nested_oom, "[STEP=64K]  move into a new cgroup below its own, then grow until OOM-killed"),
    VICTIM_RUN("exec-fails", case_exec_fails, "[STEP=256K] [MS=20]  leak to 50 %, fail an exec (ENOENT), leak on until OOM-killed"),
    VICTIM_RUN("stall-at-limit", case_stall_at_limit, "OOM killer off, a child stalls at the limit; was a breadcrumb written?"),
    VICTIM_RUN("nobody-children", case_nobody_children, "as root: children at a temporary euid 65534 must make and remove their breadcrumb files"),
    VICTIM_RUN("nested-child-oom", case_nested_child_oom, "a child (\"oom-child\") in a cgroup below its own grows until OOM-killed; the nested cgroup is then removed"),
};

int main(int argc, char **argv, char **envp) {
    setvbuf(stdout, 0, _IOLBF, 0);
    // As daemons do at start: every fd above 2 goes, the agent's included
    // unless it guards them.
    if (getenv("VICTIM_CLOSE_FDS")) closefrom(3);
    return VICTIM_MAIN("victim-oom", k_cases, argc, argv, envp);
}
