// bench-shim: what the malloc shim costs, side by side with glibc alone and
// the tools people use instead. Prints figures, never asserts.
//
//   bench-shim workload [--workload mix|uniform] [--ops N] [--live N] [--threads N]
//       a malloc-heavy workload itself (workload.h; run by `compare` in
//       each setup); with BENCH_SHIM_ALLOCATOR=model, over the idealised
//       quarantine of quarantine_model.h instead of malloc (one thread)
//   bench-shim compare --shim PATH [--workload mix|uniform] [--ops N] [--live N]
//                      [--threads N] [--repeat N] [--only ROW,…] [--quick] [--no-peers]
//                      [-- CMD ARGS…]
//       runs the workload (or CMD, a real program) under each setup as a
//       child process, the setups alternating from round to round (A B C,
//       C B A, …), and prints median CPU time, wall time and peak RSS
//       (wait4), with ratios against glibc's in the same run. `--only`
//       keeps some rows (glibc always): off, guard, quarantine-only,
//       scribble-64, quarantine, full-verify, patterns-256, fp, auto, libunwind, model.
//
// Targets printed against (issue 29): the shim with every check off within
// 1.1x glibc's CPU time, the sampled guard mode within 1.05x, quarantine +
// fill + scribble within 1.5x on the mix and 3x on the uniform workload,
// allocation stacks at most 0.3x above that; peak memory at most glibc's
// plus the quarantine budget plus 32 bytes per live block.
#include "bench_stats.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

// --- running setups --------------------------------------------------------------

/// One configuration to measure.
typedef struct setup {
    const char *name;
    const char *preload;      ///< LD_PRELOAD, or NULL
    const char *env[8];       ///< extra NAME=VALUE
    const char *wrapper[8];   ///< argv prefix (valgrind …), NULL-terminated
    int peer;                 ///< 1 for other tools (skipped by --no-peers)
    const char *note;         ///< printed in the notes column, or NULL
} setup;

/// Rows of the comparison, by name: the tables below pick them by these,
/// not by position (inserting the `auto` row once shifted every later
/// index, and the synthetic table showed heaptrack where the model and
/// the libunwind row belonged).
enum setup_row {
    GLIBC, CHECKS_OFF, GUARD_SAMPLE, QUARANTINE_ONLY, SCRIBBLE_64, QUARANTINE, FULL_VERIFY, PATTERNS_256, STACKS_FP, STACKS_AUTO, STACKS_LIBUNWIND,
    VALGRIND, EFENCE, DUMA, HEAPTRACK, MODEL, SETUP_COUNT
};

/// Each row's name for `--only`.
static const char *const k_row_ids[SETUP_COUNT] = {
    [GLIBC] = "glibc", [CHECKS_OFF] = "off", [GUARD_SAMPLE] = "guard", [QUARANTINE_ONLY] = "quarantine-only",
    [SCRIBBLE_64] = "scribble-64", [QUARANTINE] = "quarantine", [FULL_VERIFY] = "full-verify", [PATTERNS_256] = "patterns-256", [STACKS_FP] = "fp", [STACKS_AUTO] = "auto",
    [STACKS_LIBUNWIND] = "libunwind", [VALGRIND] = "valgrind", [EFENCE] = "efence", [DUMA] = "duma",
    [HEAPTRACK] = "heaptrack", [MODEL] = "model",
};

/// `--only`: a comma list of row names, or NULL for every row.
static const char *g_only;

// 1 when `--only` keeps `row` (glibc, the baseline, always stays).
static int row_wanted(int row) {
    if (!g_only || row == GLIBC) return 1;
    size_t len = strlen(k_row_ids[row]);
    for (const char *p = g_only; *p;) {
        size_t n = strcspn(p, ",");
        if (n == len && !strncmp(p, k_row_ids[row], n)) return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

/// The shim's rows (the ones targets apply to).
static int is_shim_row(int row) { return row >= CHECKS_OFF && row <= STACKS_LIBUNWIND; }

typedef struct result {
    uint64_t output_hash;  ///< FNV-1a of everything the program printed
    double seconds;  ///< median wall time
    double cpu;      ///< median CPU time (user + system), less disturbed by other load
    double max_rss_mb;
    int ok;
    char note[160];
} result;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/// A real program to measure instead of the workload (after `--`).
static char **g_command;

// Runs the workload once under `s`; returns wall seconds (or -1), and the
// child's CPU time and peak RSS from wait4.
/// Wall-clock limit of one run, in seconds.
#define RUN_TIMEOUT_S 120

static double run_once(const setup *s, const char *self, const workload_opts *o, double *rss_mb, double *cpu, uint64_t *hash, char *note, size_t note_cap) {
    char ops[32], live[32], threads[32];
    snprintf(ops, sizeof ops, "%ld", o->ops);
    snprintf(live, sizeof live, "%ld", o->live);
    snprintf(threads, sizeof threads, "%d", o->threads);
    const char *argv[32];
    int n = 0;
    for (int i = 0; s->wrapper[i]; i++) argv[n++] = s->wrapper[i];
    const char *tail[] = {self, "workload", "--workload", workload_name(o->kind), "--ops", ops, "--live", live, "--threads", threads, NULL};
    if (g_command) for (int i = 0; g_command[i] && n < 31; i++) argv[n++] = g_command[i];
    else for (int i = 0; tail[i]; i++) argv[n++] = tail[i];
    argv[n] = NULL;
    int out[2];
    if (pipe(out) != 0) return -1;
    uint64_t t0 = bench_now_ns(CLOCK_MONOTONIC);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], 1);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, 2);
        close(out[0]);
        unsetenv("LD_PRELOAD");
        for (int i = 0; s->env[i]; i++) putenv((char *)s->env[i]);
        if (s->preload) setenv("LD_PRELOAD", s->preload, 1);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(out[1]);
    // Keep the first bytes (the workload's checksum line), drain the rest.
    char buf[512] = {0}, sink[4096];
    size_t got = 0;
    ssize_t r;
    uint64_t h = 0xcbf29ce484222325ull;
    int timed_out = 0;
    for (;;) {
        // Peers that would run for ever (DUMA on a long run) are stopped.
        struct pollfd pfd = {out[0], POLLIN, 0};
        double left = RUN_TIMEOUT_S - (double)(bench_now_ns(CLOCK_MONOTONIC) - t0) / 1e9;
        if (left <= 0 || poll(&pfd, 1, (int)(left * 1000) + 1) == 0) {
            kill(pid, SIGKILL);
            timed_out = 1;
            break;
        }
        char *at = got < sizeof buf - 1 ? buf + got : sink;
        r = read(out[0], at, got < sizeof buf - 1 ? sizeof buf - 1 - got : sizeof sink);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        for (ssize_t i = 0; i < r; i++) h = (h ^ (unsigned char)at[i]) * 0x100000001b3ull;
        if (at != sink) got += (size_t)r;
    }
    *hash = h;
    close(out[0]);
    int status = 0;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) return -1;
    double secs = (double)(bench_now_ns(CLOCK_MONOTONIC) - t0) / 1e9;
    *rss_mb = (double)ru.ru_maxrss / 1024.0;
    *cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    if (timed_out) {
        snprintf(note, note_cap, "stopped after %d s", RUN_TIMEOUT_S);
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(note, note_cap, "failed (%s %d)", WIFEXITED(status) ? "exit" : "signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        return -1;
    }
    char *c = strstr(buf, "checksum ");
    if (c) snprintf(note, note_cap, "%.*s", (int)strcspn(c, "\n"), c);
    return secs;
}

/// Most measured runs of one setup.
#define MAX_REPEAT 32

/// The samples of one setup as they come in.
typedef struct samples {
    double wall[MAX_REPEAT], cpu[MAX_REPEAT], max_rss;
    int n, failed;
    result r;
} samples;

static void add_run(samples *s, const setup *st, const char *self, const workload_opts *o) {
    if (s->failed || s->n >= MAX_REPEAT) return;
    double rss = 0, cpu = 0;
    double t = run_once(st, self, o, &rss, &cpu, &s->r.output_hash, s->r.note, sizeof s->r.note);
    if (t < 0) { s->failed = 1; return; }
    s->wall[s->n] = t;
    s->cpu[s->n++] = cpu;
    if (rss > s->max_rss) s->max_rss = rss;
}

static result finish(samples *s) {
    result res = s->r;
    res.ok = !s->failed && s->n > 0;
    if (!res.ok) return res;
    qsort(s->wall, (size_t)s->n, sizeof *s->wall, cmp_double);
    qsort(s->cpu, (size_t)s->n, sizeof *s->cpu, cmp_double);
    res.seconds = s->wall[s->n / 2];
    res.cpu = s->cpu[s->n / 2];
    res.max_rss_mb = s->max_rss;
    return res;
}

static int exists(const char *path) { return access(path, R_OK) == 0; }

// Peak RSS of /bin/true with `preload` minus without: what loading costs.
static double true_rss_mb(const char *preload) {
    pid_t pid = fork();
    if (pid == 0) {
        if (preload) setenv("LD_PRELOAD", preload, 1);
        else unsetenv("LD_PRELOAD");
        execl("/bin/true", "true", (char *)NULL);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
    return (double)ru.ru_maxrss / 1024.0;
}

static double library_rss_mb(const char *lib) {
    double with = true_rss_mb(lib), without = true_rss_mb(NULL);
    return with < 0 || without < 0 ? -1 : with - without;
}

static int on_path(const char *name) {
    const char *path = getenv("PATH");
    if (!path) return 0;
    char buf[4096];
    for (const char *p = path; *p;) {
        size_t len = strcspn(p, ":");
        snprintf(buf, sizeof buf, "%.*s/%s", (int)len, p, name);
        if (access(buf, X_OK) == 0) return 1;
        p += len + (p[len] == ':');
    }
    return 0;
}

/// Shared by the tables of one comparison.
typedef struct bench_ctx {
    char self[4096];
    const char *shim;
    double fixed_mb;   ///< RSS of loading the shim alone
    size_t qbytes;     ///< quarantine budget in force
    size_t guard_pool; ///< the sample mode's data pages: FAULTLINE_GUARD_SLOTS x 4 pages
} bench_ctx;

// Why `s` cannot run here, or NULL.
static const char *unavailable(const bench_ctx *c, const setup *s) {
    if (s->wrapper[0] && !on_path(s->wrapper[0])) return "not installed (apt-get install -y valgrind heaptrack)";
    if (s->preload && s->preload != c->shim && !exists(s->preload)) return "not installed (apt-get install -y electric-fence duma)";
    return NULL;
}

// The CPU target of a shim row (issue 29), given the quarantine row's
// ratio for the stacks rows (0 when not measured: no target printed).
static double cpu_target(int row, workload_kind kind, double quarantine_ratio) {
    switch (row) {
    case CHECKS_OFF: return 1.1;
    case GUARD_SAMPLE: return 1.05;
    case QUARANTINE: return kind == WORKLOAD_UNIFORM && !g_command ? 3.0 : 1.5;
    case STACKS_FP: case STACKS_AUTO: case STACKS_LIBUNWIND: return quarantine_ratio > 0 ? quarantine_ratio + 0.3 : 0;
    default: return 0;
    }
}

static void print_targets(const bench_ctx *c, int row, const workload_opts *o, const result *r, const result *base, double quarantine_ratio) {
    double target = cpu_target(row, o->kind, quarantine_ratio), ratio = r->cpu / base->cpu;
    if (target <= 0) return;
    const char *how = row >= STACKS_FP ? " (the quarantine row + 0.3)" : "";
    if (g_command) {
        printf("%-40s cpu target <= %.2fx%s: %s\n", "", target, how, ratio <= target ? "met" : "MISSED");
        return;
    }
    // Peak live blocks: every slot of every thread holds one; the issue
    // allows 32 bytes each (red zones counted), plus the quarantine
    // budget for the rows that hold one. Sample mode's quarantine is its
    // guard pool: a freed sampled block keeps its slot's data pages
    // (PROT_NONE, so a use after free faults) until the slot turns.
    double live_blocks = (double)o->live * o->threads;
    int holds = row >= QUARANTINE_ONLY;
    double q = holds ? (double)c->qbytes / 1048576.0 : row == GUARD_SAMPLE ? (double)c->guard_pool / 1048576.0 : 0;
    double bound = base->max_rss_mb + c->fixed_mb + q + live_blocks * 32.0 / 1048576.0;
    printf("%-40s cpu target <= %.2fx%s: %s; memory bound %.1f MB (glibc + %.1f loading + %.0f %s + 32 B x %.0f live): %s\n", "",
           target, how, ratio <= target ? "met" : "MISSED", bound, c->fixed_mb, q, row == GUARD_SAMPLE ? "guard pool" : "quarantine", live_blocks,
           r->max_rss_mb <= bound ? "met" : "MISSED");
}

// One table: glibc first (the baseline), then each setup in `which` order.
// Faultline's setups run `repeat` rounds, alternating (forward, then
// backward) so that drift of the machine falls on every row alike; peers,
// 10-1000x slower, run once each afterwards. With `net`, each setup's
// start-up (the same run with one operation) is subtracted before the
// ratio, so a slow-starting tool (valgrind) on a short run is judged by its
// cost per operation.
static void table(const bench_ctx *c, const setup *setups, const int *which, int n, const workload_opts *o, int repeat, int targets, int net) {
    static samples got[SETUP_COUNT];
    memset(got, 0, sizeof got);
    const char *why[SETUP_COUNT] = {0};
    for (int k = 0; k < n; k++) why[which[k]] = unavailable(c, &setups[which[k]]);
    fprintf(stderr, "bench-shim: measuring %d setups, %d alternating round(s)...\n", n, repeat);
    for (int round = 0; round < repeat && round < MAX_REPEAT; round++)
        for (int j = 0; j < n; j++) {
            int row = which[round % 2 == 0 ? j : n - 1 - j];
            if (!why[row] && !setups[row].peer) add_run(&got[row], &setups[row], c->self, o);
        }
    for (int k = 0; k < n; k++)
        if (!why[which[k]] && setups[which[k]].peer) add_run(&got[which[k]], &setups[which[k]], c->self, o);

    printf("%-40s %8s %8s %7s %9s %7s  %s\n", "setup", "wall s", "cpu s", net ? "net x" : "x glibc", "peak MB", "x glibc", "notes");
    result base = {0};
    double base_net = 0, quarantine_ratio = 0;
    for (int k = 0; k < n; k++) {
        int row = which[k];
        const setup *s = &setups[row];
        if (why[row]) { printf("%-40s %8s %8s %7s %9s %7s  SKIP: %s\n", s->name, "-", "-", "-", "-", "-", why[row]); continue; }
        result r = finish(&got[row]);
        if (!r.ok) { printf("%-40s %8s %8s %7s %9s %7s  %s\n", s->name, "-", "-", "-", "-", "-", r.note); continue; }
        double ratio_cpu = r.cpu;
        if (net) {
            workload_opts one = *o;
            one.ops = 1;
            samples start = {0};
            add_run(&start, s, c->self, &one);
            result st = finish(&start);
            if (st.ok) ratio_cpu = r.cpu - st.cpu > 0.001 ? r.cpu - st.cpu : 0.001;
        }
        if (k == 0) { base = r; base_net = ratio_cpu; }
        if (g_command) snprintf(r.note, sizeof r.note, "output %s", r.output_hash == base.output_hash ? "same as glibc's" : "DIFFERS from glibc's");
        size_t used = strlen(r.note);
        if (s->note) snprintf(r.note + used, sizeof r.note - used, "%s%s", used ? "; " : "", s->note);
        printf("%-40s %8.3f %8.3f %7.2f %9.1f %7.2f  %s\n", s->name, r.seconds, r.cpu, net ? ratio_cpu / base_net : r.cpu / base.cpu,
               r.max_rss_mb, r.max_rss_mb / base.max_rss_mb, r.note);
        if (row == QUARANTINE) quarantine_ratio = r.cpu / base.cpu;
        if (targets && is_shim_row(row) && k > 0) print_targets(c, row, o, &r, &base, quarantine_ratio);
        fflush(stdout);
    }
}

static int compare(const char *shim, const workload_opts *o, const workload_opts *peer_o, int repeat, int peers) {
    static bench_ctx c;
    ssize_t n = readlink("/proc/self/exe", c.self, sizeof c.self - 1);
    if (n <= 0) { fprintf(stderr, "bench-shim: cannot find my own executable\n"); return 2; }
    c.self[n] = 0;
    if (!exists(shim)) { fprintf(stderr, "bench-shim: --shim %s: no such file; build it with `swift build --product FaultlineMallocShim`\n", shim); return 2; }
    c.shim = shim;
    c.qbytes = bench_env_size("FAULTLINE_QUARANTINE_BYTES", 16u << 20);
    c.guard_pool = bench_env_size("FAULTLINE_GUARD_SLOTS", 256) * 4 * (size_t)sysconf(_SC_PAGESIZE);
    static char heaptrack_out[64];
    snprintf(heaptrack_out, sizeof heaptrack_out, "/tmp/bench-shim-heaptrack-%d", (int)getpid());
    // Leak tracking is on by default in the shim: these modes measure without it
    // (bench-leaks and `faultline bench` measure it).
#define SHIM_BASE "FAULTLINE_DETECTORS=use_after_free", "FAULTLINE_LEAK_TRACKING=0"
#define NO_STACKS "FAULTLINE_MALLOC_STACKS=0"
    const setup setups[SETUP_COUNT] = {
        [GLIBC] = {"glibc", NULL, {NULL}, {NULL}, 0},
        // The allocator under the checks, alone: small blocks have no header
        // or red zone then (heap/shim_bare.h); bigger ones keep theirs.
        [CHECKS_OFF] = {"shim: every check off", shim, {SHIM_BASE, NO_STACKS, "FAULTLINE_QUARANTINE_BYTES=0", "FAULTLINE_FILL_LIMIT=0", "FAULTLINE_SCRIBBLE_LIMIT=0", NULL}, {NULL}, 0,
         "no quarantine, fill, scribble, stacks or tracking; small blocks headerless"},
        // GWP-ASan's design: one block in 1000 guarded, the rest unchecked
        // (small ones headerless, as in the row above, when leak tracking is off).
        [GUARD_SAMPLE] = {"shim: guard pages, sample:1000", shim, {SHIM_BASE, "FAULTLINE_MALLOC_STACKS=1", "FAULTLINE_GUARD=sample:1000", NULL}, {NULL}, 0,
         "the rest unchecked"},
        [QUARANTINE_ONLY] = {"shim: + quarantine (no patterns)", shim, {SHIM_BASE, NO_STACKS, "FAULTLINE_FILL_LIMIT=0", "FAULTLINE_SCRIBBLE_LIMIT=0", NULL}, {NULL}, 0},
        [SCRIBBLE_64] = {"shim: + scribble to 64 B (no fill)", shim, {SHIM_BASE, NO_STACKS, "FAULTLINE_FILL_LIMIT=0", "FAULTLINE_SCRIBBLE_LIMIT=64", NULL}, {NULL}, 0},
        [QUARANTINE] = {"shim: quarantine + fill + scribble", shim, {SHIM_BASE, NO_STACKS, NULL}, {NULL}, 0, "default limits (scribble 4096 B, 2 chunks sampled; fill 256 B; big blocks 2 MB)"},
        // The defaults before issue 29's round 5: every scribbled byte
        // verified at release, big blocks held as long as small ones.
        [FULL_VERIFY] = {"shim: the same, every byte verified, one FIFO", shim, {SHIM_BASE, NO_STACKS, "FAULTLINE_SCRIBBLE_SAMPLE=0", "FAULTLINE_QUARANTINE_BIG_BYTES=0", NULL}, {NULL}, 0,
         "FAULTLINE_SCRIBBLE_SAMPLE=0 FAULTLINE_QUARANTINE_BIG_BYTES=0"},
        // The faster setting: a write after free past 256 B goes unseen.
        [PATTERNS_256] = {"shim: fill + scribble to 256 B", shim, {SHIM_BASE, NO_STACKS, "FAULTLINE_FILL_LIMIT=256", "FAULTLINE_SCRIBBLE_LIMIT=256", NULL}, {NULL}, 0,
         "FAULTLINE_SCRIBBLE_LIMIT=256"},
        [STACKS_FP] = {"shim: + stacks (frame pointers)", shim, {SHIM_BASE, "FAULTLINE_MALLOC_STACKS=1", "FAULTLINE_MALLOC_UNWINDER=fp", NULL}, {NULL}, 0},
        [STACKS_AUTO] = {"shim: + stacks (auto, the default)", shim, {SHIM_BASE, "FAULTLINE_MALLOC_STACKS=1", "FAULTLINE_MALLOC_UNWINDER=auto", NULL}, {NULL}, 0,
         "fp, libunwind past frame 0"},
        [STACKS_LIBUNWIND] = {"shim: + stacks (libunwind)", shim, {SHIM_BASE, "FAULTLINE_MALLOC_STACKS=1", "FAULTLINE_MALLOC_UNWINDER=libunwind", NULL}, {NULL}, 0},
        [VALGRIND] = {"valgrind memcheck", NULL, {NULL}, {"valgrind", "--tool=memcheck", "-q", NULL}, 1},
        [EFENCE] = {"Electric Fence", "/usr/lib/libefence.so.0", {"EF_ALLOW_MALLOC_0=1", NULL}, {NULL}, 1},
        // Freed-page protection capped like the shim's quarantine: unlimited,
        // DUMA runs out of mappings (vm.max_map_count) on this workload.
        [DUMA] = {"DUMA (16 MB of freed pages kept)", "/usr/lib/libduma.so.0", {"DUMA_ALLOW_MALLOC_0=1", "DUMA_DISABLE_BANNER=1", "DUMA_PROTECT_FREE=16384", NULL}, {NULL}, 1},
        [HEAPTRACK] = {"heaptrack", NULL, {NULL}, {"heaptrack", "-o", heaptrack_out, NULL}, 1},
        // How far the shim is from the cheapest form of the same idea.
        [MODEL] = {"model: idealised quarantine", NULL, {"BENCH_SHIM_ALLOCATOR=model", NULL}, {NULL}, 0,
         "no stacks, states or locks; freed memory never given back (quarantine_model.h)"},
    };
#undef SHIM_BASE
#undef NO_STACKS
    if (g_command) {
        printf("bench-shim: `");
        for (int i = 0; g_command[i]; i++) printf("%s%s", i ? " " : "", g_command[i]);
        printf("`, median of %d alternating run(s)\n", repeat);
    } else {
        printf("bench-shim: workload %s, %ld ops x %d thread(s), %ld live slots per thread, median of %d alternating run(s)\n",
               workload_name(o->kind), o->ops, o->threads, o->live, repeat);
    }
    printf("shim: %s\n", shim);
    c.fixed_mb = library_rss_mb(shim);
    if (c.fixed_mb >= 0)
        printf("loading the shim costs %.1f MB of RSS before any allocation (LD_PRELOAD of /bin/true); counted in the memory bound\n\n", c.fixed_mb);
    else c.fixed_mb = 0;
    // The model runs the synthetic workloads only, on one thread.
    const int rows[] = {GLIBC, CHECKS_OFF, GUARD_SAMPLE, QUARANTINE_ONLY, SCRIBBLE_64, QUARANTINE, FULL_VERIFY, PATTERNS_256, STACKS_FP, STACKS_AUTO, STACKS_LIBUNWIND, MODEL};
    int mine[SETUP_COUNT], count = 0;
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        if (row_wanted(rows[i]) && !(rows[i] == MODEL && (g_command || o->threads != 1))) mine[count++] = rows[i];
    table(&c, setups, mine, count, o, repeat, 1, 0);
    if (!peers) return 0;
    // Peers at a size they finish in: Electric Fence and DUMA make system
    // calls for every block, valgrind runs 20-50x slower.
    const int all[] = {GLIBC, QUARANTINE, STACKS_FP, VALGRIND, EFENCE, DUMA, HEAPTRACK};
    if (g_command) {
        printf("\npeers, same command, one run each:\n");
        table(&c, setups, all, 7, o, 1, 0, 0);
    } else {
        printf("\npeers: %ld ops x %d thread(s), %ld live slots per thread, one run each; net x = CPU time beyond start-up, against glibc's:\n",
               peer_o->ops, peer_o->threads, peer_o->live);
        table(&c, setups, all, 7, peer_o, 1, 0, 1);
    }
    unlink(heaptrack_out);
    char zst[96];
    snprintf(zst, sizeof zst, "%s.zst", heaptrack_out);
    unlink(zst);
    snprintf(zst, sizeof zst, "%s.gz", heaptrack_out);
    unlink(zst);
    return 0;
}

static long parse_long(const char *flag, const char *v, long lo, long hi) {
    char *end;
    errno = 0;
    long n = v ? strtol(v, &end, 10) : 0;
    if (!v || *end || errno || n < lo || n > hi) {
        fprintf(stderr, "bench-shim: %s needs a number in %ld...%ld, found '%s'\n", flag, lo, hi, v ? v : "nothing");
        exit(2);
    }
    return n;
}

int main(int argc, char **argv) {
    workload_opts o = {WORKLOAD_MIX, 0, 0, 1};
    const char *shim = NULL;
    int repeat = 5, peers = 1, quick = 0;
    if (argc < 2) goto usage;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--ops")) { o.ops = parse_long(a, v, 1, 1L << 40); i++; }
        else if (!strcmp(a, "--live")) { o.live = parse_long(a, v, 1, 1L << 28); i++; }
        else if (!strcmp(a, "--threads")) { o.threads = (int)parse_long(a, v, 1, 64); i++; }
        else if (!strcmp(a, "--repeat")) { repeat = (int)parse_long(a, v, 1, 31); i++; }
        else if (!strcmp(a, "--workload")) {
            if (!v || workload_parse(v, &o.kind) != 0) {
                fprintf(stderr, "bench-shim: --workload needs 'mix' or 'uniform', found '%s'\n", v ? v : "nothing");
                return 2;
            }
            i++;
        }
        else if (!strcmp(a, "--shim")) { shim = v; i++; }
        else if (!strcmp(a, "--only")) {
            // Every name must be a row: a typo would silently measure glibc alone.
            for (const char *p = v ? v : ""; *p || !v;) {
                size_t n = strcspn(p, ",");
                int known = 0;
                for (int r = 0; r < SETUP_COUNT; r++) known |= strlen(k_row_ids[r]) == n && !strncmp(p, k_row_ids[r], n);
                if (!v || !known) {
                    fprintf(stderr, "bench-shim: --only: '%.*s' is no row; use a comma list of glibc, off, guard, quarantine-only, "
                                    "scribble-64, quarantine, full-verify, patterns-256, fp, auto, libunwind, model\n", (int)n, p);
                    return 2;
                }
                p += n + (p[n] == ',');
            }
            g_only = v;
            i++;
        }
        else if (!strcmp(a, "--quick")) quick = 1;
        else if (!strcmp(a, "--no-peers")) peers = 0;
        else if (!strcmp(a, "--") && i + 1 < argc) { g_command = argv + i + 1; break; }
        else { fprintf(stderr, "bench-shim: unknown option '%s'\n", a); goto usage; }
    }
    // The uniform workload's operations are cheaper: more of them.
    if (!o.ops) o.ops = o.kind == WORKLOAD_UNIFORM ? 4000000 : 2000000;
    if (!o.live) o.live = workload_default_live(o.kind);
    if (!strcmp(argv[1], "workload")) return workload_run(&o);
    if (!strcmp(argv[1], "compare")) {
        if (!shim) { fprintf(stderr, "bench-shim: compare needs --shim PATH (libFaultlineMallocShim.so)\n"); return 2; }
        workload_opts peer_o = {o.kind, quick ? 50000 : 200000, o.kind == WORKLOAD_UNIFORM ? o.live : 5000, o.threads};
        if (quick) { o.ops /= 4; repeat = 1; }
        return compare(shim, &o, &peer_o, repeat, peers);
    }
usage:
    fprintf(stderr, "usage: bench-shim workload [--workload mix|uniform] [--ops N] [--live N] [--threads N]\n"
                    "       bench-shim compare --shim PATH [--workload mix|uniform] [--ops N] [--live N] [--threads N] [--repeat N] [--only ROW,...] [--quick] [--no-peers] [-- CMD ARGS...]\n");
    return 2;
}
