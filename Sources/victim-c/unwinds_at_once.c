// victim-c unwinds-at-once: four threads walk their stacks with libunwind
// at the same moment, again and again, through frames built without unwind
// tables, so that libunwind guesses each and checks the memory it reads
// through its validation pipe, and counted by the agent's walk bracket (as
// the malloc shim's walks are). That is the pattern of a hang report, which
// samples every thread at once: after the agent let the pipe go, every
// walk reopened it together, and libunwind's reopen closed one thread's
// read end while it wrote: SIGPIPE ended the program (a CI run of
// hang.spin-beside-stalled-starts). Exit 3 when the program's fd count
// grew (the pairs overwritten in the race were never closed).
//
// unwinds-at-once-mixed: threads 2 and 4 walk without the bracket, as a
// program that uses libunwind itself does, beside the agent's counted
// walks on threads 1 and 3.
#include <alloca.h>
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#define THREADS 4
#define ROUNDS 5000

typedef int (*getcontext_fn)(ucontext_t *);
typedef int (*init_local_fn)(void *, ucontext_t *);
typedef int (*step_fn)(void *);

static getcontext_fn p_getcontext;
static init_local_fn p_init_local;
static step_fn p_step;
static void (*p_begin)(void), (*p_end)(void);
static pthread_barrier_t g_start;
static int g_mixed;  // even-numbered threads walk uncounted

static int count_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    int n = 0;
    while (readdir(d)) n++;
    closedir(d);
    return n;
}

// A walk from here, inside frames with no unwind tables and frames of
// different sizes (libunwind remembers the last few pages it checked).
__attribute__((noinline, nouwtable)) static int walk_from_untabled(int depth, unsigned *seed) {
    if (depth > 0) {
        *seed = *seed * 1103515245u + 12345u;
        char *pad = alloca(4096 + (*seed >> 8) % (64 * 4096));
        __asm__ volatile("" ::"r"(pad) : "memory");
        int n = walk_from_untabled(depth - 1, seed);
        __asm__ volatile("" ::: "memory");
        return n;
    }
    ucontext_t uc;
    uint64_t cursor[256];
    int n = 0;
    p_getcontext(&uc);
    if (p_init_local(cursor, &uc) < 0) return 0;
    while (n < 32 && p_step(cursor) > 0) n++;
    return n;
}

static void *walker(void *arg) {
    unsigned seed = (unsigned)(uintptr_t)arg;
    int counted = !g_mixed || seed % 2;
    long frames = 0;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_barrier_wait(&g_start);
        if (counted) p_begin();
        frames += walk_from_untabled(3, &seed);
        if (counted) p_end();
    }
    return (void *)frames;
}

void victim_unwinds_at_once(void) {
    void *lib = dlopen("libunwind.so.8", RTLD_NOW);
    p_getcontext = lib ? (getcontext_fn)dlsym(lib, "_Ux86_64_getcontext") : 0;
    p_init_local = lib ? (init_local_fn)dlsym(lib, "_ULx86_64_init_local") : 0;
    p_step = lib ? (step_fn)dlsym(lib, "_ULx86_64_step") : 0;
    p_begin = (void (*)(void))dlsym(RTLD_DEFAULT, "faultline_unwind_walk_begin");
    p_end = (void (*)(void))dlsym(RTLD_DEFAULT, "faultline_unwind_walk_end");
    if (!p_getcontext || !p_init_local || !p_step || !p_begin || !p_end) {
        fprintf(stderr, "victim: needs x86-64 libunwind.so.8 and the agent preloaded\n");
        exit(2);
    }
    int before = count_fds();
    pthread_barrier_init(&g_start, 0, THREADS);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], 0, walker, (void *)(uintptr_t)(i + 1));
    long frames = 0;
    for (int i = 0; i < THREADS; i++) {
        void *r;
        pthread_join(t[i], &r);
        frames += (long)r;
    }
    int after = count_fds();
    fprintf(stderr, "victim: %d walks at once %d times, %ld frames, fds %d before and %d after\n", THREADS, ROUNDS, frames,
            before, after);
    exit(after > before + 2 ? 3 : 0);
}

void victim_unwinds_at_once_mixed(void) {
    g_mixed = 1;
    victim_unwinds_at_once();
}
