// bench-cxx: what the C++ exception detector costs a program that throws
// and catches exceptions in normal operation.
//
// Each configuration runs in a child process of this program: without the
// agent, with the agent preloaded but the detector off (the interposed
// __cxa_throw only forwards), and with the detector on (every throw records
// its stack). Inside each child, batches of two kinds alternate:
//   A  `throw std::runtime_error(...)` as the compiler emits it — through
//      the PLT, so through the agent's __cxa_throw when it is preloaded;
//   B  the same exception thrown by calling libstdc++'s own __cxa_throw
//      directly (looked up in libstdc++.so.6), which no hook sees.
// Both are caught by the same catch clause. The median of A minus B over
// paired batches is the extra cost per throw-and-catch, measured in one
// process so that other processes on a busy machine disturb both alike
// (the no-agent child is the control: its A-B shows the method's own bias).
// Target: under 1 µs median extra per throw.
//
//   bench-cxx [--rounds N] [--agent PATH]
//   bench-cxx --json --single CONFIG [--depth D] [--agent PATH]
//
// --single runs one child of configuration CONFIG (none, agent_off,
// detector_32, detector_8) and prints JSON lines (docs/benchmarks.md, "The
// contract"): the median ns per throw-and-catch through the PLT (A) and the
// median extra over the direct throw (A-B). `faultline bench` alternates the
// configurations by calling this once per configuration and round.
//
// The agent defaults to libFaultlineAgentPreload.so next to this program.
#include <algorithm>
#include <new>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include <cxxabi.h>
#include <dlfcn.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

namespace {

constexpr int kPairs = 200;         // A/B batch pairs per child
constexpr int kPerBatch = 100;      // throws per timed batch
constexpr double kTargetNs = 1000;  // the target for the extra cost

volatile int g_always = 1;

typedef void (*cxa_throw_fn)(void *, std::type_info *, void (*)(void *));
cxa_throw_fn g_runtime_throw;  // libstdc++'s own, bypassing any interposer

uint64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void destroy_runtime_error(void *p) { static_cast<std::runtime_error *>(p)->~runtime_error(); }

// A: an ordinary throw expression.
__attribute__((noinline)) int leaf_hooked() {
    if (g_always) throw std::runtime_error("bench");
    return 0;
}

// B: what the compiler emits for the throw above — allocate, construct
// (freeing the exception if the constructor throws), throw — but calling
// the runtime's __cxa_throw directly instead of through the PLT. The same
// shape matters: the unwinder runs the personality routine of every frame
// with a landing pad, so both leaves have exactly one.
__attribute__((noinline)) int leaf_direct() {
    if (g_always) {
        void *e = __cxxabiv1::__cxa_allocate_exception(sizeof(std::runtime_error));
        try {
            new (e) std::runtime_error("bench");
        } catch (...) {
            __cxxabiv1::__cxa_free_exception(e);
            throw;
        }
        g_runtime_throw(e, const_cast<std::type_info *>(&typeid(std::runtime_error)), destroy_runtime_error);
    }
    return 0;
}

// The same frames below the catch for both kinds.
__attribute__((noinline)) int descend(int depth, int (*leaf)()) {
    if (depth > 0) {
        int r = descend(depth - 1, leaf);
        __asm__ volatile("" : "+r"(r));  // keeps the frames: no tail call
        return r + 1;
    }
    return leaf();
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double batch_ns(int (*leaf)(), int depth, long *caught) {
    uint64_t t0 = now_ns();
    for (int i = 0; i < kPerBatch; i++) {
        try { descend(depth, leaf); } catch (const std::runtime_error &) { ++*caught; }
    }
    return (double)(now_ns() - t0) / kPerBatch;
}

// Child: prints "median_A median_B median(A-B)" in ns per throw-and-catch.
int run_child(int depth) {
    void *lib = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_NOLOAD);
    g_runtime_throw = lib ? (cxa_throw_fn)dlsym(lib, "__cxa_throw") : nullptr;
    if (!g_runtime_throw) { fprintf(stderr, "bench-cxx: libstdc++'s __cxa_throw not found\n"); return 1; }
    long caught = 0;
    for (int i = 0; i < 20; i++) {  // warm-up: caches, trace cache, pages
        batch_ns(leaf_hooked, depth, &caught);
        batch_ns(leaf_direct, depth, &caught);
    }
    std::vector<double> a, b, diff;
    for (int p = 0; p < kPairs; p++) {
        // Alternate which kind goes first so drift favours neither.
        double x, y;
        if (p & 1) { y = batch_ns(leaf_direct, depth, &caught); x = batch_ns(leaf_hooked, depth, &caught); }
        else { x = batch_ns(leaf_hooked, depth, &caught); y = batch_ns(leaf_direct, depth, &caught); }
        a.push_back(x);
        b.push_back(y);
        diff.push_back(x - y);
    }
    long expected = (long)(20 + kPairs) * 2 * kPerBatch;
    if (caught != expected) { fprintf(stderr, "bench-cxx: caught %ld of %ld\n", caught, expected); return 1; }
    printf("%.1f %.1f %.1f\n", median(a), median(b), median(diff));
    return 0;
}

struct config {
    const char *id;  // for --single and JSON
    const char *name;
    bool preload;
    const char *detectors;  // FAULTLINE_DETECTORS
    const char *frames;     // FAULTLINE_CXX_THROW_FRAMES, or null for the default
};

const config kConfigs[] = {
    {"none", "no agent (control)", false, nullptr, nullptr},
    {"agent_off", "agent, detector off", true, "crash", nullptr},
    {"detector_32", "detector on, 32 frames", true, "crash,cxx_exception", nullptr},
    {"detector_8", "detector on, 8 frames", true, "crash,cxx_exception", "8"},
};
constexpr int kNConfigs = sizeof kConfigs / sizeof kConfigs[0];
constexpr int kDefaultConfig = 2;

struct sample {
    double hooked, direct, extra;
};

// Runs one child; false when it failed.
bool spawn_child(const char *self, const config &c, int depth, const std::string &agent, const std::string &dir,
                 sample *out) {
    std::vector<std::string> env;
    for (char **e = environ; *e; e++) {
        if (!strncmp(*e, "LD_PRELOAD=", 11) || !strncmp(*e, "FAULTLINE_", 10)) continue;
        env.push_back(*e);
    }
    if (c.preload) {
        env.push_back("LD_PRELOAD=" + agent);
        env.push_back("FAULTLINE_REPORT_DIR=" + dir);
        env.push_back(std::string("FAULTLINE_DETECTORS=") + c.detectors);
        if (c.frames) env.push_back(std::string("FAULTLINE_CXX_THROW_FRAMES=") + c.frames);
    }
    std::vector<char *> envp;
    for (auto &s : env) envp.push_back(const_cast<char *>(s.c_str()));
    envp.push_back(nullptr);
    std::string d = std::to_string(depth);
    char *argv[] = {const_cast<char *>(self), const_cast<char *>("--child"), const_cast<char *>(d.c_str()), nullptr};
    int fds[2];
    if (pipe(fds) != 0) return false;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    pid_t pid;
    int rc = posix_spawn(&pid, self, &fa, nullptr, argv, envp.data());
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        fprintf(stderr, "bench-cxx: cannot run %s: %s\n", self, strerror(rc));
        return false;
    }
    char text[256] = {0};
    ssize_t n, got = 0;
    while ((n = read(fds[0], text + got, sizeof text - 1 - (size_t)got)) > 0) got += n;
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench-cxx: child '%s' failed (status 0x%x)\n", c.name, status);
        return false;
    }
    return sscanf(text, "%lf %lf %lf", &out->hooked, &out->direct, &out->extra) == 3;
}

int count_reports(const std::string &dir) {
    std::string cmd = "ls -A '" + dir + "' 2>/dev/null | wc -l";
    FILE *p = popen(cmd.c_str(), "r");
    int n = 0;
    if (p) { if (fscanf(p, "%d", &n) != 1) n = 0; pclose(p); }
    return n;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "--child")) return run_child(atoi(argv[2]));
    int rounds = 5, single_depth = 24;
    bool json = false;
    const char *single = nullptr;
    std::string agent;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json")) json = true;
        else if (!strcmp(argv[i], "--single") && i + 1 < argc) single = argv[++i];
        else if (!strcmp(argv[i], "--depth") && i + 1 < argc) single_depth = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--agent") && i + 1 < argc) agent = argv[++i];
        else {
            fprintf(stderr, "usage: bench-cxx [--rounds N] [--agent PATH]\n       bench-cxx --json --single none|agent_off|detector_32|detector_8 [--depth D] [--agent PATH]\nbench-cxx: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (rounds < 1) rounds = 1;
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) { perror("bench-cxx: /proc/self/exe"); return 1; }
    self[len] = 0;
    if (agent.empty()) {
        std::string s(self);
        agent = s.substr(0, s.rfind('/') + 1) + "libFaultlineAgentPreload.so";
    }
    if (access(agent.c_str(), R_OK) != 0) {
        fprintf(stderr, "bench-cxx: agent %s not found (build it: swift build --product FaultlineAgentPreload, or pass --agent PATH)\n",
                agent.c_str());
        return 1;
    }
    char dir[] = "/tmp/bench-cxx-XXXXXX";
    if (!mkdtemp(dir)) { perror("bench-cxx: mkdtemp"); return 1; }
    if (single || json) {
        const config *c = nullptr;
        for (const config &k : kConfigs) if (single && !strcmp(single, k.id)) c = &k;
        if (!c || !json) {
            fprintf(stderr, "bench-cxx: --json needs --single none|agent_off|detector_32|detector_8 (found '%s')\n", single ? single : "nothing");
            return 2;
        }
        sample s;
        bool ok = spawn_child(self, *c, single_depth, agent, dir, &s);
        if (ok) {
            printf("{\"metric\":\"cxx.throw_catch_depth%d\",\"config\":\"%s\",\"unit\":\"ns\",\"value\":%.1f}\n", single_depth, c->id, s.hooked);
            printf("{\"metric\":\"cxx.extra_per_throw_depth%d\",\"config\":\"%s\",\"unit\":\"ns\",\"value\":%.1f}\n", single_depth, c->id, s.extra);
        }
        int reports = count_reports(dir);
        std::string rm = "rm -rf '" + std::string(dir) + "'";
        if (system(rm.c_str()) != 0) {}
        if (reports) { fprintf(stderr, "bench-cxx: %d report(s) written by caught exceptions\n", reports); return 1; }
        return ok ? 0 : 1;
    }

    printf("bench-cxx: throw-and-catch of std::runtime_error; per child %d pairs of batches of %d throws; %d rounds\n",
           kPairs, kPerBatch, rounds);
    printf("A = throw through the PLT (the agent's __cxa_throw when preloaded), B = libstdc++'s __cxa_throw called directly\n");
    printf("agent: %s\n\n", agent.c_str());
    const int depths[] = {2, 24};
    bool failed = false;
    for (int depth : depths) {
        std::vector<double> hooked[kNConfigs], direct[kNConfigs], extra[kNConfigs];
        for (int r = 0; r < rounds; r++)
            for (int c = 0; c < kNConfigs; c++) {
                sample s;
                if (!spawn_child(self, kConfigs[c], depth, agent, dir, &s)) { failed = true; continue; }
                hooked[c].push_back(s.hooked);
                direct[c].push_back(s.direct);
                extra[c].push_back(s.extra);
            }
        printf("throw %d calls below the catch (medians over rounds):\n", depth);
        printf("  %-24s %10s %10s %14s\n", "configuration", "A ns", "B ns", "extra (A-B)");
        for (int c = 0; c < kNConfigs; c++)
            printf("  %-24s %10.0f %10.0f %14.0f\n", kConfigs[c].name, median(hooked[c]), median(direct[c]), median(extra[c]));
        double cost = median(extra[kDefaultConfig]) - median(extra[0]);
        printf("  extra cost per throw-and-catch, detector on (default 32 frames), less the control: %.0f ns median; target < %.0f ns: %s\n\n",
               cost, kTargetNs, cost < kTargetNs ? "met" : "NOT met");
    }
    int reports = count_reports(dir);
    if (reports) printf("warning: %d report(s) written by caught exceptions in %s (there should be none)\n", reports, dir);
    else rmdir(dir);
    return failed ? 1 : 0;
}
