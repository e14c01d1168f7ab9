// victim-c crash-holding-loader-lock: a thread sits inside a
// dl_iterate_phdr callback, which holds the dynamic linker's lock, and never
// returns; the main thread then crashes. A crash handler that unwinds with
// libunwind reads the image list through dl_iterate_phdr and waits for that
// lock forever: a crash became a hang (the agent's crash-handler deadline
// ended it with a frame-pointer report; the handler now sees a thread inside
// dl_iterate_phdr and takes frame pointers at once). Plugin loaders, JITs and unwinders hold this
// lock in real programs; a thread stopped or blocked while holding it
// (here, for ever) is the case.
#include <link.h>
#include "victim_threads.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

NOINLINE static void victim_crash_while_loader_locked(void) {
    fprintf(stderr, "victim: thread 'lock-holder' holds the dynamic linker's lock; dereferencing NULL\n");
    *(volatile int *)0 = 1;
}

void victim_crash_holding_loader_lock(void) {
    victim_start_loader_lock_holder();
    victim_crash_while_loader_locked();
}

static atomic_int g_idling;

static void *idle_beside_the_crash(void *unused) {
    (void)unused;
    pthread_setname_np(pthread_self(), "idler");
    atomic_store(&g_idling, 1);
    for (;;) pause();
    return 0;
}

static int crash_in_callback(struct dl_phdr_info *info, size_t size, void *data) {
    (void)info, (void)size, (void)data;
    fprintf(stderr, "victim: dereferencing NULL inside a dl_iterate_phdr callback, beside thread 'idler'\n");
    *(volatile int *)0 = 1;
    return 0;
}

/// victim-c crash-inside-loader-callback: main crashes inside its own
/// dl_iterate_phdr callback, holding the dynamic linker's lock, while thread
/// 'idler' waits in pause. The crashed thread's own libunwind walk may take
/// the lock again (it is recursive); 'idler''s may not, so it must walk its
/// frame pointers when asked for its stack instead of never answering.
void victim_crash_inside_loader_callback(void) {
    pthread_t t;
    pthread_create(&t, 0, idle_beside_the_crash, 0);
    while (!atomic_load(&g_idling)) usleep(1000);
    dl_iterate_phdr(crash_in_callback, 0);
}
