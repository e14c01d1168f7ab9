// victim-heap: one heap fault per subcommand, for the malloc shim's
// scenarios. Allocation, free and the bad access each happen in a named,
// non-inlined function so a report's stacks can be checked by name. The
// program links nothing of Faultline: the shim is injected with LD_PRELOAD.
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "victim_cases.h"
#include "victim_fds.h"
#include "victim_heap.h"
#include "victim_suppressions.h"
#include "victim_threads.h"

#define NOINLINE __attribute__((noinline))

/// A list node: 48 bytes, `next` at offset 8.
struct node {
    long value;
    struct node *next;
    char name[32];
};

/// A record written from another thread: 64 bytes.
struct record {
    long id;
    long flags;
    long counter;  // offset 16
    char payload[40];
};

// Keeps pointers opaque to the optimiser.
static void *volatile g_sink;

NOINLINE struct node *victim_new_node(long value, size_t size) {
    struct node *n = malloc(size);
    n->value = value;
    n->next = NULL;
    snprintf(n->name, sizeof n->name, "node-%ld", value);
    return n;
}

NOINLINE struct node *victim_build_list(int count) {
    struct node *head = NULL;
    for (int i = count - 1; i >= 0; i--) {
        struct node *n = victim_new_node(i, sizeof(struct node));
        n->next = head;
        head = n;
    }
    return head;
}

NOINLINE void victim_free_list(struct node *head) {
    while (head) {
        struct node *next = head->next;
        free(head);
        head = next;
    }
}

// Walks a list through a pointer that is already dangling: the first
// node's `next` now reads 0x5555555555555555, and the next load faults.
NOINLINE void victim_free_node(struct node *n) { free(n); }

NOINLINE long victim_walk_list(struct node *head) {
    long sum = 0;
    for (struct node *n = head; n; n = n->next) sum += n->next->value;
    return sum;
}

static int read_after_free_list(void) {
    struct node *head = victim_build_list(8);
    victim_free_list(head);
    fprintf(stderr, "victim: walking a freed linked list\n");
    long s = victim_walk_list(head);
    printf("sum %ld\n", s);
    return 1;
}

NOINLINE struct record *victim_alloc_record(void) {
    struct record *r = malloc(sizeof *r);
    memset(r, 0, sizeof *r);
    r->id = 7;
    return r;
}

NOINLINE void victim_release_record(struct record *r) { free(r); }

NOINLINE void *victim_stale_writer(void *arg) {
    struct record *r = arg;
    r->counter = 0x1122334455667788;  // 8 bytes at offset 16, after free
    return NULL;
}

// Frees small blocks so the quarantine moves on (with a small
// FAULTLINE_QUARANTINE_COUNT the stale record leaves it here).
NOINLINE void victim_churn(int count) {
    for (int i = 0; i < count; i++) {
        void *p = malloc(32);
        g_sink = p;
        free(p);
    }
}

static int write_after_free_thread(void) {
    struct record *r = victim_alloc_record();
    victim_release_record(r);
    fprintf(stderr, "victim: writing into a freed record from another thread\n");
    pthread_t t;
    pthread_create(&t, NULL, victim_stale_writer, r);
    pthread_join(t, NULL);
    victim_churn(64);
    printf("victim: exiting normally\n");
    return 0;
}

NOINLINE void *victim_alloc_buffer(size_t n) { return malloc(n); }
// A worker frees a record and stays alive, so the block is still in the
// worker's collected batch (not yet in the quarantine ring) when main
// writes into it and returns; a second record, freed by main, is written
// too: the exit check must report both before the process halts.
static pthread_mutex_t g_freed_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_freed_cond = PTHREAD_COND_INITIALIZER;
static int g_freed;

NOINLINE void *victim_free_and_stay(void *arg) {
    victim_release_record(arg);
    pthread_mutex_lock(&g_freed_lock);
    g_freed = 1;
    pthread_cond_signal(&g_freed_cond);
    pthread_mutex_unlock(&g_freed_lock);
    for (;;) pause();
    return NULL;
}

NOINLINE void victim_write_stale(struct record *r, long value) { r->counter = value; }

// Frees a record, then 100 small blocks, and only then writes into the
// record: caught only if the quarantine still holds it (with a budget too
// small for its ring it would have been released long before).
static int write_after_free_late(void) {
    struct record *r = victim_alloc_record();
    victim_release_record(r);
    victim_churn(100);
    victim_stale_writer(r);
    printf("victim: exiting normally\n");
    return 0;
}

// The list's first node leaves a 4-block quarantine (8 frees of another
// size follow it) before it is walked: the crash must name that node, now
// released, and not a still-quarantined block whose address is on the stack.
NOINLINE void *victim_alloc_other(size_t n) { return malloc(n); }

static int read_after_release(void) {
    struct node *head = victim_build_list(2);
    victim_free_node(head);
    void *volatile others[8];
    for (int i = 0; i < 8; i++) { others[i] = victim_alloc_other(200); memset(others[i], 1, 200); }
    for (int i = 0; i < 8; i++) free(others[i]);
    fprintf(stderr, "victim: walking a list whose first node left the quarantine\n");
    return (int)victim_walk_list(head);
}

static int write_after_free_pending(void) {
    struct record *mine = victim_alloc_record(), *theirs = victim_alloc_record();
    pthread_t t;
    pthread_create(&t, NULL, victim_free_and_stay, theirs);
    pthread_mutex_lock(&g_freed_lock);
    while (!g_freed) pthread_cond_wait(&g_freed_cond, &g_freed_lock);
    pthread_mutex_unlock(&g_freed_lock);
    victim_release_record(mine);
    victim_write_stale(theirs, 0x1122334455667788);
    victim_write_stale(mine, 0x0102030405060708);
    printf("victim: exiting with a worker still alive\n");
    return 0;
}

NOINLINE void victim_free_once(void *p) { free(p); }
NOINLINE void victim_free_again(void *p) { free(p); }
NOINLINE void *victim_grow_big(void *p) { return realloc(p, 4u << 20); }

static int double_free(void) {
    void *p = victim_alloc_buffer(40);
    victim_free_once(p);
    fprintf(stderr, "victim: freeing a block twice\n");
    victim_free_again(p);
    printf("victim: the second free returned\n");
    return 1;
}

// A program that has used up its fds (an fd leak) frees two blocks twice:
// each report needs fds of its own (the maps, the report's file). Run with
// FAULTLINE_HALT_ON_ERROR=0, so that both are reported.
static int double_free_out_of_fds(void) {
    int n = victim_use_up_fds();
    printf("victim: opened %d fds until %s\n", n, errno == EMFILE ? "EMFILE" : "another error");
    double_free();
    double_free();
    victim_release_fds();
    return 0;
}

static void *double_free_worker(void *unused) {
    if (!victim_main_thread_gone()) fprintf(stderr, "victim: the main thread did not end within 5 s\n");
    double_free();
    return 0;
}

// The double free on a worker after the main thread has left with
// pthread_exit: the shim reads the block's header through the kernel, by
// the pid, whose task has no memory once the main thread has ended.
static int double_free_after_main(void) {
    pthread_t t;
    pthread_create(&t, 0, double_free_worker, 0);
    pthread_exit(0);
}

// The same double free with each free on a line of its own and code after
// it: frame 0 of the free stacks (the return address of the call to free)
// names the free's line only when it is looked up as a return address, one
// byte back inside the call, and the next line otherwise. FaultlineTests
// find these lines by their markers.
NOINLINE void victim_free_first(void *p) {
    free(p);  // [double-free-lines: first free]
    g_sink = NULL;
}

NOINLINE void victim_free_second(void *p) {
    free(p);  // [double-free-lines: second free]
    g_sink = NULL;
}

static int double_free_lines(void) {
    void *p = victim_alloc_buffer(40);
    victim_free_first(p);
    fprintf(stderr, "victim: freeing a block twice, each free on a line of its own\n");
    victim_free_second(p);
    printf("victim: the second free returned\n");
    return 1;
}

// The first free's block leaves a small quarantine (8 other frees of a
// different size, so glibc does not hand its memory out again) before the
// second free.
static int double_free_released(void) {
    void *p = victim_alloc_buffer(40);
    victim_free_once(p);
    for (int i = 0; i < 8; i++) free(malloc(1000));
    fprintf(stderr, "victim: freeing a block again after 8 other frees\n");
    victim_free_again(p);
    return 1;
}

// A block bigger than the whole quarantine budget leaves it at once, and
// glibc unmaps it (blocks of 128 KiB and more are mappings of their own):
// the second free finds no header to read.
static int double_free_unmapped(void) {
    char *p = victim_alloc_buffer(32u << 20);
    p[0] = 1;
    victim_free_once(p);
    fprintf(stderr, "victim: freeing a 32 MiB block again after glibc unmapped it\n");
    victim_free_again(p);
    return 1;
}

// A block grown by realloc to 4 MiB (from glibc's heap under the shim)
// leaves a 2 MB quarantine at once and goes back to glibc behind a live
// block; a 5 MiB allocation, which it cannot serve, has glibc file it in a
// large bin, whose links overwrite the shim's header in front of it: the
// second free finds no header of ours there.
static int double_free_released_big(void) {
    char *p = victim_grow_big(victim_alloc_buffer(64));
    char *behind = malloc(5000);
    p[0] = 1;
    victim_free_once(p);
    char *bigger = malloc(5u << 20);
    fprintf(stderr, "victim: freeing a 4 MiB block again after glibc filed its memory in a bin\n");
    victim_free_again(p);
    free(bigger);
    free(behind);
    return 1;
}

// Frees the top of the heap (last block first), pushes it all out of the
// quarantine, and has glibc give the heap's top back to the kernel: the
// second free points at memory that is no longer mapped.
static int double_free_trimmed(void) {
    enum { N = 4000 };
    static char *blocks[N];
    for (int i = 0; i < N; i++) blocks[i] = malloc(3000);
    for (int i = N - 1; i >= 0; i--) free(blocks[i]);
    // 8 MB of frees the shim serves from its own arena (1 KiB or less), so
    // they push the 3000-byte blocks out of the quarantine without taking
    // glibc heap memory that would pin its top (100 KB blocks did, at times).
    for (int i = 0; i < 8192; i++) free(malloc(1000));
    malloc_trim(0);
    // The lowest block wholly above the new break: the break is rounded to a
    // page, so the last block may share the page that stays (it did when
    // other allocations shifted the heap by a few hundred bytes). "Wholly"
    // counts what lies in front of the pointer: the shim's 32-byte header
    // and 16 bytes of list links, and glibc's 16-byte chunk header.
    enum { IN_FRONT = 64 };
    uintptr_t brk_now = (uintptr_t)sbrk(0);
    char *gone = 0;
    for (int i = 0; i < N; i++)
        if ((uintptr_t)blocks[i] - IN_FRONT >= brk_now && (!gone || blocks[i] < gone)) gone = blocks[i];
    if (!gone) {
        fprintf(stderr, "victim: glibc did not give the heap's top back (break %p, last block %p)\n", (void *)brk_now, (void *)blocks[N - 1]);
        return 3;
    }
    fprintf(stderr, "victim: freeing a block again after its heap memory was given back\n");
    victim_free_again(gone);
    return 1;
}

NOINLINE void *victim_grow(void *p) { return realloc(p, 4096); }
NOINLINE void victim_free_stale(void *p) { free(p); }

static int realloc_double_free(void) {
    char *p = victim_alloc_buffer(24);
    strcpy(p, "short");
    char *q = victim_grow(p);
    g_sink = q;
    fprintf(stderr, "victim: freeing the pointer realloc moved away from\n");
    victim_free_stale(p);
    free(q);
    return 1;
}

NOINLINE void victim_free_interior(char *p) { free(p + 16); }

static int invalid_free_interior(void) {
    char *p = victim_alloc_buffer(64);
    fprintf(stderr, "victim: freeing a pointer into the middle of a block\n");
    victim_free_interior(p);
    printf("victim: the invalid free returned\n");
    return 1;
}

NOINLINE void victim_free_deep_interior(char *p) { free(p + (2u << 20)); }

// 2 MiB into a 4 MiB block: further than the backward header scan goes.
static int invalid_free_deep(void) {
    char *p = victim_alloc_buffer(4u << 20);
    fprintf(stderr, "victim: freeing a pointer 2 MiB into a 4 MiB block\n");
    victim_free_deep_interior(p);
    return 1;
}

static long g_not_heap[8];

NOINLINE void victim_free_global(void) { free(&g_not_heap[2]); }

// The same in a block grown by realloc to 4 MiB, which under the shim
// comes from glibc's heap, not from a mapping of its own.
static int invalid_free_deep_grown(void) {
    char *p = victim_grow_big(victim_alloc_buffer(64));
    fprintf(stderr, "victim: freeing a pointer 2 MiB into a 4 MiB block grown by realloc\n");
    victim_free_deep_interior(p);
    return 1;
}

static int invalid_free_global(void) {
    fprintf(stderr, "victim: freeing a global variable\n");
    victim_free_global();
    return 1;
}

// Frees 16 nodes in order (the last one larger), with a quarantine of a
// few blocks: the oldest leave it and are reused by new allocations, the
// newest are still held, and a read through the newest faults.
static int quarantine_overflow(void) {
    struct node *nodes[16];
    for (int i = 0; i < 16; i++) nodes[i] = victim_new_node(i, i == 15 ? 80 : sizeof(struct node));
    for (int i = 0; i < 16; i++) nodes[i]->next = i + 1 < 16 ? nodes[i + 1] : NULL;
    for (int i = 0; i < 16; i++) victim_free_node(nodes[i]);
    int reused_oldest = 0, reused_newest = 0;
    void *fresh[16];
    for (int i = 0; i < 16; i++) {
        fresh[i] = malloc(sizeof(struct node));
        for (int k = 0; k < 4; k++) if (fresh[i] == nodes[k]) reused_oldest = 1;
        if (fresh[i] == nodes[15] || fresh[i] == nodes[14]) reused_newest = 1;
    }
    g_sink = fresh;
    printf("victim: oldest freed blocks reused: %s; newest reused: %s\n", reused_oldest ? "yes" : "no", reused_newest ? "yes" : "no");
    fflush(stdout);
    fprintf(stderr, "victim: reading through the newest freed node\n");
    long s = victim_walk_list(nodes[15]);
    printf("sum %ld\n", s);
    return 1;
}

NOINLINE long victim_read_uninitialized(void) {
    struct node *n = malloc(sizeof *n);
    g_sink = n;
    return n->next->value;  // next was never written: 0xAAAAAAAAAAAAAAAA
}

static int uninitialized_pointer(void) {
    fprintf(stderr, "victim: following a pointer that was never initialised\n");
    printf("%ld\n", victim_read_uninitialized());
    return 1;
}

// A correct program: many sizes, realloc growth, calloc, aligned blocks,
// frees from another thread, fork. Prints a checksum that must not change
// under the shim.
static void *free_from_thread(void *arg) {
    void **blocks = arg;
    for (int i = 0; i < 1000; i++) free(blocks[i]);
    return NULL;
}

static int all_bytes(const void *p, int byte, size_t n) {
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) if (c[i] != byte) return 0;
    return 1;
}

// Resident memory now, in KiB.
static long resident_kib(void) {
    long size = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return -1;
    int ok = fscanf(f, "%ld %ld", &size, &resident) == 2;
    fclose(f);
    return ok ? resident * (sysconf(_SC_PAGESIZE) / 1024) : -1;
}

// A program whose sizes shift: 300000 blocks of 200 bytes, all freed, then
// 300000 of 400. The second phase must reuse (or the allocator give back)
// the first phase's memory: growing by less than 80 % of its own bytes.
static int phase_shift(void) {
    enum { N = 300000, A = 200, B = 400 };
    static void *blocks[N];
    for (int i = 0; i < N; i++) { blocks[i] = malloc(A); memset(blocks[i], 1, A); }
    long after_a = resident_kib();
    for (int i = 0; i < N; i++) free(blocks[i]);
    for (int i = 0; i < N; i++) { blocks[i] = malloc(B); memset(blocks[i], 2, B); }
    long after_b = resident_kib();
    // Blocks of the first size again, most from memory that was given back:
    // calloc's are zeros, malloc's are filled.
    static void *again[N / 2];
    int fresh_ok = 1;
    for (int i = 0; i < N / 2; i++) {
        again[i] = i % 2 ? calloc(1, A) : malloc(A);
        fresh_ok &= all_bytes(again[i], i % 2 ? 0 : 0xAA, A);
    }
    for (int i = 0; i < N / 2; i++) free(again[i]);
    for (int i = 0; i < N; i++) free(blocks[i]);
    if (!fresh_ok) {
        printf("victim: a block from reused memory did not read as zeros (calloc) or the fill (malloc)\n");
        return 1;
    }
    long grew = after_b - after_a, own = (long)N * B / 1024;
    printf("victim: resident %ld KiB after the first phase, %ld KiB after the second (+%ld KiB for %ld KiB of blocks)\n", after_a, after_b, grew, own);
    if (after_a < 0 || grew >= own * 8 / 10) {
        printf("victim: the second phase kept the first phase's memory\n");
        return 1;
    }
    printf("victim: the second phase reused the first phase's memory\n");
    return 0;
}

static void *big_blocks(void *arg) {
    for (int i = 0; i < 1000; i++) {
        void *p = malloc(4096 + (size_t)i);
        memset(p, 3, 4096);
        free(p);
    }
    return arg;
}

// How many glibc arenas serve the process after 4 threads allocated blocks
// too big for the shim's arena (malloc_info lists one <heap> per arena).
static int glibc_arenas(void) {
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, big_blocks, NULL);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    char *xml = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&xml, &len);
    if (!f || malloc_info(0, f) != 0) return 2;
    fclose(f);
    int heaps = 0;
    for (const char *p = xml; (p = strstr(p, "<heap nr=")); p++) heaps++;
    free(xml);
    printf("victim: glibc arenas: %d (%s)\n", heaps, heaps == 1 ? "one" : "several");
    return 0;
}

static int clean_workload(void) {
    unsigned long sum = 0;
    void **blocks = malloc(1000 * sizeof *blocks);
    for (int i = 0; i < 1000; i++) {
        size_t n = 1 + (size_t)(i * 37) % 3000;
        unsigned char *p = i % 3 ? malloc(n) : calloc(n, 1);
        memset(p, i & 0xff, n);
        sum += p[n - 1];
        blocks[i] = p;
    }
    pthread_t t;
    pthread_create(&t, NULL, free_from_thread, blocks);
    pthread_join(t, NULL);
    free(blocks);
    char *s = NULL;
    size_t len = 0;
    for (int i = 0; i < 500; i++) {
        s = realloc(s, len + 8);
        len += (size_t)snprintf(s + len, 8, "%d,", i % 100);
    }
    for (size_t i = 0; i < len; i++) sum += (unsigned char)s[i];
    free(s);
    void *a = NULL;
    if (posix_memalign(&a, 256, 1000) != 0 || ((uintptr_t)a & 255)) return 3;
    void *b = aligned_alloc(4096, 8192);
    if ((uintptr_t)b & 4095) return 3;
    if (malloc_usable_size(a) < 1000 || malloc_usable_size(b) < 8192) return 3;
    free(a);
    free(b);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        void *c = malloc(100);
        free(c);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("victim: checksum %lu, child exit %d\n", sum, status);
    return 0;
}

// The shim's observable contract, checked from inside a program: patterns,
// alignment, sizes, errors, realloc moving, cross-thread frees, fork.
// Prints the first broken expectation and exits 1; run it with the shim.
#define EXPECT(cond) do { if (!(cond)) { printf("victim: api check failed: %s (line %d)\n", #cond, __LINE__); return 1; } } while (0)


static void *cross_free(void *arg) {
    void **blocks = arg;
    for (int i = 0; i < 256; i++) free(blocks[i]);
    for (int i = 0; i < 256; i++) free(malloc(24));  // collected by this thread, flushed at its exit
    return NULL;
}

// Fill and scribble patterns, and realloc moving the block.
static int check_patterns(void) {
    unsigned char *p = malloc(100);
    EXPECT(p && ((uintptr_t)p & 15) == 0);
    EXPECT(all_bytes(p, 0xAA, 100));
    EXPECT(malloc_usable_size(p) == 100);
    memset(p, 7, 100);
    unsigned char *q = realloc(p, 300);
    EXPECT(q != p);                       // realloc always moves
    EXPECT(all_bytes(q, 7, 100) && all_bytes(q + 100, 0xAA, 200));
    EXPECT(all_bytes(p, 0x55, 100));      // the old block is scribbled (deliberate read after free)
    free(q);
    EXPECT(all_bytes(q, 0x55, 300));
    unsigned char *big = malloc(10000);
    EXPECT(all_bytes(big, 0xAA, 4096));   // FAULTLINE_FILL_LIMIT
    free(big);
    EXPECT(all_bytes(big, 0x55, 4096));   // FAULTLINE_SCRIBBLE_LIMIT (under 64 KiB: not page-protected)
    unsigned char *z = calloc(50, 4);
    EXPECT(z && all_bytes(z, 0, 200));
    free(z);
    return 0;
}

// Edge sizes and the errors glibc gives for impossible requests.
static int check_sizes_and_errors(void) {
    EXPECT(realloc(NULL, 10) != NULL);
    void *r = malloc(10);
    EXPECT(realloc(r, 0) == NULL);
    void *m0 = malloc(0), *m1 = malloc(0);
    EXPECT(m0 && m1 && m0 != m1);
    free(m0);
    free(m1);
    errno = 0;
    EXPECT(calloc(SIZE_MAX / 2, 4) == NULL && errno == ENOMEM);
    errno = 0;
    EXPECT(malloc(SIZE_MAX - 8) == NULL && errno == ENOMEM);
    errno = 0;
    EXPECT(reallocarray(NULL, SIZE_MAX / 2, 4) == NULL && errno == ENOMEM);
    return 0;
}

// Every aligned allocator, at every power of two up to 64 KiB.
static int check_alignment(void) {
    for (size_t align = 8; align <= 65536; align *= 2) {
        void *a = NULL;
        EXPECT(posix_memalign(&a, align, 40) == 0 && ((uintptr_t)a % align) == 0);
        EXPECT(malloc_usable_size(a) == 40);
        free(a);
        void *b = aligned_alloc(align, 3 * align);
        EXPECT(b && ((uintptr_t)b % align) == 0);
        free(b);
        void *c = memalign(align, 1);
        EXPECT(c && ((uintptr_t)c % align) == 0);
        free(c);
    }
    void *bad = NULL;
    EXPECT(posix_memalign(&bad, 24, 10) == EINVAL && posix_memalign(&bad, 4, 10) == EINVAL);
    // The errors glibc gives for alignments no block can have.
    size_t top = (size_t)1 << 63;
    errno = 0;
    EXPECT(memalign(top, 16) == NULL && errno == ENOMEM);
    errno = 0;
    EXPECT(aligned_alloc(top + 1, 16) == NULL && errno == EINVAL);
    errno = 0;
    EXPECT(memalign((top >> 1) + 1, 16) == NULL && errno == ENOMEM);
    long page = sysconf(_SC_PAGESIZE);
    void *v = valloc(10), *pv = pvalloc(1);
    EXPECT(((uintptr_t)v % (uintptr_t)page) == 0 && ((uintptr_t)pv % (uintptr_t)page) == 0);
    EXPECT(malloc_usable_size(pv) == (size_t)page);
    free(v);
    free(pv);
    EXPECT(malloc_usable_size(NULL) == 0);
    free(NULL);
    return 0;
}

// Cross-thread frees and fork.
static int check_threads_and_fork(void) {
    // Blocks freed by threads that did not allocate them, 8 threads at once.
    pthread_t t[8];
    void *blocks[8][256];
    for (int k = 0; k < 8; k++) {
        for (int i = 0; i < 256; i++) blocks[k][i] = malloc((size_t)(16 + i * k));
        pthread_create(&t[k], NULL, cross_free, blocks[k]);
    }
    for (int k = 0; k < 8; k++) pthread_join(t[k], NULL);
    // fork: both sides keep allocating; the child checks the patterns too.
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        unsigned char *c = malloc(64);
        int ok = all_bytes(c, 0xAA, 64);
        free(c);
        _exit(ok && all_bytes(c, 0x55, 64) ? 0 : 1);
    }
    void *after = malloc(64);
    free(after);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return 0;
}

// Every size at once, and memory that came back from the quarantine.
static int check_every_size_and_reuse(void) {
    // Every size up to past the arena's largest class at once, each block
    // filled with its own byte: a class that handed out overlapping blocks
    // would show here as a changed byte (and as a write_after_free report).
    enum { SIZES = 5000 };
    static unsigned char *each[SIZES];
    for (int i = 0; i < SIZES; i++) {
        each[i] = malloc((size_t)i);
        EXPECT(each[i] && ((uintptr_t)each[i] & 15) == 0 && malloc_usable_size(each[i]) == (size_t)i);
        memset(each[i], i & 0xff, (size_t)i);
    }
    for (int i = 0; i < SIZES; i++) {
        EXPECT(all_bytes(each[i], (unsigned char)(i & 0xff), (size_t)i));
        free(each[i]);
    }
    // Reused memory: more frees than the quarantine holds, so blocks come
    // back from it; calloc must still hand out zeros and malloc the fill.
    for (int i = 0; i < 70000; i++) {
        unsigned char *b = malloc(100);
        memset(b, 0x11, 100);
        free(b);
    }
    unsigned char *zeroed = calloc(1, 100), *filled = malloc(100);
    EXPECT(all_bytes(zeroed, 0, 100) && all_bytes(filled, 0xAA, 100));
    free(zeroed);
    free(filled);
    return 0;
}

static int api_checks(void) {
    int (*const checks[])(void) = {check_patterns, check_sizes_and_errors, check_alignment, check_threads_and_fork,
                                   check_every_size_and_reuse};
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
        if (checks[i]() != 0) return 1;
    printf("victim: api checks passed\n");
    return 0;
}

// `suppressed LINES COMMAND`: COMMAND under a suppressions file of LINES.
static int suppressed(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc < 4) {
        fprintf(stderr, "victim-heap: suppressed needs LINES and a COMMAND, e.g. suppressed 'double_free:victim_free_again' double-free\n");
        return 2;
    }
    return victim_rerun_with_suppressions(argv[2], argv[0], argv + 3);
}

static const victim_case k_cases[] = {
    VICTIM_CALL("read-after-free-list", read_after_free_list, "SIGSEGV: walk a linked list after freeing it"),
    VICTIM_CALL("write-after-free-thread", write_after_free_thread, "write into a freed block from another thread"),
    VICTIM_CALL("write-after-free-pending", write_after_free_pending, "write into a block a live worker freed, and one main freed, then exit"),
    VICTIM_CALL("write-after-free-late", write_after_free_late, "write into a freed block after 100 other frees, then exit"),
    VICTIM_CALL("write-after-free-far", write_after_free_far, "write 1 byte 1000 bytes into a freed 2000-byte block, then exit"),
    VICTIM_CALL("write-after-free-offsets", write_after_free_offsets, "write 1 byte into each of 64 freed 3000-byte blocks at spread offsets, then free 24 MB more"),
    VICTIM_CALL("write-after-free-same-offset", write_after_free_same_offset, "write 1 byte 1500 bytes into each of 2000 freed 3000-byte blocks, among other frees"),
    VICTIM_CALL("read-after-release", read_after_release, "SIGSEGV: walk a list whose first node already left a 4-block quarantine"),
    VICTIM_CALL("double-free", double_free, "free the same block twice"),
    VICTIM_CALL("heap-overflow-one", heap_overflow_one, "write 1 byte past the end of a 13-byte block, then free it"),
    VICTIM_CALL("heap-overflow-word", heap_overflow_word, "write 8 bytes past the end of a 24-byte block, then free it"),
    VICTIM_CALL("heap-overflow-memcpy", heap_overflow_memcpy, "memcpy 40 bytes into a 32-byte block, then free it"),
    VICTIM_CALL("heap-overflow-jump-4k", heap_overflow_jump_4k, "write 1 byte 32 bytes past the end of a 4096-byte block, then free it"),
    VICTIM_CALL("heap-read-past-end-odd", heap_read_past_end_odd, "read 1 byte past the end of a 13-byte block, then free it"),
    VICTIM_CALL("heap-overflow-strcpy", heap_overflow_strcpy, "strcpy 11 bytes into a 10-byte block, kept live until exit"),
    VICTIM_CALL("heap-overflow-strndup", heap_overflow_strndup, "strcat one character onto a strndup copy, then free it"),
    VICTIM_CALL("heap-underflow-neighbour", heap_underflow_neighbour, "write 8 bytes 56 bytes in front of a block (into its neighbour's red zone), free the neighbour"),
    VICTIM_CALL("heap-underflow-header", heap_underflow_header, "write 1 byte in front of a block (its header), then free it"),
    VICTIM_CALL("heap-underflow-header-wiped-far", heap_underflow_header_wiped_far,
                "wipe the 32-byte header of a 40-byte block past its class's first 64 KiB span, then free it"),
    VICTIM_CALL("heap-underflow-header-live", heap_underflow_header_live, "write 1 byte in front of a block (its header), exit with it live"),
    VICTIM_CALL("heap-underflow-links", heap_underflow_links, "overwrite the 16 bytes 40 to 24 bytes in front of a live block, exit with it live"),
    VICTIM_CALL("heap-underflow-links-big", heap_underflow_links_big, "overwrite a live 6000-byte block's list links with an unmapped address, then free every block"),
    VICTIM_CALL("heap-read-past-end", heap_read_past_end, "read 1 byte past the end of a 32-byte block"),
    VICTIM_CALL("use-after-free-int", use_after_free_int, "read an int field of a freed block"),
    VICTIM_CALL("use-after-free-large", use_after_free_large, "write 64 KiB into a freed 256 KiB block"),
    VICTIM_CALL("heap-underflow-far", heap_underflow_far, "write 1 byte 64 bytes in front of a 32-byte block, then free it"),
    VICTIM_CALL("heap-underflow-mbyte", heap_underflow_mbyte, "flip 1 byte 1 MiB in front of a 32-byte block, then free it"),
    VICTIM_CALL("heap-overflow-free-slot", heap_overflow_free_slot, "write 1 byte past an 8-byte block's red zone into the free slot after it, then allocate that slot again"),
    VICTIM_CALL("heap-overflow-mbyte", heap_overflow_mbyte, "flip 1 byte 1 MiB past the start of a 32-byte block, then free it"),
    VICTIM_CALL("heap-read-past-end-many", heap_read_past_end_many, "read 1 byte past the end of 2000 blocks (guard sampling catches one)"),
    VICTIM_CALL("guard-slot-recycled", guard_slot_recycled, "read a freed sampled block on its guard slot's second turn"),
    VICTIM_CALL("guard-slot-freed", guard_slot_freed, "read a freed sampled block whose guard slot is not reused yet"),
    VICTIM_CALL("guard-slot-front-underflow", guard_slot_front_underflow, "write 1 byte 64 bytes in front of a sampled block on its guard slot's second turn, then free it"),
    VICTIM_CALL("heap-overflow-crash", heap_overflow_crash, "overflow a block over its neighbour's pointer field, then follow that pointer (SIGSEGV)"),
    VICTIM_CALL("double-free-after-large-frees", double_free_after_large_frees, "free a 130 KiB block again after 1024 large frees"),
    VICTIM_CALL("double-free-out-of-fds", double_free_out_of_fds, "open /dev/null until EMFILE, then free two blocks twice each (with FAULTLINE_HALT_ON_ERROR=0)"),
    VICTIM_CALL("double-free-out-of-fds-refill", double_free_out_of_fds_refill, "out of fds, free a block twice, use up the fds again, free another twice (with FAULTLINE_HALT_ON_ERROR=0)"),
    VICTIM_CALL("double-free-while-cancelled", double_free_while_cancelled, "a worker with a pending pthread_cancel frees a block twice"),
    VICTIM_CALL("double-free-after-main", double_free_after_main, "free a block twice on a worker after the main thread called pthread_exit"),
    VICTIM_CALL("double-free-lines", double_free_lines, "free the same block twice, each free on a line of its own"),
    VICTIM_CALL("double-free-released", double_free_released, "free a block again after it left the quarantine"),
    VICTIM_CALL("double-free-unmapped", double_free_unmapped, "free a 32 MiB block again after glibc unmapped it"),
    VICTIM_CALL("double-free-released-big", double_free_released_big, "free a 4 MiB block again after it left the quarantine and glibc reused its header for a bin's links"),
    VICTIM_CALL("double-free-trimmed", double_free_trimmed, "free a block again after glibc gave the heap's top back to the kernel"),
    VICTIM_CALL("realloc-double-free", realloc_double_free, "free the pointer realloc moved away from"),
    VICTIM_CALL("invalid-free-interior", invalid_free_interior, "free a pointer into the middle of a block"),
    VICTIM_CALL("invalid-free-deep", invalid_free_deep, "free a pointer 2 MiB into a live 4 MiB block"),
    VICTIM_CALL("invalid-free-deep-grown", invalid_free_deep_grown, "free a pointer 2 MiB into a live 4 MiB block grown by realloc"),
    VICTIM_CALL("invalid-free-global", invalid_free_global, "free the address of a global variable"),
    VICTIM_CALL("quarantine-overflow", quarantine_overflow, "SIGSEGV: read through the newest of more freed blocks than the quarantine holds"),
    VICTIM_CALL("uninitialized-pointer", uninitialized_pointer, "SIGSEGV: follow a pointer malloc never initialised"),
    VICTIM_CALL("clean", clean_workload, "a correct workload (no report expected)"),
    VICTIM_CALL("glibc-arenas", glibc_arenas, "print how many glibc arenas serve 4 threads allocating 4 KiB blocks"),
    VICTIM_CALL("phase-shift", phase_shift, "free 300000 blocks of 200 bytes, allocate 300000 of 400: the memory must be reused or given back"),
    VICTIM_CALL("api-checks", api_checks, "check the shim's contract from inside (patterns, alignment, errors, threads, fork)"),
    VICTIM_CALL("entry-points", entry_points, "call every allocation entry point and free each block (no report expected)"),
    VICTIM_CALL("write-after-free-across-fork", write_after_free_across_fork, "the parent writes into a freed block, then a forked child writes into one of its own and exits"),
    VICTIM_CALL("exit-in-handler", exit_in_handler, "fault inside free (the page of the block before it made inaccessible) with a SIGSEGV handler that calls exit(3)"),
    VICTIM_CALL("mtrace", mtrace_blocks, "allocate and free a 4321-byte block between mtrace() and muntrace()"),
    VICTIM_CALL("null-deref-with-mask", null_deref_with_mask, "SIGSEGV: read through NULL while a register holds 0x5555555555555555 by coincidence"),
    VICTIM_CALL("getattr-first", getattr_first, "a new thread calls pthread_getattr_np on itself first thing (glibc allocates inside it, holding the thread's lock)"),
    VICTIM_CALL("dlclose-while-unwinding", dlclose_while_unwinding, "dlclose a library on one thread while a new thread's first malloc is held inside libunwind's dl_iterate_phdr call"),
    VICTIM_CALL("dl-iterate-callback-alloc", dl_iterate_callback_alloc, "dl_iterate_phdr callbacks that allocate, on two threads for 3 s, while two others start threads that allocate once each"),
    VICTIM_CALL("errno-kept", errno_kept, "check that every allocation call leaves errno alone, on main and on a new thread"),
    VICTIM_CALL("write-after-free-many", write_after_free_many, "write into 20000 freed blocks from one site and 3 from another, then exit"),
    VICTIM_CALL("write-after-free-free-sites", write_after_free_free_sites, "write into 4 freed blocks from one allocation site freed at one site and 4 freed at another, then exit"),
    VICTIM_CALL("double-free-repeated", double_free_repeated, "free 1000 blocks twice each (with FAULTLINE_HALT_ON_ERROR=0)"),
    VICTIM_CALL("deepbind", deepbind, "free and reallocate blocks from a library loaded with RTLD_DEEPBIND (its malloc is glibc's)"),
    VICTIM_CALL("deepbind-interior-deep", deepbind_interior_deep, "the same 2 MiB into a 4 MiB block grown by realloc (from glibc's heap)"),
    VICTIM_CALL("deepbind-interior", deepbind_interior, "after an RTLD_DEEPBIND load, free a pointer into a block where its bytes look like a glibc chunk"),
    VICTIM_CALL("realloc-growth", realloc_growth, "grow one buffer by realloc in 4099-byte steps to 4 MiB, shrink it, check every byte (no report expected)"),
    VICTIM_CALL("realloc-growth-mallopt", realloc_growth_mallopt, "realloc-growth after mallopt(M_MMAP_THRESHOLD, 128 KiB) of the program's own"),
    VICTIM_CALL("prlimit-as", prlimit_as, "lower RLIMIT_AS with prlimit, then allocate and free four 8 MiB blocks (no report expected)"),
    VICTIM_CALL("realloc-growth-early-mallopt", realloc_growth_early_mallopt, "realloc-growth after the same mallopt made from preinit_array, before the shim's constructor"),
    VICTIM_CALL("invalid-free-in-library", invalid_free_in_library, "a library (libVictimDeepbind.so, not deep-bound) frees a global variable"),
    VICTIM_CALL("double-free-loader-locked", double_free_loader_locked, "free a block twice while a dlopen'ed constructor holds the loader's lock, which frees one twice itself 300 ms later"),
    VICTIM_CALL("errno-after-reports", errno_after_reports, "double free, invalid free, write after free, with FAULTLINE_HALT_ON_ERROR=0: errno must not change"),
    VICTIM_RUN("suppressed", suppressed, "LINES COMMAND: COMMAND under a suppressions file of LINES"),
};

int main(int argc, char **argv, char **envp) {
    return VICTIM_MAIN("victim-heap", k_cases, argc, argv, envp);
}
