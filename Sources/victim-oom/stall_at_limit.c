// victim-oom stall-at-limit: the memory monitor's breadcrumb, written while
// the cgroup sits at its limit.
//
// With cgroup v1's OOM killer switched off for the cgroup
// (memory.oom_control), a child fills the cgroup and stalls in a page fault
// at the limit. Any memory this process asked the kernel for from then on
// would be refused: a new page would stall like the child, a kernel object
// (a dentry, a read buffer) would fail with ENOMEM. The agent's monitor
// thread samples the cgroup at 100 %, and its breadcrumb only gets written
// if it needs no new memory to do so. (When the OOM killer is on, the same
// request makes the kernel kill this process as well as the child; that was
// the memory-limits.child-oom flake.)
//
// Everything this process touches after the fork is prepared before it.
#include "stall_at_limit.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// The agent's breadcrumb file (docs/memory-limits.md, "Breadcrumbs").
#define CRUMB_HEADER 4096u
#define CRUMB_STATE_COMPLETE 2u

static char g_crumbs[1u << 20];   // the breadcrumb file, read here at the end
static char g_text[4096];
static char g_fill[64u << 10];    // what goes into the pipe (touched before the fork)

/// Pipes of 1 MiB (fs.pipe-max-size without CAP_SYS_RESOURCE) that soak up
/// the cgroup's last margin: more than the kernel's per-CPU charge stock of
/// 64 pages on every CPU here.
#define SOAK_PIPES 8
#define SOAK_PIPE_BYTES (1u << 20)

static void sleep_ms(long ms) {
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000l };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

static void fail(const char *what) {
    printf("victim-oom: stall-at-limit: %s\n", what);
    exit(1);
}

/// This process's cgroup v1 memory directory, from mountinfo and /proc/self/cgroup.
static int memory_dir(char *out, size_t cap) {
    char mount[512] = "", path[512] = "";
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f) return -1;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS... - cgroup SOURCE SUPEROPTIONS
        char *dash = strstr(line, " - cgroup ");
        char point[512];
        if (!dash || !strstr(dash, "memory") || sscanf(line, "%*s %*s %*s %*s %511s", point) != 1) continue;
        strcpy(mount, point);
        break;
    }
    fclose(f);
    if (!(f = fopen("/proc/self/cgroup", "re"))) return -1;
    while (fgets(line, sizeof line, f)) {
        // N:CONTROLLERS:PATH, with memory among the controllers
        char *c = strchr(line, ':'), *p = c ? strchr(c + 1, ':') : 0;
        if (!p || !memmem(c, (size_t)(p - c), "memory", 6)) continue;
        p[1 + strcspn(p + 1, "\n")] = 0;
        strcpy(path, p + 1);
        break;
    }
    fclose(f);
    if (!mount[0] || !path[0]) return -1;
    return snprintf(out, cap, "%s%s", mount, path) < (int)cap ? 0 : -1;
}

static void write_oom_control(const char *dir, const char *value) {
    char p[1024];
    snprintf(p, sizeof p, "%s/memory.oom_control", dir);
    int fd = open(p, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, value, strlen(value)) < 0) {
        snprintf(g_text, sizeof g_text, "cannot write %s to %s: %s", value, p, strerror(errno));
        fail(g_text);
    }
    close(fd);
}

/// The highest threshold among the complete breadcrumbs in `data`, or -1;
/// `stacks` says whether that breadcrumb lists allocation stacks and
/// `count` how many breadcrumbs are complete.
static int highest_breadcrumb(const char *data, size_t n, int *stacks, int *count) {
    if (n < CRUMB_HEADER || memcmp(data, "FLMEMBC1", 8) != 0) return -1;
    uint32_t slot_size, slots;
    memcpy(&slot_size, data + 12, 4);
    memcpy(&slots, data + 16, 4);
    int best = -1;
    for (uint32_t i = 0; i < slots && CRUMB_HEADER + (size_t)(i + 1) * slot_size <= n; i++) {
        const char *s = data + CRUMB_HEADER + (size_t)i * slot_size;
        uint32_t state;
        memcpy(&state, s, 4);
        const char *t = state == CRUMB_STATE_COMPLETE ? strstr(s + 16, "\"threshold_percent\":") : 0;
        if (t) ++*count;
        if (t && atoi(t + 20) > best) {
            best = atoi(t + 20);
            *stacks = strstr(s + 16, "\"top_stacks\":[") != 0;
        }
    }
    return best;
}

/// Charges what the cgroup can still take to pipe pages (a pipe write gets
/// ENOMEM instead of waiting). When the child stalls, the per-CPU charge
/// stocks drain back over a few milliseconds and leave a margin of up to
/// 64 pages a CPU that would let a careless monitor through; the soak keeps
/// the margin at zero. Returns -1 when every pipe filled first.
static int soak_margin(int pipes[SOAK_PIPES][2]) {
    for (int i = 0; i < SOAK_PIPES; i++) {
        ssize_t w;
        while ((w = write(pipes[i][1], g_fill, sizeof g_fill)) > 0) {}
        if (w < 0 && errno != EAGAIN) return 0;  // ENOMEM: the cgroup is full
    }
    return -1;
}

/// Locks this executable's code (the first object dl_iterate_phdr lists),
/// so that this process's own next instruction never waits for memory at
/// the limit: with a cold page cache the victim's code pages are charged
/// to the cgroup, and the kernel reclaims them first. The agent's code is
/// the agent's business (memory_code_lock.c), and what the scenario tests.
static int lock_own_code(struct dl_phdr_info *info, size_t size, void *unused) {
    (void)size, (void)unused;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t start = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)4095;
        if (mlock((void *)start, info->dlpi_addr + ph->p_vaddr + ph->p_memsz - start) != 0) fail("cannot mlock the victim's code");
    }
    return 1;  // the executable only
}

void victim_stall_at_limit(const char *self) {
    char dir[1024];
    if (memory_dir(dir, sizeof dir) != 0) fail("no cgroup v1 memory hierarchy here (needs memory.oom_control)");
    const char *reports = getenv("FAULTLINE_REPORT_DIR");
    if (!reports) fail("FAULTLINE_REPORT_DIR is not set (run with the memory detector injected)");
    char p[1024];
    snprintf(p, sizeof p, "%s/memory.oom_control", dir);
    int control = open(p, O_RDONLY | O_CLOEXEC);
    if (control < 0) fail("cannot open memory.oom_control");
    pread(control, g_text, sizeof g_text - 1, 0);  // the kernel's read buffer, now
    int soak[SOAK_PIPES][2];
    for (int i = 0; i < SOAK_PIPES; i++)
        if (pipe2(soak[i], O_NONBLOCK | O_CLOEXEC) != 0 || fcntl(soak[i][1], F_SETPIPE_SZ, SOAK_PIPE_BYTES) < 0)
            fail("cannot make a 1 MiB pipe (fs.pipe-max-size)");
    memset(g_fill, 0x5a, sizeof g_fill);
    dl_iterate_phdr(lock_own_code, 0);
    write_oom_control(dir, "1");
    printf("victim-oom: OOM killer off; a child fills the cgroup\n");

    pid_t child = fork();
    if (child < 0) fail("fork failed");
    if (child == 0) {
        execl(self, "victim-oom", "mmap-grow", "1M", (char *)0);
        _exit(127);
    }
    // memory.oom_control says "under_oom 1" once the child waits at the limit.
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int waited = 0;
    for (;; waited += 10) {
        ssize_t n = pread(control, g_text, sizeof g_text - 1, 0);
        g_text[n > 0 ? n : 0] = 0;
        if (strstr(g_text, "under_oom 1")) break;
        if (waited > 20000) { kill(child, SIGKILL); fail("the child never reached the limit"); }
        sleep_ms(10);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    // Two of the monitor's samples (FAULTLINE_MEMORY_INTERVAL_MS) at the limit.
    const char *interval = getenv("FAULTLINE_MEMORY_INTERVAL_MS");
    int overflowed = 0;
    for (long left = 2 * (interval ? atol(interval) : 100) + 100; left > 0; left -= 10) {
        overflowed |= soak_margin(soak);
        sleep_ms(10);
    }

    // Opening a file needs memory too: the breadcrumbs are read once the
    // child is gone. The monitor writes none then: usage only falls.
    kill(child, SIGKILL);
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    write_oom_control(dir, "0");
    for (int i = 0; i < SOAK_PIPES; i++) { close(soak[i][0]); close(soak[i][1]); }
    // Nothing is printed at the limit: a pipe write needs memory.
    printf("victim-oom: the child stalled at the limit after %ld ms\n",
           (long)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000));
    if (overflowed) fail("the cgroup still had room after 8 MiB went into pipes");
    snprintf(p, sizeof p, "%s/memory-%d.breadcrumbs", reports, (int)getpid());
    int crumbs = open(p, O_RDONLY | O_CLOEXEC);
    ssize_t n = crumbs >= 0 ? pread(crumbs, g_crumbs, sizeof g_crumbs, 0) : -1;
    int stacks = 0, count = 0;
    int best = highest_breadcrumb(g_crumbs, n > 0 ? (size_t)n : 0, &stacks, &count);
    if (best < 0) fail("no complete breadcrumb while the cgroup was at its limit");
    // The monitor's first sample must have come at the limit, or nothing was tested.
    if (count != 1) {
        snprintf(g_text, sizeof g_text, "the monitor sampled before the limit (%d breadcrumbs, up to %d%%): raise FAULTLINE_MEMORY_INTERVAL_MS", count, best);
        fail(g_text);
    }
    printf("victim-oom: breadcrumb at %d%% written while the cgroup was at its limit (allocation stacks: %s)\n",
           best, stacks ? "yes" : "no");
    exit(0);
}
