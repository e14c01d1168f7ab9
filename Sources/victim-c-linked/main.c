// victim-c-linked: a C program that links the agent and installs it through
// the C API, as an application would; it adds its own fields to the report
// through a crash callback, then crashes.
#define _GNU_SOURCE  // pthread_setname_np
#include "faultline.h"
#include "recovering.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int *volatile g_null;

// Runs on the crash path: only async-signal-safe calls.
static void add_build_info(faultline_writer *w, void *ctx) {
    faultline_writer_add_string(w, "build", (const char *)ctx);
    faultline_writer_add_string(w, "user_action", "checkout");
}

__attribute__((noinline)) static void linked_null_deref(void) {
    fprintf(stderr, "victim: linked program dereferencing NULL\n");
    *g_null = 1;
}

// --- own-altstack: alternate stacks the program set before installing -------

/// The historical SIGSTKSZ, which many programs still use.
#define OWN_ALTSTACK_SIZE 8192

/// Gives the calling thread an 8 KiB alternate stack of the program's
/// (mmap'd, guard page below); returns its base.
static void *install_own_altstack(void) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t size = (OWN_ALTSTACK_SIZE + page - 1) & ~(page - 1);
    char *p = mmap(0, size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED || mprotect(p, page, PROT_NONE) != 0) { perror("victim: mmap"); exit(2); }
    stack_t ss = { .ss_sp = p + page + size - OWN_ALTSTACK_SIZE, .ss_size = OWN_ALTSTACK_SIZE, .ss_flags = 0 };
    if (sigaltstack(&ss, 0) != 0) { perror("victim: sigaltstack"); exit(2); }
    return ss.ss_sp;
}

/// Says whether the calling thread's alternate stack is still `mine`.
static void say_altstack(const char *who, void *mine) {
    stack_t cur;
    if (sigaltstack(0, &cur) != 0) { perror("victim: sigaltstack"); exit(2); }
    if (!(cur.ss_flags & SS_DISABLE) && cur.ss_sp == mine)
        fprintf(stderr, "victim: %s's alternate stack after install: the program's (%zu bytes)\n", who, cur.ss_size);
    else
        fprintf(stderr, "victim: %s's alternate stack after install: replaced (%zu bytes)\n", who, cur.ss_size);
}

static pthread_barrier_t g_early_ready, g_installed, g_checked;

static void *early_thread(void *unused) {
    pthread_setname_np(pthread_self(), "early-alt");
    void *mine = install_own_altstack();
    pthread_barrier_wait(&g_early_ready);
    pthread_barrier_wait(&g_installed);  // the agent installs meanwhile
    say_altstack("early-alt", mine);
    pthread_barrier_wait(&g_checked);
    for (;;) pause();
    return unused;
}

/// Main and thread 'early-alt' set 8 KiB alternate stacks, then the agent is
/// installed; both say whose stack is in force, then main crashes.
static void *start_own_altstack(void) {
    pthread_barrier_init(&g_early_ready, 0, 2);
    pthread_barrier_init(&g_installed, 0, 2);
    pthread_barrier_init(&g_checked, 0, 2);
    void *mine = install_own_altstack();
    pthread_t t;
    pthread_create(&t, 0, early_thread, 0);
    pthread_barrier_wait(&g_early_ready);
    return mine;
}

static void finish_own_altstack(void *mine) {
    pthread_barrier_wait(&g_installed);
    say_altstack("main", mine);
    pthread_barrier_wait(&g_checked);
}

// --- early-overflow: a thread that existed before install overflows ------

static pthread_barrier_t g_early_go;

/// Unbounded recursion; the volatile array keeps every frame on the stack.
__attribute__((noinline)) static int early_recurse(int depth) {
    volatile char pad[256];
    pad[0] = (char)depth;
    return early_recurse(depth + 1) + pad[0];
}

static void *early_overflow_thread(void *unused) {
    pthread_setname_np(pthread_self(), "early-ovf");
    pthread_barrier_wait(&g_early_go);  // main installs the agent meanwhile
    fprintf(stderr, "victim: overflowing the stack of a thread started before install\n");
    early_recurse(0);
    return unused;
}

/// Starts thread 'early-ovf' (no alternate stack: threads start without
/// one) before the agent is installed; it overflows its stack afterwards.
static pthread_t start_early_overflow(void) {
    pthread_barrier_init(&g_early_go, 0, 2);
    pthread_t t;
    pthread_create(&t, 0, early_overflow_thread, 0);
    return t;
}

int victim_starting_overflow(void);  // starting_thread.c
int victim_uninstall_case(const char *name);  // uninstall.c

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "starting-overflow") == 0) return victim_starting_overflow();
    if (argc > 1) victim_uninstall_case(argv[1]);
    int own_altstack = argc > 1 && strcmp(argv[1], "own-altstack") == 0;
    void *mine = own_altstack ? start_own_altstack() : 0;
    int early_overflow = argc > 1 && strcmp(argv[1], "early-overflow") == 0;
    pthread_t early = early_overflow ? start_early_overflow() : 0;
    int recovering = argc > 1 && victim_recovering_prepare(argv[1]);
    faultline_options options;
    memset(&options, 0, sizeof options);  // report_dir from FAULTLINE_REPORT_DIR
    if (faultline_install(&options) != 0) {
        fprintf(stderr, "victim-c-linked: %s\n", faultline_last_error());
        return 3;
    }
    faultline_set_crash_callback(add_build_info, (void *)"1.4.2-ci");
    if (own_altstack) finish_own_altstack(mine);
    if (early_overflow) {
        pthread_barrier_wait(&g_early_go);
        pthread_join(early, 0);
    }
    if (argc > 1 && strcmp(argv[1], "exit") == 0) return 0;
    if (recovering) victim_recovering_run(argv[1], argc > 2 ? argv[2] : 0);
    linked_null_deref();
    return 1;
}
