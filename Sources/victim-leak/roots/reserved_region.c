#include "reserved_region.h"
#include "../leak_sites.h"
#include "victim_leak_check.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// Pages of [p, p + len) that /proc/self/pagemap says are present or swapped
// out, or -1.
static long touched_pages(const char *p, size_t len) {
    long page = sysconf(_SC_PAGESIZE), n = 0;
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    for (size_t off = 0; off < len; off += (size_t)page) {
        unsigned long long e;
        if (pread(fd, &e, sizeof e, (off_t)(((uintptr_t)p + off) / (uintptr_t)page * sizeof e)) != sizeof e) { n = -1; break; }
        if (e >> 62) n++;
    }
    close(fd);
    return n;
}

int victim_reserved_region(void) {
    victim_leak_check_fn check = victim_leak_check_needed();
    if (!check) return 2;
    size_t len = 64u << 20;
    long page = sysconf(_SC_PAGESIZE);
    char *r = mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED) { perror("victim: mmap"); return 2; }
    void *kept = malloc(555);
    memcpy(r + len / 2 + 64, &kept, sizeof kept);  // the block's only pointer, in the one touched page
    kept = 0;
    // The file is written with write(), so the mapping's page is never
    // touched in this process: its contents are the file's.
    int fd = open("pointer-file", O_RDWR | O_CREAT | O_TRUNC, 0600);
    char buf[128] = {0};
    void *in_file = malloc(444);
    memcpy(buf + 64, &in_file, sizeof in_file);
    in_file = 0;
    if (fd < 0 || write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) { perror("victim: pointer-file"); return 2; }
    memset(buf, 0, sizeof buf);
    char *f = mmap(0, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (f == MAP_FAILED) { perror("victim: mmap pointer-file"); return 2; }
    close(fd);
    leak_77();
    victim_clear_stack();
    long before = touched_pages(r, len);
    long lost = check();
    long after = touched_pages(r, len);
    printf("victim: on-demand check: %ld lost; %ld of %zu pages of the reserved region touched before it, %ld after\n",
           lost, before, len / (size_t)page, after);
    return 0;
}
