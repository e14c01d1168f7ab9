// bench-leaks: what leak tracking costs, beside valgrind memcheck
// (--leak-check=full) and heaptrack on the same workloads. Prints figures;
// asserts nothing.
//
//   bench-leaks [--json] [--quick]      run every setup, print a table
//   bench-leaks --workload pairs N      N malloc(32)/free pairs: ns per pair
//   bench-leaks --workload live N       N live 32-byte blocks (a linked list
//                                       held by a global; every 10th block
//                                       dropped, so lost): RSS per block and,
//                                       under the shim, the time of
//                                       faultline_leak_check() over them
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long rss_bytes(void) {
    long pages = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    if (fscanf(f, "%ld %ld", &pages, &rss) != 2) rss = 0;
    fclose(f);
    return rss * sysconf(_SC_PAGESIZE);
}

// --- workloads (run as children) ---------------------------------------------

static void *volatile g_sink;

static int workload_pairs(long n) {
    for (long i = 0; i < n / 10; i++) { g_sink = malloc(32); free(g_sink); }  // warm up
    double t0 = now_s();
    for (long i = 0; i < n; i++) { g_sink = malloc(32); free(g_sink); }
    double t = now_s() - t0;
    printf("bench-leaks-result: ns_per_pair %.1f\n", t * 1e9 / (double)n);
    return 0;
}

typedef struct item { struct item *next; char pad[24]; } item;
static item *g_list;

static int workload_live(long n) {
    long before = rss_bytes();
    item *prev = 0;
    for (long i = 0; i < n; i++) {
        item *x = malloc(sizeof *x);
        x->next = 0;
        if (i % 10 == 9) continue;  // never linked: lost
        if (prev) prev->next = x; else g_list = x;
        prev = x;
    }
    long after = rss_bytes();
    printf("bench-leaks-result: rss_per_block %.1f\n", (double)(after - before) / (double)n);
    long (*check)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "faultline_leak_check");
    if (check) {
        double t0 = now_s();
        long lost = check();
        printf("bench-leaks-result: scan_ms %.1f\n", (now_s() - t0) * 1e3);
        printf("bench-leaks-result: lost_blocks %ld\n", lost);
    }
    return 0;
}

// --- driver ------------------------------------------------------------------

typedef struct result { double ns_per_pair, rss_per_block, scan_ms, pairs_wall, live_wall; long lost; int ran; } result;

// Runs argv with extra env (NAME=VALUE list), parses result lines; wall time.
static double run_child(char *const argv[], char *const env[], result *r, int quiet_stderr) {
    int fd[2];
    if (pipe(fd) != 0) return -1;
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; env[i]; i++) putenv(env[i]);
        dup2(fd[1], 1);
        if (quiet_stderr) { FILE *n = freopen("/dev/null", "w", stderr); (void)n; }
        close(fd[0]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        char *p = strstr(line, "bench-leaks-result: ");
        if (!p) continue;
        char key[64];
        double v;
        if (sscanf(p + 20, "%63s %lf", key, &v) != 2) continue;
        if (!strcmp(key, "ns_per_pair")) r->ns_per_pair = v;
        else if (!strcmp(key, "rss_per_block")) r->rss_per_block = v;
        else if (!strcmp(key, "scan_ms")) r->scan_ms = v;
        else if (!strcmp(key, "lost_blocks")) r->lost = (long)v;
    }
    if (f) fclose(f);
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 127) return -1;
    r->ran = 1;
    return now_s() - t0;
}

static int on_path(const char *name) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
    return system(cmd) == 0;
}

int main(int argc, char **argv) {
    if (argc >= 4 && !strcmp(argv[1], "--workload")) {
        long n = atol(argv[3]);
        return !strcmp(argv[2], "pairs") ? workload_pairs(n) : workload_live(n);
    }
    int json = 0, quick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = 1;
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else { fprintf(stderr, "usage: bench-leaks [--json] [--quick]\n"); return 2; }
    }
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 64);
    if (len <= 0) return 1;
    self[len] = 0;
    char shim[4160];
    snprintf(shim, sizeof shim, "%.*s/libFaultlineMallocShim.so", (int)(strrchr(self, '/') - self), self);
    static char preload[4200];
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", shim);
    const char *pairs_n = quick ? "200000" : "2000000", *live_n = quick ? "100000" : "1000000";
    char ht_out[64];
    snprintf(ht_out, sizeof ht_out, "/tmp/bench-leaks-heaptrack-%d", (int)getpid());

    struct setup { const char *id, *label; char *pre[8]; char *env[8]; int available; } setups[] = {
        {"glibc", "glibc alone", {0}, {0}, 1},
        {"shim_no_tracking", "shim, leak tracking off", {0}, {preload, "FAULTLINE_DETECTORS=use_after_free", "FAULTLINE_LEAK_TRACKING=0", 0}, access(shim, R_OK) == 0},
        {"shim_leaks", "shim + leak tracking", {0}, {preload, "FAULTLINE_DETECTORS=leaks", "FAULTLINE_LEAK_CHECK_AT_EXIT=0", 0}, access(shim, R_OK) == 0},
        {"valgrind", "valgrind --leak-check=full", {"valgrind", "-q", "--leak-check=full", "--show-leak-kinds=definite", 0}, {0}, on_path("valgrind")},
        {"heaptrack", "heaptrack", {"heaptrack", "-o", ht_out, 0}, {0}, on_path("heaptrack")},
    };
    int nsetups = (int)(sizeof setups / sizeof setups[0]);
    result res[8];
    memset(res, 0, sizeof res);
    for (int s = 0; s < nsetups; s++) {
        if (!setups[s].available) continue;
        for (int w = 0; w < 2; w++) {
            char *argvv[16];
            int k = 0;
            for (int i = 0; setups[s].pre[i]; i++) argvv[k++] = setups[s].pre[i];
            argvv[k++] = self;
            argvv[k++] = "--workload";
            argvv[k++] = w == 0 ? "pairs" : "live";
            argvv[k++] = (char *)(w == 0 ? pairs_n : live_n);
            argvv[k] = 0;
            fprintf(stderr, "bench-leaks: %s: %s workload\n", setups[s].id, w == 0 ? "pairs" : "live");
            double wall = run_child(argvv, setups[s].env, &res[s], 1);
            if (w == 0) res[s].pairs_wall = wall; else res[s].live_wall = wall;
        }
    }
    char cleanup[128];
    snprintf(cleanup, sizeof cleanup, "rm -f %s*", ht_out);
    if (system(cleanup) != 0) {}
    double base_rss = res[0].rss_per_block;
    if (json) {
        for (int s = 0; s < nsetups; s++) {
            if (!res[s].ran) {
                printf("{\"metric\":\"leaks.ns_per_pair\",\"config\":\"%s\",\"unit\":\"ns\",\"note\":\"not available: %s not installed\"}\n", setups[s].id, setups[s].id);
                continue;
            }
            printf("{\"metric\":\"leaks.ns_per_pair\",\"config\":\"%s\",\"unit\":\"ns\",\"value\":%.1f,\"note\":\"malloc(32)+free, %s pairs\"}\n", setups[s].id, res[s].ns_per_pair, pairs_n);
            printf("{\"metric\":\"leaks.metadata_bytes_per_block\",\"config\":\"%s\",\"unit\":\"bytes\",\"value\":%.1f,\"note\":\"RSS per live 32-byte block minus glibc's\"}\n", setups[s].id, res[s].rss_per_block - base_rss);
            printf("{\"metric\":\"leaks.live_workload_wall\",\"config\":\"%s\",\"unit\":\"s\",\"value\":%.3f,\"note\":\"%s live blocks, including the tool's leak analysis\"}\n", setups[s].id, res[s].live_wall, live_n);
            if (res[s].scan_ms > 0) printf("{\"metric\":\"leaks.scan_ms\",\"config\":\"%s\",\"unit\":\"ms\",\"value\":%.1f,\"note\":\"faultline_leak_check over %s live blocks\"}\n", setups[s].id, res[s].scan_ms, live_n);
        }
        return 0;
    }
    printf("bench-leaks: malloc(32)/free pairs: %s; live workload: %s blocks of 32 bytes in a list held by a global, every 10th lost\n\n", pairs_n, live_n);
    printf("%-28s %12s %14s %16s %14s %14s\n", "setup", "ns/pair", "RSS B/block", "metadata B/blk", "scan ms", "live run s");
    for (int s = 0; s < nsetups; s++) {
        if (!res[s].ran) { printf("%-28s not available (%s not installed or failed)\n", setups[s].label, setups[s].id); continue; }
        char scan[32] = "-";
        if (res[s].scan_ms > 0) snprintf(scan, sizeof scan, "%.1f", res[s].scan_ms);
        printf("%-28s %12.1f %14.1f %16.1f %14s %14.3f\n", setups[s].label, res[s].ns_per_pair, res[s].rss_per_block,
               res[s].rss_per_block - base_rss, scan, res[s].live_wall);
    }
    printf("\nscan ms: faultline_leak_check() from inside the program (stop, scan, report). valgrind and heaptrack\n"
           "do their leak analysis at exit: compare the live run's wall time (allocation + exit analysis).\n"
           "heaptrack records allocations only (no reachability); its RSS per block excludes the trace file.\n");
    if (res[2].ran) printf("shim lost blocks found by the scan: %ld (expected %s / 10)\n", res[2].lost, live_n);
    return 0;
}
