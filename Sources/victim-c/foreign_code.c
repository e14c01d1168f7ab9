// crash-in-anonymous-code: a JIT's way of running code, beside a copy of
// part of its own executable mapped elsewhere (node maps its builtins again
// near its JIT code). The fault is in anonymous memory between the two:
// no image holds it, so the report must name none. crash-in-copied-code:
// the fault in such a copy, which the report names as the file's code.
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

/// Stores through `p`: position-independent, so a copy of its page runs.
__attribute__((noinline)) void victim_copied_store(volatile int *p) { *p = 1; }

// The start and file offset of the mapping of our own file that holds `at`.
static int mapping_of(uintptr_t at, uintptr_t *start, uintptr_t *offset) {
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return 0;
    char line[512];
    int found = 0;
    while (!found && fgets(line, sizeof line, maps)) {
        unsigned long lo, hi, off;
        if (sscanf(line, "%lx-%lx %*s %lx", &lo, &hi, &off) == 3 && at >= lo && at < hi) {
            *start = lo, *offset = off;
            found = 1;
        }
    }
    fclose(maps);
    return found;
}

// crash-in-copied-code: a copy of the page of our own text that holds
// victim_copied_store, mapped 64 GiB past the executable (as node maps its
// builtins again near its JIT code), and the store run from the copy with
// NULL: the fault is in the copy, which the report names as our code.
void victim_crash_in_copied_code(void) {
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t fn = (uintptr_t)victim_copied_store, start, offset;
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || !mapping_of(fn, &start, &offset)) { perror("victim: our own text"); exit(3); }
    uintptr_t page_of_fn = fn & ~(uintptr_t)(page - 1);
    uintptr_t at = (((uintptr_t)&_end + (1ull << 36)) & ~(uintptr_t)(page - 1)) + (1u << 20);
    // Two pages, should the function cross into the next.
    void *copy = mmap((void *)at, 2 * (size_t)page, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd,
                      (off_t)(offset + (page_of_fn - start)));
    if (copy == MAP_FAILED) { perror("victim: mmap"); exit(3); }
    void (*copied)(volatile int *) = (void (*)(volatile int *))(at + (fn - page_of_fn));
    fprintf(stderr, "victim: storing through NULL from a copy of our text at %p\n", copy);
    copied(0);
}
