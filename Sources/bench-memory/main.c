// bench-memory: what the memory-limit work costs. Prints, never asserts.
//   1. The agent's memory monitor: CPU time of its thread per tick and as a
//      share of one core, at the default FAULTLINE_MEMORY_INTERVAL_MS (100)
//      and at 20 and 10 ms, measured with the thread's own CPU clock while
//      the process sits in a memory cgroup with a limit.
//   2. Kill -> report: `faultline exec --memory-limit 32M -- victim-oom
//      malloc-grow`, from the moment the kernel's OOM killer ended the
//      victim (its exit, timestamped by the kernel's process-events
//      connector) to the moment the oom_kill report is renamed into place
//      (inotify IN_MOVED_TO). Needs root for the connector; without it the
//      report's own time_unix_ms (when the runner saw the OOM counter rise)
//      is the start.
// Usage: bench-memory [RUNS=10] [SECONDS=5] [--only monitor|kill] [--json]
// --json prints one JSON line per measurement (docs/benchmarks.md, "The
// contract") instead of the tables.
#include "bench_stats.h"
#include "faultline.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void print_stats(const char *what, uint64_t *v, int n) {
    if (n == 0) { printf("%-44s no samples\n", what); return; }
    bench_stats st = bench_stats_of(v, n);
    printf("%-44s median %8.2f ms   min %8.2f   max %8.2f   (n=%d)\n", what, st.median / 1e6, st.min / 1e6, st.max / 1e6, n);
}

/// --json: JSON lines instead of the tables.
static int g_json;
/// Why the monitor ran without a limit (JSON "note"), or "".
static const char *g_note = "";

static char g_bin[4096];  // directory of this executable (victims and faultline are built there)

/// Our directory in the v1 memory hierarchy (or the v2 one); 0 on success.
static int own_memory_cgroup(char *out, size_t cap, int *v2) {
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f) return -1;
    char line[4096], v1path[4096] = "", v2path[4096] = "";
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : 0;
        if (!c2) continue;
        *c2 = 0;
        if (strstr(c1 + 1, "memory")) snprintf(v1path, sizeof v1path, "%s", c2 + 1);
        if (strcmp(line, "0") == 0 && c1[1] == 0) snprintf(v2path, sizeof v2path, "%s", c2 + 1);
    }
    fclose(f);
    // The usual mount points; `faultline doctor` shows the real ones.
    if (v1path[0] && access("/sys/fs/cgroup/memory", F_OK) == 0) {
        snprintf(out, cap, "/sys/fs/cgroup/memory%s", strcmp(v1path, "/") == 0 ? "" : v1path);
        *v2 = 0;
        return 0;
    }
    if (v2path[0] && access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0) {
        snprintf(out, cap, "/sys/fs/cgroup%s", strcmp(v2path, "/") == 0 ? "" : v2path);
        *v2 = 1;
        return 0;
    }
    return -1;
}

static int write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY);
    if (fd < 0) return -1;
    int ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    close(fd);
    return ok ? 0 : -1;
}

/// The tid of this process's thread named `name`, or 0.
static pid_t thread_named(const char *name) {
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    pid_t found = 0;
    while (d && (e = readdir(d))) {
        char path[300], comm[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (fgets(comm, sizeof comm, f)) comm[strcspn(comm, "\n")] = 0;
        fclose(f);
        if (strcmp(comm, name) == 0) found = atoi(e->d_name);
    }
    if (d) closedir(d);
    return found;
}

/// CPU time of thread `tid` (the kernel's per-thread CPU clock id).
static uint64_t thread_cpu_ns(pid_t tid) {
    clockid_t clock = (clockid_t)((~(unsigned)tid << 3) | 4 | 2);  // MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)
    return bench_now_ns(clock);
}

/// In a child: installs the agent with the memory monitor at `interval_ms`
/// and prints its thread's CPU cost over `seconds`.
static void measure_monitor(int interval_ms, int seconds, const char *report_dir) {
    char v[16];
    snprintf(v, sizeof v, "%d", interval_ms);
    setenv("FAULTLINE_MEMORY_INTERVAL_MS", v, 1);
    setenv("FAULTLINE_DETECTORS", "memory", 1);
    faultline_options o = { .report_dir = report_dir };
    if (faultline_install(&o) != 0) { printf("agent not installed: %s\n", faultline_last_error()); _exit(1); }
    usleep(50000);
    pid_t tid = thread_named("faultline-mem");
    if (!tid) { printf("interval %4d ms: the monitor did not start (no memory cgroup?)\n", interval_ms); _exit(1); }
    uint64_t c0 = thread_cpu_ns(tid), t0 = bench_now_ns(CLOCK_MONOTONIC);
    sleep((unsigned)seconds);
    uint64_t c1 = thread_cpu_ns(tid), t1 = bench_now_ns(CLOCK_MONOTONIC);
    double ticks = (double)(t1 - t0) / (interval_ms * 1e6);
    if (g_json) {
        printf("{\"metric\":\"memory.monitor_cpu\",\"config\":\"%dms\",\"unit\":\"%%core\",\"value\":%.5f,\"note\":\"%s\"}\n",
               interval_ms, 100.0 * (c1 - c0) / (t1 - t0), g_note);
        printf("{\"metric\":\"memory.monitor_tick\",\"config\":\"%dms\",\"unit\":\"us\",\"value\":%.3f,\"note\":\"%s\"}\n",
               interval_ms, (c1 - c0) / 1e3 / ticks, g_note);
        fflush(stdout);
        _exit(0);
    }
    printf("monitor at %3d ms%-10s %8.2f us CPU per tick   %7.4f %% of one core   (%.0f ticks)\n", interval_ms,
           interval_ms == 100 ? " (default)" : "", (c1 - c0) / 1e3 / ticks, 100.0 * (c1 - c0) / (t1 - t0), ticks);
    fflush(stdout);
    _exit(0);
}

static void part_monitor(int seconds) {
    char cg[4096], mine[4200], path[4300], dir[] = "/tmp/bench-memory-XXXXXX";
    int v2 = 0;
    if (!mkdtemp(dir)) { perror("mkdtemp"); return; }
    int limited = 0;
    if (own_memory_cgroup(cg, sizeof cg, &v2) == 0) {
        snprintf(mine, sizeof mine, "%s/bench-memory-%d", cg, (int)getpid());
        snprintf(path, sizeof path, "%s/%s", mine, v2 ? "memory.max" : "memory.limit_in_bytes");
        char pid[24];
        snprintf(pid, sizeof pid, "%d", (int)getpid());
        char procs[4300];
        snprintf(procs, sizeof procs, "%s/cgroup.procs", mine);
        if (mkdir(mine, 0755) == 0 && write_file(path, "268435456") == 0 && write_file(procs, pid) == 0) limited = 1;
    }
    if (!limited) g_note = "no memory cgroup could be made: measured without a limit";
    if (!g_json) printf("1. memory monitor thread (%s)\n", limited ? "in a memory cgroup limited to 256 MiB" : "SKIP limit: no memory cgroup could be made; measured without one");
    int intervals[] = {100, 20, 10};
    for (int i = 0; i < 3; i++) {
        pid_t p = fork();
        if (p == 0) measure_monitor(intervals[i], seconds, dir);
        int st;
        waitpid(p, &st, 0);
    }
    if (limited) {
        char home[4300];
        snprintf(home, sizeof home, "%s/cgroup.procs", cg);
        char pid[24];
        snprintf(pid, sizeof pid, "%d", (int)getpid());
        write_file(home, pid);
        rmdir(mine);
    }
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) {}
}

/// The kernel's process-events connector (root): exit events with their
/// kernel timestamp (CLOCK_MONOTONIC). -1 when unavailable.
static int connector_open(void) {
    int s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
    if (s < 0) return -1;
    struct sockaddr_nl a = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC, .nl_pid = 0 };
    int big = 4 << 20;
    setsockopt(s, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    if (bind(s, (struct sockaddr *)&a, sizeof a) != 0) { close(s); return -1; }
    // nlmsghdr, cn_msg, then the operation (cn_msg ends in a flexible array).
    char req[NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op))] __attribute__((aligned(8)));
    memset(req, 0, sizeof req);
    struct nlmsghdr *h = (struct nlmsghdr *)req;
    h->nlmsg_len = sizeof req;
    h->nlmsg_type = NLMSG_DONE;
    struct cn_msg *m = NLMSG_DATA(h);
    m->id.idx = CN_IDX_PROC;
    m->id.val = CN_VAL_PROC;
    m->len = sizeof(enum proc_cn_mcast_op);
    *(enum proc_cn_mcast_op *)m->data = PROC_CN_MCAST_LISTEN;
    if (send(s, req, sizeof req, 0) < 0) { close(s); return -1; }
    return s;
}

#define MAX_EXITS 4096
static struct { pid_t pid; uint64_t ts; } g_exits[MAX_EXITS];
static int g_nexits;

static void connector_drain(int s) {
    char buf[8192];
    for (;;) {
        ssize_t n = recv(s, buf, sizeof buf, MSG_DONTWAIT);
        if (n <= 0) return;
        for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
            struct cn_msg *m = NLMSG_DATA(h);
            struct proc_event *e = (struct proc_event *)m->data;
            if (e->what == PROC_EVENT_EXIT && (e->event_data.exit.exit_code & 0x7f) == SIGKILL &&
                e->event_data.exit.process_pid == e->event_data.exit.process_tgid && g_nexits < MAX_EXITS) {
                g_exits[g_nexits].pid = e->event_data.exit.process_pid;
                g_exits[g_nexits].ts = e->timestamp_ns;
                g_nexits++;
            }
        }
    }
}

/// "oom_kill-<time>-<pid>-<id>.json" -> pid.
static pid_t pid_from_name(const char *name) {
    const char *end = strrchr(name, '-');
    if (!end) return 0;
    const char *p = end - 1;
    while (p > name && *p != '-') p--;
    return (pid_t)atoi(p + 1);
}

/// time_unix_ms from the report file.
static uint64_t report_time_ms(const char *path) {
    char buf[8192] = "";
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    char *t = strstr(buf, "\"time_unix_ms\":");
    return t ? strtoull(t + 15, 0, 10) : 0;
}

static void part_kill_to_report(int runs) {
    char faultline[4200], victim[4200];
    snprintf(faultline, sizeof faultline, "%s/faultline", g_bin);
    snprintf(victim, sizeof victim, "%s/victim-oom", g_bin);
    if (access(faultline, X_OK) != 0 || access(victim, X_OK) != 0) {
        if (g_json) return;
        printf("2. kill -> report: SKIP: build faultline and victim-oom next to bench-memory first\n");
        return;
    }
    int conn = connector_open();
    if (!g_json) printf("2. kill -> oom_kill report (faultline exec --memory-limit 32M, victim-oom malloc-grow; start = %s)\n",
           conn >= 0 ? "victim exit, kernel timestamp" : "report's time_unix_ms (no process-events connector: not root?)");
    uint64_t delays[64];
    int n = 0;
    for (int r = 0; r < runs && r < 64; r++) {
        char dir[] = "/tmp/bench-memory-run-XXXXXX";
        if (!mkdtemp(dir)) return;
        int in = inotify_init1(IN_CLOEXEC);
        inotify_add_watch(in, dir, IN_MOVED_TO);
        g_nexits = 0;
        if (conn >= 0) connector_drain(conn);
        g_nexits = 0;
        pid_t p = fork();
        if (p == 0) {
            int null = open("/dev/null", O_RDWR);
            dup2(null, 1);
            dup2(null, 2);
            execl(faultline, faultline, "exec", "--memory-limit", "32M", "--report-dir", dir, "--no-symbolicate", "--", victim, "malloc-grow", (char *)0);
            _exit(127);
        }
        uint64_t t_report = 0, t_report_real = 0;
        char name[256] = "";
        while (!t_report) {
            struct pollfd pf[2] = { { .fd = in, .events = POLLIN }, { .fd = conn, .events = POLLIN } };
            if (poll(pf, conn >= 0 ? 2 : 1, 10000) <= 0) break;
            if (conn >= 0 && (pf[1].revents & POLLIN)) connector_drain(conn);
            if (pf[0].revents & POLLIN) {
                char buf[4096] __attribute__((aligned(8)));
                ssize_t len = read(in, buf, sizeof buf);
                uint64_t t = bench_now_ns(CLOCK_MONOTONIC), tr = bench_now_ns(CLOCK_REALTIME);
                for (char *q = buf; q < buf + len; ) {
                    struct inotify_event *e = (struct inotify_event *)q;
                    if (e->len && strncmp(e->name, "oom_kill-", 9) == 0) {
                        t_report = t;
                        t_report_real = tr;
                        snprintf(name, sizeof name, "%s", e->name);
                    }
                    q += sizeof *e + e->len;
                }
            }
        }
        if (conn >= 0) connector_drain(conn);
        int st;
        waitpid(p, &st, 0);
        close(in);
        if (t_report) {
            pid_t victim_pid = pid_from_name(name);
            uint64_t start = 0;
            for (int i = 0; i < g_nexits; i++) if (g_exits[i].pid == victim_pid) start = g_exits[i].ts;
            if (conn >= 0 && start && start <= t_report) delays[n++] = t_report - start;
            else if (conn < 0) {
                char path[4400];
                snprintf(path, sizeof path, "%s/%s", dir, name);
                uint64_t ms = report_time_ms(path);
                if (ms && ms * 1000000ull <= t_report_real) delays[n++] = t_report_real - ms * 1000000ull;
            }
        }
        char cmd[200];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd) != 0) {}
    }
    if (g_json) {
        if (n) {
            printf("{\"metric\":\"memory.kill_to_report\",\"config\":\"faultline_exec\",\"unit\":\"ms\",\"samples\":[");
            for (int i = 0; i < n; i++) printf("%s%.3f", i ? "," : "", delays[i] / 1e6);
            printf("]}\n");
        }
    } else print_stats("kill -> report renamed into place", delays, n);
    if (conn >= 0) close(conn);
}

int main(int argc, char **argv) {
    int runs = 10, seconds = 5, positional = 0;
    const char *only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) g_json = 1;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (argv[i][0] >= '0' && argv[i][0] <= '9' && positional < 2) { if (positional++ == 0) runs = atoi(argv[i]); else seconds = atoi(argv[i]); }
        else {
            fprintf(stderr, "bench-memory: unknown argument '%s'\nusage: bench-memory [RUNS=10] [SECONDS=5] [--only monitor|kill] [--json]\n", argv[i]);
            return 2;
        }
    }
    if (only && strcmp(only, "monitor") && strcmp(only, "kill")) {
        fprintf(stderr, "bench-memory: --only %s is not monitor or kill\n", only);
        return 2;
    }
    if (runs < 1) runs = 10;
    if (seconds < 1) seconds = 5;
    ssize_t n = readlink("/proc/self/exe", g_bin, sizeof g_bin - 1);
    if (n > 0) { g_bin[n] = 0; char *s = strrchr(g_bin, '/'); if (s) *s = 0; }
    setvbuf(stdout, 0, _IOLBF, 0);
    if (!only || !strcmp(only, "monitor")) part_monitor(seconds);
    if (!only || !strcmp(only, "kill")) part_kill_to_report(runs);
    return 0;
}
