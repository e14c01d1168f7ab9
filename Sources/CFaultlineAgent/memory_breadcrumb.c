#include "memory_breadcrumb.h"
#include "report_file.h"
#include "sigsafe.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HEADER 4096u
#define FILE_SIZE (HEADER + FL_BREADCRUMB_SLOTS * FL_BREADCRUMB_SLOT)

static unsigned char *g_map;
static pid_t g_owner;       // pid the mapping belongs to (a forked child makes its own)
static uint32_t g_writes;

static void name_for(char *out, size_t cap, pid_t pid) {
    size_t n = fl_strlcpy(out, "memory-", cap);
    n += fl_fmt_u64(out + n, (uint64_t)pid);
    fl_strlcpy(out + n, ".breadcrumbs", cap - n);
}

static void put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

int fl_breadcrumb_open(void) {
    pid_t me = getpid();
    if (g_map && g_owner == me) return 0;
    if (g_map) { munmap(g_map, FILE_SIZE); g_map = 0; }  // inherited from the parent: not ours
    int dir = fl_report_dir();
    if (dir < 0) return -1;
    char name[64];
    name_for(name, sizeof name, me);
    int fd = openat(dir, name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    // Allocate the blocks now: a write fault later must not need disk space.
    if (posix_fallocate(fd, 0, FILE_SIZE) != 0 && ftruncate(fd, FILE_SIZE) != 0) { close(fd); unlinkat(dir, name, 0); return -1; }
    void *p = mmap(0, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) { unlinkat(dir, name, 0); return -1; }
    // Keep the pages resident, so writing a breadcrumb near the limit does
    // not fault a page back in (best effort: RLIMIT_MEMLOCK may forbid it).
    mlock(p, FILE_SIZE);
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
    if (!g_map || g_owner != getpid() || slot < 0 || slot >= (int)FL_BREADCRUMB_SLOTS) return -1;
    if (len > FL_BREADCRUMB_SLOT - 16) return -1;
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
    g_owner = 0;
    char name[64];
    name_for(name, sizeof name, me);
    int dir = fl_report_dir();  // checks (fstat) that the fd is still the directory's
    if (dir >= 0) unlinkat(dir, name, 0);
}
