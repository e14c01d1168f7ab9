#include "thread_records.h"
#include "thread_growth.h"
#include "interpose_next.h"
#include "stack_store.h"
#include "sigsafe.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>

static fl_thread_record *g_records;
static atomic_int g_on, g_limit, g_live;
static pthread_key_t g_key;

int fl_thread_leaks_on(void) { return atomic_load_explicit(&g_on, memory_order_relaxed); }
void fl_thread_records_stop(void) { atomic_store(&g_on, 0); }

fl_thread_record *fl_thread_records(int *limit) {
    if (limit) *limit = atomic_load(&g_limit);
    return g_records;
}

int fl_thread_records_live(void) { return atomic_load(&g_live); }

static void release(fl_thread_record *r) { atomic_store(&r->state, 0); }

// The key's destructor: the thread is ending.
static void thread_ending(void *value) {
    int rec = (int)(intptr_t)value - 1;
    if (rec < 0 || rec >= FL_THREAD_RECORDS || !g_records) return;
    fl_thread_record *r = &g_records[rec];
    prctl(PR_GET_NAME, r->name, 0, 0, 0);
    r->finished_ns = fl_monotonic_ns();
    atomic_fetch_sub(&g_live, 1);
    unsigned old = atomic_fetch_or(&r->state, FL_TR_FINISHED);
    if (!(old & FL_TR_JOINABLE)) release(r);  // detached: nothing left to give back
}

int fl_thread_records_init(void) {
    if (!g_records) {
        if (fl_stack_store_init() != 0) return -1;
        void *t = mmap(0, sizeof(fl_thread_record) * FL_THREAD_RECORDS, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (t == MAP_FAILED) return -1;
        int rc = pthread_key_create(&g_key, thread_ending);
        if (rc != 0) { munmap(t, sizeof(fl_thread_record) * FL_THREAD_RECORDS); errno = rc; return -1; }
        g_records = t;
    }
    atomic_store(&g_on, 1);
    return 0;
}

int fl_thread_leak_creating(const pthread_attr_t *attr, const void *caller) {
    if (!fl_thread_leaks_on()) return -1;
    int detached = 0;
    if (attr) pthread_attr_getdetachstate(attr, &detached);
    // From the bottom, so the records stay dense and a join's look-up
    // scans about as many as there are threads.
    for (int k = 0; k < FL_THREAD_RECORDS; k++) {
        unsigned expected = 0;
        if (!atomic_compare_exchange_strong(&g_records[k].state, &expected, FL_TR_USED)) continue;
        fl_thread_record *r = &g_records[k];
        uintptr_t pcs[FL_STACK_STORE_FRAMES];
        int n = fl_stack_capture_from(caller, pcs, FL_STACK_STORE_FRAMES);
        atomic_store(&r->stack, fl_stack_store_put(pcs, n));
        atomic_store(&r->tid, 0);
        atomic_store(&r->thread, (pthread_t)0);
        r->created_ns = fl_monotonic_ns();
        r->finished_ns = 0;
        r->name[0] = 0;
        if (detached != PTHREAD_CREATE_DETACHED) atomic_fetch_or(&r->state, FL_TR_JOINABLE);
        int lim = atomic_load(&g_limit);
        while (k + 1 > lim && !atomic_compare_exchange_weak(&g_limit, &lim, k + 1)) {}
        atomic_fetch_add(&g_live, 1);
        return k;
    }
    return -1;
}

void fl_thread_leak_created(int rec, int rc, pthread_t thread) {
    if (rec < 0) return;
    fl_thread_record *r = &g_records[rec];
    if (rc != 0) { atomic_fetch_sub(&g_live, 1); release(r); return; }
    atomic_store(&r->thread, thread);
    fl_thread_growth_check();
}

void fl_thread_leak_started(int rec) {
    if (rec < 0 || !g_records) return;
    fl_thread_record *r = &g_records[rec];
    atomic_store(&r->thread, pthread_self());
    atomic_store(&r->tid, fl_gettid());
    pthread_setspecific(g_key, (void *)(intptr_t)(rec + 1));
}

void fl_thread_records_forget_all(void) {
    if (!g_records) return;
    int lim = atomic_load(&g_limit);
    for (int i = 0; i < lim; i++) release(&g_records[i]);
    atomic_store(&g_live, 0);
}

// --- join and detach -----------------------------------------------------

static fl_thread_record *find(pthread_t t) {
    if (!g_records || !t) return 0;
    int lim = atomic_load(&g_limit);
    for (int i = 0; i < lim; i++) {
        fl_thread_record *r = &g_records[i];
        if ((atomic_load(&r->state) & FL_TR_USED) && pthread_equal(atomic_load(&r->thread), t)) return r;
    }
    return 0;
}

// A join that succeeded: the thread's resources are given back.
static int joined(pthread_t t, int rc) {
    if (rc == 0 && g_records) {
        fl_thread_record *r = find(t);
        if (r) release(r);
    }
    return rc;
}

#define NEXT_OR(name, ...)                                        \
    static __typeof__(__VA_ARGS__) next;                          \
    FL_NEXT_SLOT(next, name)                                      \
    if (!next) next = (__typeof__(__VA_ARGS__))dlsym(RTLD_NEXT, name); \
    if (!next) return ENOSYS;

FL_EXPORT int pthread_join(pthread_t t, void **ret) {
    NEXT_OR("pthread_join", int (*)(pthread_t, void **))
    return joined(t, next(t, ret));
}

FL_EXPORT int pthread_tryjoin_np(pthread_t t, void **ret) {
    NEXT_OR("pthread_tryjoin_np", int (*)(pthread_t, void **))
    return joined(t, next(t, ret));
}

FL_EXPORT int pthread_timedjoin_np(pthread_t t, void **ret, const struct timespec *abstime) {
    NEXT_OR("pthread_timedjoin_np", int (*)(pthread_t, void **, const struct timespec *))
    return joined(t, next(t, ret, abstime));
}

FL_EXPORT int pthread_clockjoin_np(pthread_t t, void **ret, clockid_t clock, const struct timespec *abstime) {
    NEXT_OR("pthread_clockjoin_np", int (*)(pthread_t, void **, clockid_t, const struct timespec *))
    return joined(t, next(t, ret, clock, abstime));
}

FL_EXPORT int pthread_detach(pthread_t t) {
    NEXT_OR("pthread_detach", int (*)(pthread_t))
    fl_thread_record *r = find(t);
    int rc = next(t);
    if (rc == 0 && r) {
        unsigned old = atomic_fetch_and(&r->state, ~(unsigned)FL_TR_JOINABLE);
        if (old & FL_TR_FINISHED) release(r);
    }
    return rc;
}
