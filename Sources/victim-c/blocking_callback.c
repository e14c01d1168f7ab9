// victim-c crash-with-blocking-callback: the program's crash callback takes
// a mutex that thread 'mutex-holder' holds for ever, then main crashes. The
// crash handler runs the callback, which never returns: nothing the handler
// can check beforehand says so (unlike a thread inside dl_iterate_phdr), so
// only its deadline ends the stall, with a handler_stalled report and death
// by the original signal. Keeps the deadline tested now that
// crash-holding-loader-lock no longer stalls.
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;
static atomic_int g_held;

static void *mutex_holder(void *unused) {
    (void)unused;
    pthread_setname_np(pthread_self(), "mutex-holder");
    pthread_mutex_lock(&g_mutex);
    atomic_store(&g_held, 1);
    for (;;) pause();
    return 0;
}

// Registered as the agent's crash callback: waits for the mutex for ever.
NOINLINE static void blocking_callback(void *writer, void *ctx) {
    (void)writer, (void)ctx;
    pthread_mutex_lock(&g_mutex);
}

NOINLINE static void victim_crash_with_blocking_callback_fault(void) {
    fprintf(stderr, "victim: the crash callback waits for a mutex 'mutex-holder' never releases; dereferencing NULL\n");
    *(volatile int *)0 = 1;
}

void victim_crash_with_blocking_callback(void) {
    typedef void (*set_cb_fn)(void (*)(void *, void *), void *);
    set_cb_fn set_cb = (set_cb_fn)dlsym(RTLD_DEFAULT, "faultline_set_crash_callback");
    if (!set_cb) { fprintf(stderr, "victim: no agent loaded; no crash callback to block\n"); exit(3); }
    set_cb(blocking_callback, 0);
    pthread_t t;
    pthread_create(&t, 0, mutex_holder, 0);
    while (!atomic_load(&g_held)) usleep(1000);
    victim_crash_with_blocking_callback_fault();
}
