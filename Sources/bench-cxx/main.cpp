// bench-cxx: what the C++ exception detector costs a program that throws
// and catches exceptions in normal operation.
//
// The same throw-and-catch loop runs in child processes of this program:
// without the agent, with the agent preloaded but the detector off (the
// interposed __cxa_throw only forwards), and with the detector on (every
// throw records its stack). Configurations are interleaved round by round so
// machine noise hits them alike; the figure is the median over rounds of
// each child's median nanoseconds per throw-and-catch, and the extra cost is
// "on" minus "off". Target: under 1 µs median extra per throw. The fastest
// batch of any round is printed too: on a busy machine it is the figure
// least disturbed by other processes.
//
//   bench-cxx [--rounds N] [--agent PATH]
//
// The agent defaults to libFaultlineAgentPreload.so next to this program.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <errno.h>
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

constexpr int kBatches = 200;       // per child
constexpr int kPerBatch = 200;      // throws per timed batch
constexpr double kTargetNs = 1000;  // the target for the extra cost

volatile int g_always = 1;

uint64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) int throw_at(int depth) {
    if (depth > 0) {
        int r = throw_at(depth - 1);
        __asm__ volatile("" : "+r"(r));  // keeps the frames: no tail call
        return r + 1;
    }
    if (g_always) throw std::runtime_error("bench");
    return 0;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// Child: prints the median and the fastest batch's ns per throw-and-catch.
int run_child(int depth) {
    long caught = 0;
    for (int i = 0; i < 2000; i++) {  // warm-up: caches, trace cache, pages
        try { throw_at(depth); } catch (const std::runtime_error &) { caught++; }
    }
    std::vector<double> per_throw;
    per_throw.reserve(kBatches);
    for (int b = 0; b < kBatches; b++) {
        uint64_t t0 = now_ns();
        for (int i = 0; i < kPerBatch; i++) {
            try { throw_at(depth); } catch (const std::runtime_error &) { caught++; }
        }
        per_throw.push_back((double)(now_ns() - t0) / kPerBatch);
    }
    printf("%.1f %.1f %ld\n", median(per_throw), *std::min_element(per_throw.begin(), per_throw.end()), caught);
    return 0;
}

struct config {
    const char *name;
    bool preload;
    const char *detectors;  // FAULTLINE_DETECTORS
    const char *frames;     // FAULTLINE_CXX_THROW_FRAMES, or null for the default
};

const config kConfigs[] = {
    {"off (no agent)", false, nullptr, nullptr},
    {"agent, detector off", true, "crash", nullptr},
    {"detector on (32 frames)", true, "crash,cxx_exception", nullptr},
    {"detector on (8 frames)", true, "crash,cxx_exception", "8"},
};
constexpr int kNConfigs = sizeof kConfigs / sizeof kConfigs[0];

struct sample {
    double median, best;
};

// Runs one child; returns its median and best ns per throw ({-1, -1} on failure).
sample spawn_child(const char *self, const config &c, int depth, const std::string &agent, const std::string &dir) {
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
    if (pipe(fds) != 0) return {-1, -1};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    pid_t pid;
    int rc = posix_spawn(&pid, self, &fa, nullptr, argv, envp.data());
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) { close(fds[0]); fprintf(stderr, "bench-cxx: cannot run %s: %s\n", self, strerror(rc)); return {-1, -1}; }
    char out[256] = {0};
    ssize_t n, got = 0;
    while ((n = read(fds[0], out + got, sizeof out - 1 - (size_t)got)) > 0) got += n;
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench-cxx: child '%s' failed (status 0x%x)\n", c.name, status);
        return {-1, -1};
    }
    sample s = {-1, -1};
    if (sscanf(out, "%lf %lf", &s.median, &s.best) != 2) return {-1, -1};
    return s;
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
    int rounds = 7;
    std::string agent;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--agent") && i + 1 < argc) agent = argv[++i];
        else {
            fprintf(stderr, "usage: bench-cxx [--rounds N] [--agent PATH]\nbench-cxx: unknown argument '%s'\n", argv[i]);
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
        fprintf(stderr, "bench-cxx: agent %s not found (build it: swift build --product FaultlineAgentPreload, or pass --agent PATH)\n", agent.c_str());
        return 1;
    }
    char dir[] = "/tmp/bench-cxx-XXXXXX";
    if (!mkdtemp(dir)) { perror("bench-cxx: mkdtemp"); return 1; }

    printf("bench-cxx: throw-and-catch of std::runtime_error, %d batches x %d throws per child, %d rounds\n",
           kBatches, kPerBatch, rounds);
    printf("agent: %s\n\n", agent.c_str());
    const int depths[] = {2, 24};
    bool failed = false;
    for (int depth : depths) {
        std::vector<double> medians[kNConfigs], bests[kNConfigs];
        for (int r = 0; r < rounds; r++)
            for (int c = 0; c < kNConfigs; c++) {
                sample v = spawn_child(self, kConfigs[c], depth, agent, dir);
                if (v.median < 0) { failed = true; continue; }
                medians[c].push_back(v.median);
                bests[c].push_back(v.best);
            }
        double base = median(medians[0]);
        double base_best = bests[0].empty() ? 0 : *std::min_element(bests[0].begin(), bests[0].end());
        printf("throw %d calls below the catch:\n", depth);
        printf("  %-26s %12s %10s %14s %10s\n", "configuration", "median ns", "extra", "fastest batch", "extra");
        for (int c = 0; c < kNConfigs; c++) {
            double m = median(medians[c]);
            double b = bests[c].empty() ? 0 : *std::min_element(bests[c].begin(), bests[c].end());
            printf("  %-26s %12.0f %10.0f %14.0f %10.0f\n", kConfigs[c].name, m, m - base, b, b - base_best);
        }
        double extra = median(medians[2]) - base;
        printf("  extra cost with the detector on (default 32 frames): %.0f ns median per throw-and-catch; target < %.0f ns: %s\n\n",
               extra, kTargetNs, extra < kTargetNs ? "met" : "NOT met");
    }
    int reports = count_reports(dir);
    if (reports) printf("warning: %d report(s) written by caught exceptions in %s (there should be none)\n", reports, dir);
    else rmdir(dir);
    return failed ? 1 : 0;
}
