// victim-heap's heap overflow, underflow and large-block cases (issue 28):
// each bad access happens in a named, non-inlined function, so a report's
// stacks can be checked by name.
#include "victim_heap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define NOINLINE __attribute__((noinline))

static void *volatile g_keep;

NOINLINE char *victim_alloc_small(size_t n) { return malloc(n); }
NOINLINE void victim_release(void *p) { free(p); }

NOINLINE void victim_write_one_past(char *p, size_t n) { p[n] = 'x'; }
NOINLINE void victim_write_word_past(char *p, size_t n) {
    uint64_t v = 0x1122334455667788ull;
    memcpy(p + n, &v, sizeof v);
}
NOINLINE void victim_copy_too_much(char *dst, const char *src, size_t n) { memcpy(dst, src, n); }
NOINLINE void victim_copy_string(char *dst, const char *src) { strcpy(dst, src); }
NOINLINE void victim_append(char *dst, const char *more) { strcat(dst, more); }
NOINLINE void victim_write_before(char *p, long at, size_t n) { memset(p + at, 0x41, n); }
NOINLINE int victim_read_past(const char *p, size_t n) { return ((volatile const char *)p)[n]; }
NOINLINE int victim_read_int_field(const int *fields, int i) { return ((volatile const int *)fields)[i]; }
NOINLINE void victim_write_far(char *p, size_t at) { ((volatile char *)p)[at] = 1; }

/// A 1-byte write past the end of a 13-byte block, then free.
int heap_overflow_one(void) {
    char *p = victim_alloc_small(13);
    fprintf(stderr, "victim: writing 1 byte past the end of a 13-byte block\n");
    victim_write_one_past(p, 13);
    victim_release(p);
    return 0;
}

/// An 8-byte write past the end of a 24-byte block, then free.
int heap_overflow_word(void) {
    char *p = victim_alloc_small(24);
    fprintf(stderr, "victim: writing 8 bytes past the end of a 24-byte block\n");
    victim_write_word_past(p, 24);
    victim_release(p);
    return 0;
}

/// memcpy of 40 bytes into a 32-byte block, then free.
int heap_overflow_memcpy(void) {
    char src[40];
    memset(src, 'm', sizeof src);
    char *p = victim_alloc_small(32);
    fprintf(stderr, "victim: memcpy of 40 bytes into a 32-byte block\n");
    victim_copy_too_much(p, src, sizeof src);
    victim_release(p);
    return 0;
}

/// strcpy of a 10-character string (11 bytes) into a 10-byte block, then exit
/// without freeing it (the exit check finds it).
int heap_overflow_strcpy(void) {
    char *p = victim_alloc_small(10);
    g_keep = p;
    fprintf(stderr, "victim: strcpy of 11 bytes into a 10-byte block, kept live until exit\n");
    victim_copy_string(p, "0123456789");
    return 0;
}

/// strndup's exact-size copy, appended to, then freed.
int heap_overflow_strndup(void) {
    char *p = strndup("hello, world", 5);
    fprintf(stderr, "victim: appending to a strndup copy of 5 characters\n");
    victim_append(p, "!");
    victim_release(p);
    return 0;
}

/// Two neighbouring 200-byte blocks; 8 bytes written 56 bytes in front of
/// the second, which lands in the end of the first's red zone; the first
/// is freed.
int heap_underflow_neighbour(void) {
    char *a = 0, *b = 0;
    for (int i = 0; i < 64; i++) {
        a = victim_alloc_small(200);
        b = victim_alloc_small(200);
        if ((uintptr_t)b - (uintptr_t)a == 272) break;
    }
    if ((uintptr_t)b - (uintptr_t)a != 272) {
        printf("victim: no neighbouring blocks (%p, %p): is leak tracking on?\n", (void *)a, (void *)b);
        return 2;
    }
    fprintf(stderr, "victim: writing 8 bytes 56 bytes in front of a 200-byte block\n");
    victim_write_before(b, -56, 8);
    victim_release(a);
    victim_release(b);
    return 0;
}

/// A 1-byte write right in front of a 64-byte block (into the shim's
/// header), then free: reported, never followed.
int heap_underflow_header(void) {
    char *p = victim_alloc_small(64);
    fprintf(stderr, "victim: writing 1 byte in front of a 64-byte block\n");
    victim_write_before(p, -1, 1);
    victim_release(p);
    printf("victim: free returned\n");
    return 0;
}

/// The whole 32-byte header in front of a 40-byte block wiped (no tag, no
/// checksum left; run without leak tracking, so no live link), then free, for a block far into its
/// class: past the first 64 KiB span, where a class that does not divide
/// the span starts its slots at another offset from the region's start.
int heap_underflow_header_wiped_far(void) {
    enum { N = 3000 };  // 3000 slots of 96 bytes: five spans
    static char *blocks[N];
    for (int i = 0; i < N; i++) blocks[i] = victim_alloc_small(40);
    char *p = blocks[N - 1];
    fprintf(stderr, "victim: wiping the 32 bytes in front of a 40-byte block\n");
    victim_write_before(p, -32, 32);
    victim_release(p);
    printf("victim: free returned\n");
    for (int i = 0; i < N - 1; i++) victim_release(blocks[i]);
    return 0;
}

/// A 1-byte write 32 bytes past the end of a 4 KiB block (glibc serves it),
/// then free: past a 16-byte red zone that write reached glibc's next chunk
/// header and glibc aborted in free, where the program alone runs on.
int heap_overflow_jump_4k(void) {
    char *p = victim_alloc_small(4096);
    fprintf(stderr, "victim: writing 1 byte 32 bytes past the end of a 4096-byte block\n");
    victim_write_far(p, 4096 + 31);
    victim_release(p);
    printf("victim: free returned\n");
    return 0;
}

/// A 1-byte write right in front of a 64-byte block (into the shim's
/// header), then exit with the block live and never freed: the exit
/// check must report it (no free ever looks at that header).
int heap_underflow_header_live(void) {
    char *p = victim_alloc_small(64);
    fprintf(stderr, "victim: writing 1 byte in front of a live 64-byte block\n");
    // Its complement: a fixed byte was already there once in 256 runs (the
    // tag is bound to the block's address, which ASLR moves).
    p[-1] = (char)~p[-1];
    g_keep = p;
    printf("victim: exiting with the block live\n");
    return 0;
}

/// 16 bytes written 24 to 40 bytes in front of a live 48-byte block (its
/// header and the leak list's links), then exit with the block live: the
/// exit's leak scan must walk the list safely.
int heap_underflow_links(void) {
    char *keep[8];
    for (int i = 0; i < 8; i++) keep[i] = victim_alloc_small(48);
    fprintf(stderr, "victim: writing 16 bytes 40 to 24 bytes in front of a live 48-byte block\n");
    victim_write_before(keep[4], -40, 16);
    g_keep = keep;
    for (int i = 0; i < 8; i++) if (i != 4) victim_release(keep[i]);
    printf("victim: exiting with the block live\n");
    return 0;
}

/// The leak list's links of a live 6000-byte block (glibc's, past the
/// arena) overwritten with the address of a page no longer mapped, then
/// that block freed first, its neighbours after: no free may follow those
/// links (one that read them directly faulted inside the shim).
int heap_underflow_links_big(void) {
    char *keep[8];
    for (int i = 0; i < 8; i++) keep[i] = victim_alloc_small(6000);
    void *gone = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (gone == MAP_FAILED) { perror("victim: mmap"); return 1; }
    munmap(gone, 4096);
    fprintf(stderr, "victim: overwriting the 16 bytes 48 to 32 bytes in front of a live 6000-byte block with %p\n", gone);
    uintptr_t links[2] = {(uintptr_t)gone, (uintptr_t)gone + 64};
    memcpy(keep[4] - 48, links, sizeof links);
    g_keep = keep;
    victim_release(keep[4]);
    for (int i = 0; i < 8; i++) if (i != 4) victim_release(keep[i]);
    printf("victim: every block freed\n");
    return 0;
}

/// A 1-byte read past the end of a 32-byte block (guard mode: a fault).
int heap_read_past_end(void) {
    char *p = victim_alloc_small(32);
    memset(p, 'r', 32);
    fprintf(stderr, "victim: reading 1 byte past the end of a 32-byte block\n");
    int v = victim_read_past(p, 32);
    printf("victim: read %d\n", v);
    victim_release(p);
    return 0;
}

/// A 1-byte read past the end of a 13-byte block: inside the 16-byte
/// rounding a guarded block keeps by default, at the guard page with
/// FAULTLINE_GUARD_ALIGN=1.
int heap_read_past_end_odd(void) {
    char *p = victim_alloc_small(13);
    memset(p, 'r', 13);
    fprintf(stderr, "victim: reading 1 byte past the end of a 13-byte block\n");
    int v = victim_read_past(p, 13);
    printf("victim: read %d\n", v);
    victim_release(p);
    return 0;
}

/// Reads an int field of a freed 32-byte block (guard mode: READ of size 4).
int use_after_free_int(void) {
    int *fields = (int *)victim_alloc_small(32);
    for (int i = 0; i < 8; i++) fields[i] = i;
    victim_release(fields);
    fprintf(stderr, "victim: reading an int field of a freed block\n");
    int v = victim_read_int_field(fields, 3);
    printf("victim: read %d\n", v);
    return 0;
}

/// Writes 64 KiB into a freed 256 KiB block.
int use_after_free_large(void) {
    char *p = victim_alloc_small(256u << 10);
    memset(p, 'L', 256u << 10);
    victim_release(p);
    fprintf(stderr, "victim: writing 64 KiB into a freed 256 KiB block\n");
    victim_write_far(p, 64u << 10);
    printf("victim: the write went through\n");
    return 0;
}

/// Frees a 130 KiB block, then 1024 blocks of 136 KiB (all allocated first,
/// so none is placed where the first was), then the first again.
int double_free_after_large_frees(void) {
    enum { N = 1024 };
    static char *others[N];
    char *p = victim_alloc_small(130u << 10);
    victim_release(p);
    for (int i = 0; i < N; i++) others[i] = victim_alloc_small(136u << 10);
    for (int i = 0; i < N; i++) victim_release(others[i]);
    fprintf(stderr, "victim: freeing a 130 KiB block again after 1024 large frees\n");
    free(p);
    return 1;
}

/// A 1-byte write 64 bytes in front of a 32-byte block (past its header:
/// guard mode with FAULTLINE_GUARD_SIDE=left faults there).
int heap_underflow_far(void) {
    char *p = victim_alloc_small(32);
    fprintf(stderr, "victim: writing 1 byte 64 bytes in front of a 32-byte block\n");
    victim_write_before(p, -64, 1);
    victim_release(p);
    return 0;
}

// Flips a byte `back` bytes in front of `p` in place (the pointer stays in
// a register beside the computed address, as compiled code keeps it).
NOINLINE void victim_flip_before(char *p, long back) { ((volatile char *)p)[-back] ^= 0x41; }

/// A 1-byte write 1 MiB in front of a 32-byte block, then free (guard
/// mode: in front of the first blocks, the guarded range's moat).
int heap_underflow_mbyte(void) {
    char *p = victim_alloc_small(32);
    fprintf(stderr, "victim: flipping 1 byte 1 MiB in front of a 32-byte block\n");
    victim_flip_before(p, 1l << 20);
    victim_release(p);
    return 0;
}

/// A 1-byte flip 1 MiB past the end of a 32-byte block allocated last,
/// then free (guard mode: past every block handed out, still in the range).
int heap_overflow_mbyte(void) {
    char *p = victim_alloc_small(32);
    fprintf(stderr, "victim: flipping 1 byte 1 MiB past the start of a 32-byte block\n");
    victim_flip_before(p, -(1l << 20));
    victim_release(p);
    return 0;
}

/// Two 8-byte blocks side by side; the second freed (straight back to the
/// arena with FAULTLINE_QUARANTINE_BYTES=0), then a byte written through
/// the first 24 bytes in front of the second, past the first's red zone,
/// into the free slot's bytes; then an 8-byte block takes that slot again.
int heap_overflow_free_slot(void) {
    char *a = victim_alloc_small(8);
    char *b = victim_alloc_small(8);
    long d = b - a;
    victim_release(b);
    fprintf(stderr, "victim: writing 1 byte %ld past the end of an 8-byte block, into the free slot after it\n", d - 24 - 8);
    victim_write_before(a, d - 24, 1);
    char *c = victim_alloc_small(8);
    victim_release(c);
    victim_release(a);
    return 0;
}

/// 2000 32-byte blocks, each read 1 byte past its end and freed: under
/// FAULTLINE_GUARD=sample:N (N up to 1000) one of them is sampled, and
/// that read faults.
int heap_read_past_end_many(void) {
    long sum = 0;
    fprintf(stderr, "victim: reading 1 byte past the end of 2000 blocks\n");
    for (int i = 0; i < 2000; i++) {
        char *p = victim_alloc_small(32);
        memset(p, 1, 32);
        sum += victim_read_past(p, 32);
        victim_release(p);
    }
    printf("victim: no read faulted (sum %ld)\n", sum);
    return 0;
}

struct item {
    struct item *next;
    long value;
    char name[16];
};

NOINLINE void victim_fill_past(char *p, size_t n) { memset(p, 0x41, n); }
NOINLINE long victim_follow(struct item *it) { return it->next->value; }

/// Two neighbouring 32-byte blocks; a memset from the first runs over its
/// red zone, the second's header and its `next` field; following `next`
/// crashes (a general-protection fault at 0x4141…).
int heap_overflow_crash(void) {
    char *a = 0;
    struct item *b = 0;
    for (int i = 0; i < 64; i++) {
        a = victim_alloc_small(32);
        b = (struct item *)victim_alloc_small(sizeof *b);
        if ((uintptr_t)b > (uintptr_t)a && (uintptr_t)b - (uintptr_t)a <= 128) break;
    }
    b->next = b;
    fprintf(stderr, "victim: overflowing a 32-byte block over its neighbour, then following the neighbour's pointer\n");
    victim_fill_past(a, (size_t)((char *)b - a) + sizeof b->next);
    long v = victim_follow(b);
    printf("victim: followed (%ld)\n", v);
    return 0;
}
