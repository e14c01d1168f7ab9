// A thread that holds the dynamic linker's lock for good: it parks inside a
// dl_iterate_phdr callback. Plugin loaders, JITs and unwinders hold this lock
// in real programs; one stopped or blocked while holding it is the case the
// agent's unwinders must not wait for (libunwind reads the image list
// through dl_iterate_phdr).
#include "victim_threads.h"

#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

static atomic_int g_holding;

static int hold_forever(struct dl_phdr_info *info, size_t size, void *data) {
    (void)info, (void)size, (void)data;
    atomic_store(&g_holding, 1);
    for (;;) pause();
    return 0;
}

static void *loader_lock_holder(void *unused) {
    (void)unused;
    pthread_setname_np(pthread_self(), "lock-holder");
    dl_iterate_phdr(hold_forever, 0);
    return 0;
}

void victim_start_loader_lock_holder(void) {
    pthread_t t;
    pthread_create(&t, 0, loader_lock_holder, 0);
    while (!atomic_load(&g_holding)) usleep(1000);
}
