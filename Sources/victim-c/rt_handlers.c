// victim-c crash-beside-rt-handlers: installs a handler of its own on every
// real-time signal, as Go's runtime does at start (for os/signal), the
// agent's sample signal among them; checks sigaction reads its handler back
// and that a SIGRTMIN+8 it queues to itself reaches that handler; then
// crashes on main while threads 'rt-idler-0' to 'rt-idler-2' pause. For
// the agent's sample handler staying on its signal (docs/agent.md, "Runtimes
// that take every signal").
//
// victim-c crash-beside-signal-api API: the same with one handler on
// SIGRTMIN+8 set through API (signal, bsd_signal, ssignal, sysv_signal,
// __sysv_signal or sigset) instead of sigaction, which glibc's versions do
// through its internal sigaction, or through glibc's exported aliases of
// sigaction (__sigaction, __libc_sigaction); or SIG_IGN set with sigignore.
#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void victim_null_deref(void);  // main.c
void victim_start_named_idlers(const char *prefix, int n);  // main.c

/// The value the program's own SIGRTMIN+8 carries.
#define RT_OWN_VALUE 4242

static atomic_int g_own_deliveries;
static void own_rt_handler(int sig, siginfo_t *info, void *uc) {
    (void)uc;
    if (sig == SIGRTMIN + 8 && info->si_code == SI_QUEUE && info->si_value.sival_int == RT_OWN_VALUE)
        atomic_fetch_add(&g_own_deliveries, 1);
}

// Queues the program's own SIGRTMIN+8, waits (up to 0.5 s) until its
// handler counted it in `deliveries` and says how often it ran, then
// crashes beside three idle threads, whose stacks the report must hold.
static void own_delivery_then_crash_beside_idlers(atomic_int *deliveries) {
    // Process-directed: any thread that does not block it may take it,
    // Faultline's own among them, so wait for the handler.
    union sigval v = {.sival_int = RT_OWN_VALUE};
    sigqueue(getpid(), SIGRTMIN + 8, v);
    for (int i = 0; i < 500 && !atomic_load(deliveries); i++) usleep(1000);
    fprintf(stderr, "victim: own SIGRTMIN+8 handler ran %d time(s)\n", atomic_load(deliveries));
    victim_start_named_idlers("rt-idler", 3);
    usleep(20000);  // the idlers in pause
    victim_null_deref();
}

void victim_crash_beside_rt_handlers(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = own_rt_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigfillset(&sa.sa_mask);
    for (int s = SIGRTMIN; s <= SIGRTMAX; s++) sigaction(s, &sa, 0);
    struct sigaction back;
    sigaction(SIGRTMIN + 8, 0, &back);
    fprintf(stderr, "victim: sigaction reads back %s handler for SIGRTMIN+8\n",
            (back.sa_flags & SA_SIGINFO) && back.sa_sigaction == own_rt_handler ? "its own" : "another");
    own_delivery_then_crash_beside_idlers(&g_own_deliveries);
}

static atomic_int g_plain_deliveries;

static void own_plain_handler(int sig) {
    if (sig == SIGRTMIN + 8) atomic_fetch_add(&g_plain_deliveries, 1);
}

typedef void (*plain_handler)(int);

// glibc declares it only for old X/Open standards; it is signal().
extern plain_handler bsd_signal(int sig, plain_handler handler);

// Sets `handler` on `sig` with SA_RESTART through glibc's exported sigaction
// alias `name` (__sigaction, __libc_sigaction: looked up as the dynamic
// linker binds a call, since glibc's headers declare neither); returns the
// previous handler.
static plain_handler set_with_alias(const char *name, int sig, plain_handler handler) {
    typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
    sigaction_fn fn = (sigaction_fn)dlsym(RTLD_DEFAULT, name);
    if (!fn) { fprintf(stderr, "victim: libc exports no %s\n", name); exit(2); }
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return fn(sig, &sa, &old) == 0 ? old.sa_handler : SIG_ERR;
}

// Sets `handler` on `sig` through the libc function named `api`; returns
// what it returns (the previous handler).
static plain_handler set_with(const char *api, int sig, plain_handler handler) {
    if (!strcmp(api, "signal")) return signal(sig, handler);
    if (!strcmp(api, "bsd_signal")) return bsd_signal(sig, handler);
    if (!strcmp(api, "ssignal")) return ssignal(sig, handler);
    if (!strcmp(api, "sysv_signal")) return sysv_signal(sig, handler);
    if (!strcmp(api, "__sysv_signal")) return __sysv_signal(sig, handler);
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"  // still in glibc, and in programs
    if (!strcmp(api, "sigset")) return sigset(sig, handler);
#pragma clang diagnostic pop
    if (!strcmp(api, "__sigaction") || !strcmp(api, "__libc_sigaction")) return set_with_alias(api, sig, handler);
    fprintf(stderr, "victim: unknown API '%s' (signal, bsd_signal, ssignal, sysv_signal, __sysv_signal, sigset, __sigaction, __libc_sigaction, sigignore)\n", api);
    exit(2);
}

// sigignore(SIGRTMIN+8): says what the action reads back as, then the same
// queue-and-crash (the program's SIGRTMIN+8 ignored).
static void ignore_then_crash(void) {
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"  // still in glibc, and in programs
    sigignore(SIGRTMIN + 8);
#pragma clang diagnostic pop
    struct sigaction back;
    sigaction(SIGRTMIN + 8, 0, &back);
    fprintf(stderr, "victim: sigignore reads back %s for SIGRTMIN+8\n", back.sa_handler == SIG_IGN ? "SIG_IGN" : "another action");
    own_delivery_then_crash_beside_idlers(&g_plain_deliveries);
}

void victim_crash_beside_signal_api(const char *api) {
    if (!api) { fprintf(stderr, "victim: crash-beside-signal-api needs an API name\n"); exit(2); }
    if (!strcmp(api, "sigignore")) ignore_then_crash();
    set_with(api, SIGRTMIN + 8, own_plain_handler);
    plain_handler back = set_with(api, SIGRTMIN + 8, own_plain_handler);
    fprintf(stderr, "victim: %s reads back %s handler for SIGRTMIN+8\n", api, back == own_plain_handler ? "its own" : "another");
    own_delivery_then_crash_beside_idlers(&g_plain_deliveries);
}
