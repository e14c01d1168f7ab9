// victim-heap dlclose-while-unwinding: one thread dlcloses a library while
// another is inside libunwind's lookup of a frame it has not seen. That
// lookup holds libunwind's cache lock and calls dl_iterate_phdr, which
// takes the loader's write lock; dlclose frees the library's link map from
// ld.so holding that write lock. A free there that asks libunwind for its
// stack waits for the cache lock: each thread waits for the other's lock.
//
// The order is forced, not raced for. This program defines dl_iterate_phdr
// (the executable comes first in symbol lookup, so libunwind's call lands
// here) and holds the unwinding thread's call, with libunwind's lock held,
// until the closing thread's dlclose has returned or the closing thread
// sleeps inside it: in this program every allocation dlclose makes comes
// from ld.so under the write lock (the library's dependencies are all
// loaded at start), so a closer asleep there holds the write lock and
// waits for libunwind. Then the call goes on to the real dl_iterate_phdr.
#include "victim_paths.h"
#include "victim_heap.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int (*dl_callback)(struct dl_phdr_info *, size_t, void *);
typedef int (*dl_iterate_fn)(dl_callback, void *);

static _Atomic(dl_iterate_fn) g_next;
static __thread int t_hold;  // hold this thread's next dl_iterate_phdr call
static sem_t g_closer_ready;  // posted once the closer runs its own code
static sem_t g_unwinder_in;   // posted once the unwinder holds its call, or found none to hold
static atomic_int g_held, g_closing, g_closed, g_closer_tid;
static void *g_handle;

static dl_iterate_fn next_iterate(void) {
    dl_iterate_fn f = atomic_load(&g_next);
    if (!f) {
        f = (dl_iterate_fn)dlsym(RTLD_NEXT, "dl_iterate_phdr");
        atomic_store(&g_next, f);
    }
    return f;
}

// Whether thread `tid` of this process is asleep (state S in its stat,
// the field after the parenthesised name). No stdio: the caller is inside
// malloc.
static int asleep(int tid) {
    char path[48] = "/proc/self/task/", digits[12], buf[512];
    size_t n = strlen(path);
    int k = 0;
    do digits[k++] = (char)('0' + tid % 10);
    while ((tid /= 10) > 0);
    while (k > 0) path[n++] = digits[--k];
    memcpy(path + n, "/stat", 6);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t got = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (got <= 0) return 0;
    buf[got] = 0;
    const char *paren = strrchr(buf, ')');
    return paren && paren[1] == ' ' && paren[2] == 'S';
}

/// dl_iterate_phdr for the whole process: passes every call on, but holds
/// the unwinding thread's first one (see the top of the file).
int dl_iterate_phdr(dl_callback callback, void *data) {
    if (t_hold) {
        t_hold = 0;
        atomic_store(&g_held, 1);
        sem_post(&g_unwinder_in);
        while (!atomic_load(&g_closed) && !(atomic_load(&g_closing) && asleep(atomic_load(&g_closer_tid)))) {
            struct timespec ts = {0, 100 * 1000};  // a poll, not a wait for anything
            nanosleep(&ts, 0);
        }
    }
    return next_iterate()(callback, data);
}

// Called nowhere else: libunwind has never seen its frame.
__attribute__((noinline)) static void *fresh_site(void) {
    void *p = malloc(24);
    __asm__ volatile("" ::: "memory");
    return p;
}

static void *unwinder(void *unused) {
    t_hold = 1;
    free(fresh_site());
    if (t_hold) sem_post(&g_unwinder_in);  // no libunwind lookup was held
    t_hold = 0;
    return unused;
}

static void *closer(void *unused) {
    atomic_store(&g_closer_tid, (int)gettid());
    sem_post(&g_closer_ready);
    while (sem_wait(&g_unwinder_in) != 0) {}
    atomic_store(&g_closing, 1);
    dlclose(g_handle);
    atomic_store(&g_closed, 1);
    return unused;
}

int dlclose_while_unwinding(void) {
    char lib[PATH_MAX];
    if (victim_beside_self(lib, sizeof lib, "libVictimDeepbind.so") != 0) return 2;
    next_iterate();  // resolved before any call is held
    if (sem_init(&g_closer_ready, 0, 0) != 0 || sem_init(&g_unwinder_in, 0, 0) != 0) return 2;
    g_handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!g_handle) { fprintf(stderr, "victim: %s\n", dlerror()); return 2; }
    // Both threads new: neither has unwound a frame of its own yet
    // (libunwind keeps a cache of frames per thread). The unwinder starts
    // once the closer is past its start (the agent's thread start warms
    // libunwind up, which takes the lock the unwinder will hold).
    pthread_t c, u;
    if (pthread_create(&c, 0, closer, 0) != 0) return 2;
    while (sem_wait(&g_closer_ready) != 0) {}
    if (pthread_create(&u, 0, unwinder, 0) != 0) return 2;
    pthread_join(u, 0);
    pthread_join(c, 0);
    printf("victim: dlclose %s: done\n", atomic_load(&g_held) ? "while another thread was inside libunwind's lookup" : "(no libunwind lookup seen)");
    return 0;
}
