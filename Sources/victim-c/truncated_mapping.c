// victim-c truncated-mapping: two files mapped at offset 0, one shared and
// one private, then cut to 0 bytes, as another writer shortens a data file
// under a reader's mapping: touching either mapping now raises SIGBUS.
// A block is lost, and then the program exits normally or (crash) stores
// through NULL. The crash handler and the malloc shim's checks at exit
// list the process's images from its mappings: they must not touch these.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

// Maps `path` (8 KiB, made here) with `flags`, then truncates the file.
static void map_then_truncate(const char *path, int flags) {
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || ftruncate(fd, 8192) != 0) { perror(path); exit(2); }
    if (mmap(0, 8192, PROT_READ, flags, fd, 0) == MAP_FAILED) { perror("mmap"); exit(2); }
    if (ftruncate(fd, 0) != 0) { perror("ftruncate"); exit(2); }
    close(fd);
}

NOINLINE static void crash_beside_truncated_mappings(void) { *(volatile int *)0 = 1; }

int victim_truncated_mapping(const char *how) {
    map_then_truncate("truncated-shared.bin", MAP_SHARED);
    map_then_truncate("truncated-private.bin", MAP_PRIVATE);
    volatile char *lost = malloc(61);
    lost[0] = 1;
    lost = 0;
    printf("victim: two mapped files cut to 0 bytes, a 61-byte block lost\n");
    fflush(stdout);
    if (how && how[0] == 'c') crash_beside_truncated_mappings();
    return 0;
}
