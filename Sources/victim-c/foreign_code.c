// crash-in-anonymous-code: a JIT's way of running code, beside a copy of
// part of its own executable mapped elsewhere (node maps its builtins again
// near its JIT code). The fault is in anonymous memory between the two:
// no image holds it, so the report must name none.
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

extern char _end;  // the end of the executable's bss

void victim_crash_in_anonymous_code(void) {
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    long page = sysconf(_SC_PAGESIZE);
    // 64 GiB past the executable, far beyond its heap and below the
    // libraries: the code there, then a page of our own file (past its
    // header) right above it, so that /proc/self/maps lists the copy next
    // after the executable's own mappings, with the code in between.
    uintptr_t at = ((uintptr_t)&_end + (1ull << 36)) & ~(uintptr_t)(page - 1);
    unsigned char *code = mmap((void *)at, (size_t)page, PROT_READ | PROT_WRITE | PROT_EXEC,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    void *copy = fd < 0 ? MAP_FAILED : mmap((void *)(at + (uintptr_t)page), (size_t)page, PROT_READ | PROT_EXEC,
                                            MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, page);
    if (copy == MAP_FAILED || code == MAP_FAILED) { perror("victim: mmap"); exit(3); }
    code[0] = 0x0f, code[1] = 0x0b;  // ud2
    fprintf(stderr, "victim: running anonymous code at %p, below a copy of our text at %p\n", (void *)code, copy);
    ((void (*)(void))code)();
}
