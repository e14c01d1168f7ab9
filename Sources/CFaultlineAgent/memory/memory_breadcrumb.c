#include "memory_breadcrumb.h"
#include "fd_transient.h"
#include "report_file.h"
#include "sigsafe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HEADER 4096u
#define FILE_SIZE (HEADER + FL_BREADCRUMB_SLOTS * FL_BREADCRUMB_SLOT)

static unsigned char *g_map;
static _Atomic pid_t g_owner;  // pid the mapping belongs to (a forked child makes its own); 0 while removed
static pid_t g_removed;        // pid whose file fl_breadcrumb_remove took away (restorable until an exec succeeds)
static _Atomic int g_writers;  // fl_breadcrumb_write calls in progress (the monitor thread's)
static uint32_t g_writes;

static void name_for(char *out, size_t cap, pid_t pid) {
    size_t n = fl_strlcpy(out, "memory-", cap);
    n += fl_fmt_u64(out + n, (uint64_t)pid);
    fl_strlcpy(out + n, ".breadcrumbs", cap - n);
}

static int write_all(int fd, const unsigned char *p, size_t n) {
    for (size_t done = 0; done < n;) {
        ssize_t w = pwrite(fd, p + done, n - done, (off_t)done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return 0;
        done += (size_t)w;
    }
    return 1;
}

static int write_slot(int slot, const char *json, size_t len);

static void put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

// Creates `tmp` in `dir`, new: O_EXCL and O_NOFOLLOW, so a name planted
// there (a link to a file of root's) is never followed nor truncated. A
// leftover of ours (a process killed while making it) is removed once.
static int create_new(int dir, const char *tmp) {
    int flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    int fd = fl_openat_high(dir, tmp, flags, 0600);
    if (fd < 0 && errno == EEXIST && unlinkat(dir, tmp, 0) == 0) fd = fl_openat_high(dir, tmp, flags, 0600);
    return fd;
}

// map_new_file's work, at whatever filesystem ids the thread has. The file
// is made under a temporary name and renamed over the final one, which
// replaces whatever had that name (a planted link included) without
// following it.
static unsigned char *map_new_file_here(pid_t me, const unsigned char *from) {
    int dir = fl_report_dir();  // checks (fstat) that the fd is still the directory's
    if (dir < 0) return 0;
    char name[64], tmp[80] = ".";
    name_for(name, sizeof name, me);
    size_t t = 1 + fl_strlcpy(tmp + 1, name, sizeof tmp - 1);
    fl_strlcpy(tmp + t, ".tmp", sizeof tmp - t);
    int fd = create_new(dir, tmp);
    if (fd < 0) { fl_report_dir_done(dir); return 0; }
    int ready = (posix_fallocate(fd, 0, FILE_SIZE) == 0 || ftruncate(fd, FILE_SIZE) == 0) && (!from || write_all(fd, from, FILE_SIZE));
    void *p = ready ? mmap(0, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    fl_close_high(fd);
    if (p != MAP_FAILED && renameat(dir, tmp, dir, name) != 0) {
        munmap(p, FILE_SIZE);
        p = MAP_FAILED;
    }
    if (p == MAP_FAILED) unlinkat(dir, tmp, 0);
    fl_report_dir_done(dir);
    if (p == MAP_FAILED) return 0;
    // Keep the pages resident, so writing a breadcrumb near the limit does
    // not fault a page back in (best effort: RLIMIT_MEMLOCK may forbid it).
    mlock(p, FILE_SIZE);
    return p;
}

// Makes this process's file in the report directory, its blocks allocated
// now (a write fault later must not need disk space), filled with `from`'s
// FILE_SIZE bytes when given, and maps it. 0 when a step fails; the file is
// then removed again. Runs at the directory's filesystem ids, like a
// report's write: a process at a temporary euid (a child forked after the
// program's seteuid(65534), below `faultline exec`'s 0700 directory as
// root) made no file, and so left no breadcrumb for its OOM kill.
static unsigned char *map_new_file(pid_t me, const unsigned char *from) {
    fl_fs_turn turn;
    fl_report_ids_take(&turn);
    unsigned char *p = map_new_file_here(me, from);
    fl_report_ids_give(&turn);
    return p;
}

int fl_breadcrumb_open(void) {
    pid_t me = getpid();
    if (g_map && g_owner == me) return 0;
    // This image is ending (exit, _exit, an exec in progress): no new file,
    // or one would be left behind; a failed exec restores the old one.
    if (g_map && g_removed == me) return -1;
    if (g_map) { munmap(g_map, FILE_SIZE); g_map = 0; }  // inherited from the parent: not ours
    unsigned char *p = map_new_file(me, 0);
    if (!p) return -1;
    g_map = p;
    g_owner = me;
    g_writes = 0;
    memcpy(g_map, "FLMEMBC1", 8);
    put32(g_map + 8, 1);
    put32(g_map + 12, FL_BREADCRUMB_SLOT);
    put32(g_map + 16, FL_BREADCRUMB_SLOTS);
    put32(g_map + 20, (uint32_t)me);
    return 0;
}

int fl_breadcrumb_write(int slot, const char *json, size_t len) {
    if (slot < 0 || slot >= (int)FL_BREADCRUMB_SLOTS || len > FL_BREADCRUMB_SLOT - 16) return -1;
    // Counted before the owner is checked: fl_breadcrumb_restore waits for
    // writes that saw the old mapping before it unmaps it.
    atomic_fetch_add(&g_writers, 1);
    int rc = g_map && g_owner == getpid() ? write_slot(slot, json, len) : -1;
    atomic_fetch_sub(&g_writers, 1);
    return rc;
}

static int write_slot(int slot, const char *json, size_t len) {
    unsigned char *s = g_map + HEADER + (size_t)slot * FL_BREADCRUMB_SLOT;
    // State goes to "writing" first and "complete" last: a process killed
    // in between leaves a slot the reader skips, never a torn one.
    __atomic_store_n((uint32_t *)s, 1u, __ATOMIC_RELEASE);
    memcpy(s + 16, json, len);
    put32(s + 4, (uint32_t)len);
    put32(s + 8, ++g_writes);
    __atomic_store_n((uint32_t *)s, 2u, __ATOMIC_RELEASE);
    put32(g_map + 24, (uint32_t)slot + 1);
    put32(g_map + 28, g_writes);
    return 0;
}

void fl_breadcrumb_remove(void) {
    pid_t me = getpid();
    if (!g_map || g_owner != me) return;
    // Only the file goes, not the mapping: this runs at exit while the
    // monitor thread still runs, and a breadcrumb it is writing at that
    // moment would fault on an unmapped page (a SIGSEGV at exit, seen in
    // memory-limits.child-oom under load). The mapping ends with the process;
    // later writes see another owner and stop.
    g_removed = me;
    g_owner = 0;
    char name[64];
    name_for(name, sizeof name, me);
    // At the directory's ids, which made the file: a process at a temporary
    // euid could not unlink it from a 0700 directory, and left it behind.
    fl_fs_turn turn;
    fl_report_ids_take(&turn);
    int dir = fl_report_dir();  // checks (fstat) that the fd is still the directory's
    if (dir >= 0) unlinkat(dir, name, 0);
    fl_report_dir_done(dir);
    fl_report_ids_give(&turn);
}

void fl_breadcrumb_restore(void) {
    pid_t me = getpid();
    if (!g_map || g_removed != me || g_owner != 0) return;
    // A write that saw this process as owner before the file went may still
    // be copying into the old mapping: let it finish (the monitor thread
    // never waits for this one, so this ends).
    for (int i = 0; i < 100000 && atomic_load(&g_writers) > 0; i++) fl_sleep_ns(10000);
    // The unlinked file is still mapped: its breadcrumbs go into the new one.
    unsigned char *p = map_new_file(me, g_map);
    if (!p) return;
    unsigned char *old = g_map;
    g_map = p;
    g_removed = 0;
    atomic_store(&g_owner, me);  // writes may start again, into the new mapping
    munmap(old, FILE_SIZE);
}
