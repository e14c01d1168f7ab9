#include "interpose_next.h"
#include "altstack.h"
#include "solo_call.h"
#include "cred_mirror.h"
#include "page_size.h"
#include "sigsafe.h"
#include "thread_capture.h"
#include "thread_records.h"
#include "unwinder.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

static atomic_int g_enabled;

// The guard is one page, of the system's size (64 KiB on some aarch64
// kernels): mprotect works in whole pages.
static void *map_stack(void) {
    size_t guard = fl_page_size();
    char *p = mmap(0, FL_ALTSTACK_SIZE + guard, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return 0;
    // Guard page below the stack: a handler that overflows faults instead of
    // corrupting whatever is mapped beneath.
    mprotect(p, guard, PROT_NONE);
    return p + guard;
}

/// Unmaps a stack from map_stack, guard page included.
static void unmap_stack(void *sp) {
    size_t guard = fl_page_size();
    munmap((char *)sp - guard, FL_ALTSTACK_SIZE + guard);
}

// Any alternate stack the thread already has is left in force, however
// small: the crash and sample handlers use only a few hundred bytes of it
// and switch to stacks of the agent's (stack_switch.h), and a program's
// handlers must keep running on the stack it chose. The kernel's signal
// frame must still fit (docs/agent.md, Limits).
static int has_altstack(void) {
    stack_t cur;
    return sigaltstack(0, &cur) == 0 && !(cur.ss_flags & SS_DISABLE);
}

static int set_altstack(void *sp) {
    stack_t ss = { .ss_sp = sp, .ss_size = FL_ALTSTACK_SIZE, .ss_flags = 0 };
    return sigaltstack(&ss, 0);
}

// The alternate stack this thread got from the agent, if any: the only one
// it may unmap when the thread ends (a program's stack of the same size is
// the program's). initial-exec: reading it never allocates.
static __thread void *t_agent_altstack __attribute__((tls_model("initial-exec")));

int fl_altstack_install_current(void) {
    if (has_altstack()) return 0;
    void *sp = map_stack();
    if (!sp) return -1;
    if (set_altstack(sp) != 0) { unmap_stack(sp); return -1; }
    t_agent_altstack = sp;
    return 0;
}

void fl_altstack_enable_for_new_threads(void) { atomic_store(&g_enabled, 1); }

// --- pthread_create wrapper ------------------------------------------------

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/// `record`: the threads detector's record of the thread (-1: none).
struct trampoline { void *(*start)(void *); void *arg; int record; };

// Gives back the agent's alternate stack when a thread it started ends. It
// is switched off first when still in force; when the program has put its
// own in its place, that setting is the program's and stays.
static void release_altstack(void *unused) {
    void *mine = t_agent_altstack;
    if (!mine) return;
    stack_t cur;
    if (sigaltstack(0, &cur) != 0) return;
    if (!(cur.ss_flags & SS_DISABLE) && cur.ss_sp == mine) {
        stack_t off = { .ss_flags = SS_DISABLE };
        if (sigaltstack(&off, 0) != 0) return;  // EPERM: running on it; keep it mapped
    }
    t_agent_altstack = 0;
    unmap_stack(mine);
}

// The trampoline is the agent's, not the program's: it comes from glibc's
// own __libc_malloc, which the malloc shim does not see. Through malloc it
// was a block of the program's, and a child forked before the new thread
// ran (every shell pipeline) reported it as a 16-byte leak at its exit.
extern void *__libc_malloc(size_t);
extern void __libc_free(void *);

// Runs a new thread's start routine on an alternate stack of its own,
// which it gives back when the thread ends (returns or is cancelled).
static void *run_with_altstack(struct trampoline t) {
    void *result;  // outside the block pthread_cleanup_push opens
    if (atomic_load(&g_enabled)) fl_altstack_install_current();  // mmap only
    pthread_cleanup_push(release_altstack, 0);
    result = t.start(t.arg);
    pthread_cleanup_pop(1);
    return result;
}

static void *thread_start(void *p) {
    struct trampoline t = *(struct trampoline *)p;
    __libc_free(p);
    fl_thread_leak_started(t.record);
    fl_unwinder_warm_thread();
    return run_with_altstack(t);
}

static pthread_create_fn real_pthread_create(void) {
    static pthread_create_fn real;
    FL_NEXT_SLOT(real, "pthread_create")
    if (!real) real = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
    return real;
}

/// Interposes pthread_create so every new thread gets an alternate signal
/// stack (works both preloaded and linked into an executable), and the
/// threads detector a record of it (thread_records.h).
__attribute__((visibility("default"))) int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg) {
    pthread_create_fn real = real_pthread_create();
    if (!real) return EAGAIN;
    if (!atomic_load(&g_enabled) && !fl_thread_leaks_on()) return real(thread, attr, start, arg);
    struct trampoline *t = __libc_malloc(sizeof *t);
    if (!t) return real(thread, attr, start, arg);
    int record = fl_thread_leak_creating(attr, __builtin_return_address(0));
    *t = (struct trampoline){start, arg, record};
    int rc = real(thread, attr, thread_start, t);
    if (rc != 0) __libc_free(t);
    fl_thread_leak_created(record, rc, rc == 0 ? *thread : 0);
    return rc;
}

// --- the agent's own threads ----------------------------------------------

// Static trampolines: the agent starts a handful of threads (again after a
// fork), each claims a slot until it has copied it out.
#define FL_AGENT_TRAMPOLINES 8
static struct trampoline g_agent_trampolines[FL_AGENT_TRAMPOLINES];
static atomic_int g_agent_trampoline_used[FL_AGENT_TRAMPOLINES];

static void *agent_thread_start(void *p) {
    struct trampoline *slot = p;
    struct trampoline t = *slot;
    atomic_store(&g_agent_trampoline_used[slot - g_agent_trampolines], 0);
    return run_with_altstack(t);
}

static int create_agent_thread(pthread_create_fn real, pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg) {
    for (int i = 0; i < FL_AGENT_TRAMPOLINES; i++) {
        int expected = 0;
        if (!atomic_compare_exchange_strong(&g_agent_trampoline_used[i], &expected, 1)) continue;
        g_agent_trampolines[i] = (struct trampoline){start, arg, -1};
        int rc = real(thread, attr, agent_thread_start, &g_agent_trampolines[i]);
        if (rc != 0) atomic_store(&g_agent_trampoline_used[i], 0);
        return rc;
    }
    return real(thread, attr, start, arg);  // no slot: no alternate stack either
}

int fl_agent_thread_create(fl_solo_thread *solo, pthread_t *thread, int detached, size_t stack_size, void *(*start)(void *)) {
    pthread_create_fn real = real_pthread_create();
    if (!real) return EAGAIN;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (stack_size) pthread_attr_setstacksize(&attr, stack_size);
    // A set*id call waits for it to register (fl_cred_mirror_thread_begin).
    fl_cred_mirror_thread_starting();
    fl_solo_thread_starting(solo);
    // Joinable until its id is read: a detached thread may have ended
    // and its descriptor been reused by then.
    int rc = create_agent_thread(real, thread, &attr, start, 0);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        fl_cred_mirror_thread_start_failed();
        fl_solo_thread_start_failed(solo);
        return rc;
    }
    fl_solo_thread_created(solo, *thread);
    if (detached) pthread_detach(*thread);
    return 0;
}

// --- existing threads ------------------------------------------------------

#define FL_MAX_EXISTING 512
static void *g_pending_stack[FL_MAX_EXISTING];
static pid_t g_pending_tid[FL_MAX_EXISTING];
static atomic_int g_pending_count;
static atomic_int g_answered;

// Runs on the existing thread. The kernel saves the thread's sigaltstack
// setting in the signal frame (uc_stack) and restores it at sigreturn, so a
// sigaltstack call made here would be undone the moment the handler
// returns: the new stack goes into uc_stack instead, and sigreturn installs
// it.
static void install_handler(int sig, siginfo_t *info, void *ucv) {
    int saved = errno;
    ucontext_t *uc = ucv;
    pid_t me = fl_gettid();
    int n = atomic_load(&g_pending_count);
    for (int i = 0; i < n; i++) {
        if (g_pending_tid[i] == me && g_pending_stack[i]) {
            // A thread with an alternate stack of its own keeps it (see
            // has_altstack); the one mapped for it goes back (munmap is a
            // plain system call, safe here).
            if (!(uc->uc_stack.ss_flags & SS_DISABLE)) {
                unmap_stack(g_pending_stack[i]);
            } else {
                uc->uc_stack.ss_sp = g_pending_stack[i];
                uc->uc_stack.ss_size = FL_ALTSTACK_SIZE;
                uc->uc_stack.ss_flags = 0;
            }
            g_pending_tid[i] = 0;
            atomic_fetch_add(&g_answered, 1);
        }
    }
    errno = saved;
}

int fl_altstack_install_existing(void) {
    // SIGURG's default action is to ignore, so a stray or late delivery is
    // harmless; borrow it briefly, only when the program has no handler.
    struct sigaction sa = {0}, old;
    if (sigaction(SIGURG, 0, &old) != 0 || old.sa_handler != SIG_DFL) return 0;
    pid_t tids[FL_MAX_EXISTING];
    fl_solo_link_images();
    int n = fl_threads_list(tids, FL_MAX_EXISTING, 0);
    pid_t me = fl_gettid();
    int asked = 0;
    for (int i = 0; i < n; i++) {
        // A thread that blocks the signal would never answer: skip it
        // rather than wait out the deadline (it has no alternate stack).
        // One still starting up blocks everything for an instant (glibc's
        // start_thread): it is asked, and answers when it unblocks.
        // Faultline's own (the shim's leak helper) block it as they begin,
        // which may be after it was sent: it would never be answered.
        if (tids[i] == me || fl_solo_thread_is_faultlines(tids[i]) || fl_thread_blocks_signal_lastingly(tids[i], SIGURG)) continue;
        void *sp = map_stack();
        if (!sp) break;
        g_pending_stack[asked] = sp;
        g_pending_tid[asked] = tids[i];
        asked++;
    }
    if (asked == 0) return 0;
    atomic_store(&g_pending_count, asked);
    sa.sa_sigaction = install_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGURG, &sa, &old) != 0) return 0;
    for (int i = 0; i < asked; i++) syscall(SYS_tgkill, getpid(), g_pending_tid[i], SIGURG);
    uint64_t deadline = fl_monotonic_ns() + 200000000ull;
    while (atomic_load(&g_answered) < asked && fl_monotonic_ns() < deadline) fl_sleep_ns(100000);
    sigaction(SIGURG, &old, 0);
    int answered = atomic_load(&g_answered);
    // Stacks of threads that never answered are leaked on purpose: a late
    // answer may still install them.
    return answered;
}
