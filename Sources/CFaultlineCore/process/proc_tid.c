#include "proc_tid.h"
#include "fd_transient.h"
#include "sigsafe.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

// (the pid it was computed in << 32) | /proc's id for the process, 0 when
// /proc is ours. Computed again in a process with another pid: a forked
// child may be the first process of a new pid namespace.
static _Atomic uint64_t g_state;

// Recently translated threads: (our id << 32) | /proc's id, by our id.
// Only a hint, checked against the thread's status before use.
#define CACHE_SLOTS 64
static _Atomic uint64_t g_cache[CACHE_SLOTS];

static pid_t proc_pid(void) {
    pid_t me = (pid_t)syscall(SYS_getpid);
    uint64_t s = atomic_load_explicit(&g_state, memory_order_relaxed);
    if ((uint32_t)(s >> 32) == (uint32_t)me) return (pid_t)(uint32_t)s;
    char buf[32];
    ssize_t n = readlink("/proc/self", buf, sizeof buf - 1);
    pid_t p = 0;
    if (n > 0) {
        buf[n] = 0;
        const char *end;
        uint64_t v = fl_parse_dec(buf, &end);
        if (end != buf && *end == 0 && v != (uint64_t)(uint32_t)me) p = (pid_t)v;
    }
    atomic_store_explicit(&g_state, ((uint64_t)(uint32_t)me << 32) | (uint32_t)p, memory_order_relaxed);
    return p;
}

int fl_proc_foreign(void) { return proc_pid() != 0; }

// The last id on the NSpid line of /proc/self/task/<proc_tid>/status: the
// thread's id in the innermost namespace, the process's own.
static pid_t read_ns_tid(pid_t proc_tid) {
    char path[64] = "/proc/self/task/", buf[4096];
    size_t l = fl_strlen(path);
    l += fl_fmt_u64(path + l, (uint64_t)(uint32_t)proc_tid);
    fl_strlcpy(path + l, "/status", sizeof path - l);
    if (fl_read_file(path, buf, sizeof buf) <= 0) return 0;
    const char *s = fl_find_field(buf, "\nNSpid:");
    uint64_t last = 0;
    while (s && *s >= '0' && *s <= '9') {
        last = fl_parse_dec(s, &s);
        while (*s == ' ' || *s == '\t') s++;
    }
    return (pid_t)last;
}

pid_t fl_ns_tid(pid_t proc_tid) {
    if (!proc_pid()) return proc_tid;
    pid_t tid = read_ns_tid(proc_tid);
    // A thread just listed is about to be named in a path (fl_proc_tid).
    if (tid > 0)
        atomic_store_explicit(&g_cache[(uint32_t)tid % CACHE_SLOTS], ((uint64_t)(uint32_t)tid << 32) | (uint32_t)proc_tid,
                              memory_order_relaxed);
    return tid;
}

struct linux_dirent64_ {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

pid_t fl_proc_tid(pid_t tid) {
    pid_t p = proc_pid();
    if (!p || tid <= 0) return tid;
    if (tid == (pid_t)syscall(SYS_getpid)) return p;  // the main thread's id is the process's
    if (tid == (pid_t)syscall(SYS_gettid)) {
        // "P/task/T", in /proc's namespace.
        char buf[64];
        ssize_t n = readlink("/proc/thread-self", buf, sizeof buf - 1);
        if (n > 0) {
            buf[n] = 0;
            for (ssize_t i = n - 1; i >= 0; i--)
                if (buf[i] == '/') return (pid_t)fl_parse_dec(buf + i + 1, 0);
        }
        return 0;
    }
    _Atomic uint64_t *slot = &g_cache[(uint32_t)tid % CACHE_SLOTS];
    uint64_t c = atomic_load_explicit(slot, memory_order_relaxed);
    if ((uint32_t)(c >> 32) == (uint32_t)tid && read_ns_tid((pid_t)(uint32_t)c) == tid) return (pid_t)(uint32_t)c;
    // getdents64 on a raw fd: opendir allocates.
    int fd = fl_open_high("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[4096] __attribute__((aligned(8)));
    pid_t found = 0;
    while (!found) {
        long r = syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (r <= 0) break;
        for (long off = 0; off < r && !found;) {
            struct linux_dirent64_ *d = (struct linux_dirent64_ *)(buf + off);
            off += d->d_reclen;
            if (d->d_name[0] < '0' || d->d_name[0] > '9') continue;
            pid_t cand = (pid_t)fl_parse_dec(d->d_name, 0);
            if (read_ns_tid(cand) == tid) found = cand;
        }
    }
    fl_close_high(fd);
    if (found) atomic_store_explicit(slot, ((uint64_t)(uint32_t)tid << 32) | (uint32_t)found, memory_order_relaxed);
    return found;
}

size_t fl_proc_task_path(char *path, size_t cap, pid_t proc_tid, const char *file) {
    size_t l = fl_strlcpy(path, "/proc/", cap);
    l += fl_fmt_u64(path + l, (uint64_t)(uint32_t)proc_tid);
    l += fl_strlcpy(path + l, "/", cap - l);
    return l + fl_strlcpy(path + l, file, cap - l);
}

size_t fl_proc_self_path(char *path, size_t cap, const char *file) {
    pid_t tid = (pid_t)syscall(SYS_gettid);
    int main_thread = tid == (pid_t)syscall(SYS_getpid);
    pid_t id = main_thread ? 0 : fl_proc_tid(tid);
    if (id > 0) return fl_proc_task_path(path, cap, id, file);
    size_t l = fl_strlcpy(path, main_thread ? "/proc/self/" : "/proc/thread-self/", cap);
    return l + fl_strlcpy(path + l, file, cap - l);
}

int fl_open_own_proc_file(const char *file) {
    char path[64];
    fl_proc_self_path(path, sizeof path, file);
    int fd = fl_open_high(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) return fd;
    size_t l = fl_strlcpy(path, "/proc/self/", sizeof path);
    fl_strlcpy(path + l, file, sizeof path - l);
    return fl_open_high(path, O_RDONLY | O_CLOEXEC);
}
