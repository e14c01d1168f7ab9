#include "fd_report.h"
#include "detector_report.h"
#include "fd_table.h"
#include "sigsafe.h"
#include "stack_store.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define REPORT_BUF (4u << 20)
#define MAX_FDS 8192      // descriptors looked at in one report
#define MAX_GROUPS 256    // distinct opening stacks grouped
#define SHOWN_GROUPS 64
#define SHOWN_FDS 32      // descriptors listed per group

typedef struct { int fd; uint32_t stack, opener; mode_t mode; } leaked_fd;
typedef struct { uint32_t stack; int count, first; } fd_group;

static fl_detector_report g_out;
static leaked_fd *g_fds;
static fd_group g_groups[MAX_GROUPS];
static atomic_int g_busy;
static pid_t g_installed_pid;

int fl_fd_report_init(void) {
    if (g_out.buf) return 0;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    g_fds = mmap(0, sizeof(leaked_fd) * MAX_FDS, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (g_fds == MAP_FAILED) return -1;
    return fl_detector_report_map(&g_out, REPORT_BUF);
}

// The followed fds still open as the file they were opened as (a number
// closed behind the interposers' back, by a raw system call, and opened
// again by libc's own code is not the program's leak). Returns the count.
static int collect(void) {
    int n = 0, lim = fl_fd_table_limit();
    for (int fd = 3; fd < lim && n < MAX_FDS; fd++) {
        const fl_fd_record *r = fl_fd_table_get(fd);
        if (!r) continue;
        struct stat st;
        if (syscall(SYS_fstat, fd, &st) != 0) continue;
        if ((r->dev || r->ino) && ((uint64_t)st.st_dev != r->dev || (uint64_t)st.st_ino != r->ino)) continue;
        g_fds[n++] = (leaked_fd){fd, atomic_load(&r->stack), atomic_load(&r->opener), st.st_mode};
    }
    return n;
}

// Groups by opening stack, most descriptors first. Returns the groups.
static int group(int n) {
    int g = 0;
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < g && g_groups[k].stack != g_fds[i].stack) k++;
        if (k == g) {
            if (g == MAX_GROUPS) { k = g - 1; }  // the rest counted with the last
            else g_groups[g++] = (fd_group){g_fds[i].stack, 0, i};
        }
        g_groups[k].count++;
    }
    for (int i = 1; i < g; i++)
        for (int j = i; j > 0 && g_groups[j].count > g_groups[j - 1].count; j--) {
            fd_group t = g_groups[j]; g_groups[j] = g_groups[j - 1]; g_groups[j - 1] = t;
        }
    return g;
}

static const char *type_of(mode_t m, const char *target) {
    if (S_ISREG(m)) return "file";
    if (S_ISDIR(m)) return "directory";
    if (S_ISSOCK(m)) return "socket";
    if (S_ISFIFO(m)) return "pipe";
    if (S_ISCHR(m)) return "character_device";
    if (S_ISBLK(m)) return "block_device";
    if (fl_startswith(target, "anon_inode:")) return "anon_inode";
    return "other";
}

static void write_fd(fl_json *w, const leaked_fd *l) {
    char path[40] = "/proc/self/fd/", target[512];
    fl_fmt_u64(path + 14, (uint64_t)l->fd);
    long len = syscall(SYS_readlinkat, AT_FDCWD, path, target, sizeof target - 1);
    target[len > 0 ? len : 0] = 0;
    fl_json_begin_object(w, 0);
    fl_json_int(w, "fd", l->fd);
    fl_json_string(w, "type", type_of(l->mode, target));
    if (len > 0) fl_json_string(w, "target", target);
    fl_json_end_object(w);
}

static void write_frames(fl_json *w, const char *key, uint32_t stack) {
    const uintptr_t *pcs = 0;
    int n = fl_stack_store_get(stack, &pcs);
    fl_report_frames(w, key, pcs, n, FL_FRAME0_RETURN_ADDRESS, g_out.images);
}

int fl_fd_report_write(const char *kind, long soft_limit) {
    if (!g_out.buf || atomic_exchange(&g_busy, 1)) return 0;
    int n = collect();
    if (n == 0) { atomic_store(&g_busy, 0); return 0; }
    uint64_t t0 = fl_monotonic_ns();
    int g = group(n);
    fl_report r;
    fl_detector_report_begin(&g_out, &r, kind);
    fl_json *w = &r.json;
    // The thread the report is about: the stack that opened the most.
    fl_detector_report_thread(w, fl_gettid(), "opening");
    write_frames(w, "frames", g_groups[0].stack);
    fl_json_end_object(w);
    fl_json_begin_object(w, kind);
    fl_json_int(w, "descriptors", n);
    fl_json_int(w, "stacks", g);
    if (soft_limit > 0) fl_json_int(w, "soft_limit", soft_limit);
    fl_json_begin_array(w, "groups");
    for (int k = 0; k < g && k < SHOWN_GROUPS; k++) {
        fl_json_begin_object(w, 0);
        fl_json_int(w, "count", g_groups[k].count);
        fl_json_string(w, "opened_by", fl_fd_opener_name(g_fds[g_groups[k].first].opener));
        write_frames(w, "opening_stack", g_groups[k].stack);
        fl_json_begin_array(w, "fds");
        int shown = 0;
        for (int i = g_groups[k].first; i < n && shown < SHOWN_FDS; i++)
            if (g_fds[i].stack == g_groups[k].stack) { write_fd(w, &g_fds[i]); shown++; }
        fl_json_end_array(w);
        fl_json_end_object(w);
    }
    fl_json_end_array(w);
    fl_json_end_object(w);
    fl_detector_report_end(&g_out, &r, t0);
    atomic_store(&g_busy, 0);
    return n;
}

void fl_fd_report_at_exit(void) { g_installed_pid = getpid(); }

void fl_fd_report_forked(void) { g_installed_pid = (pid_t)syscall(SYS_getpid); }

// The exit check, once per process: at the destructor, or at _exit,
// _Exit or exit_group, which run no destructor (a forked worker ending in
// _exit, a daemon's child). A pid that is not the one recorded at install
// or at the last fork is a vfork child, sharing its parent's memory and
// descriptors table's record: nothing runs there.
static void exit_check(void) {
    static atomic_int done;
    if (!g_installed_pid || !fl_fd_table_on() || (pid_t)syscall(SYS_getpid) != g_installed_pid) return;
    if (atomic_exchange(&done, 1)) return;
    fl_fd_report_write("fd_leak", 0);
}

void fl_fd_report_leaving(void) { exit_check(); }

// At exit: after the program's own atexit handlers and the destructors of
// the images finalised before ours (the executable's first).
__attribute__((destructor)) static void fd_check_at_exit(void) { exit_check(); }
