// victim-heap errno-kept and errno-after-reports: a successful allocation
// call leaves errno alone (a program may set it to 0, call something that
// allocates inside, and read it), and so does free (POSIX.1-2024; glibc
// since 2.33), even when the shim reports a bad free and goes on.
#include "victim_heap.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARK 1234

// Runs `call` with errno set to MARK; says which call changed it.
#define KEEPS(call) do { errno = MARK; call; if (errno != MARK) { printf("victim: %s changed errno from %d to %d (%s)\n", #call, MARK, errno, who); return 1; } } while (0)

// Every entry point once, the first of them the thread's first allocation
// (so the first stack capture of the thread, and of the process on main).
static int calls_keep_errno(const char *who) {
    void *p, *q;
    KEEPS(p = malloc(24));
    KEEPS(q = calloc(3, 40));
    KEEPS(p = realloc(p, 3000));
    KEEPS(free(q));
    KEEPS(q = malloc(1 << 20));
    KEEPS(free(q));
    KEEPS(malloc_usable_size(p));
    KEEPS(free(p));
    KEEPS(p = memalign(64, 100));
    KEEPS(free(p));
    KEEPS(p = aligned_alloc(128, 256));
    KEEPS(free(p));
    KEEPS(if (posix_memalign(&p, 256, 10) == 0) free(p));
    KEEPS(p = valloc(10));
    KEEPS(free(p));
    KEEPS(p = pvalloc(10));
    KEEPS(free(p));
    return 0;
}

static void *on_thread(void *arg) { return (void *)(intptr_t)calls_keep_errno(arg); }

int errno_kept(void) {
    if (calls_keep_errno("main thread")) return 1;
    pthread_t t;
    void *bad = 0;
    pthread_create(&t, NULL, on_thread, "new thread");
    pthread_join(t, &bad);
    if (bad) return 1;
    printf("victim: every call kept errno\n");
    return 0;
}

static long g_not_heap[4];
static void *volatile g_keep;

// With FAULTLINE_HALT_ON_ERROR=0 and FAULTLINE_QUARANTINE_COUNT=4: a double
// free, an invalid free, and a free that pushes a written block out of
// the quarantine are each reported inside the call, which then returns.
int errno_after_reports(void) {
    const char *who = "reporting call";
    char *p = malloc(40);
    free(p);
    KEEPS(free(p));
    KEEPS(free(&g_not_heap[2]));
    char *w = malloc(64);
    free(w);
    memset(w, 0, 8);  // write after free
    for (int i = 0; i < 3; i++) { g_keep = malloc(64); free(g_keep); }
    KEEPS(g_keep = malloc(64); free(g_keep));  // pushes w out: checked, reported, released
    printf("victim: errno kept across the reports\n");
    return 0;
}

// victim-heap getattr-first: a new thread's first call is pthread_getattr_np
// on itself, as Ruby, JVMs and garbage collectors do to find their stack.
// glibc allocates inside it while holding the thread's lock, so that
// allocation is the thread's first one through the shim.
static void *ask_own_stack(void *unused) {
    (void)unused;
    pthread_attr_t attr;
    void *addr = 0;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
    pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
    return (void *)size;
}

int getattr_first(void) {
    pthread_t t;
    void *size = 0;
    if (pthread_create(&t, 0, ask_own_stack, 0) != 0 || pthread_join(t, &size) != 0) return 1;
    printf("victim: a new thread read its own stack size first thing: %s\n", size ? "ok" : "failed");
    return size ? 0 : 1;
}
